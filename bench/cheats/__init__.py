"""Cheats for a simulated night, for the detection tests and bench: development only.

``inject`` holds the scenarios and their ``Injector`` (a ``NightHooks`` plug-in of
``tables.simulation.night``); ``night`` is ``simulate_night`` with them plugged in
(``--inject``/``--truth``), run as ``bench/run-night`` or ``python -m bench.cheats``. None of it
is installed with the product (pyproject.toml installs ``casino``, ``tables`` and ``ledger``).
Nothing is imported here, so ``python -m bench.cheats`` can set Django up first.
"""
