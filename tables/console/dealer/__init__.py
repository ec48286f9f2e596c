"""The dealer's screens: their tables, and a table's screen with its taps, panels and drawings."""
