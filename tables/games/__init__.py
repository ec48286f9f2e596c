"""Pure-Python rules engines. Nothing here imports Django (import-linter enforces it).

Every engine is a fold: ``start`` builds the first state from rules, seats and shoe, and
``apply`` maps (state, action) to a new state plus the settlements the action caused.
States are immutable, so a round replays exactly from its action list.
"""
