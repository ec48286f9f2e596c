"""``python -m bench.cheats [--inject ...] [--truth ...] [simulate_night's options]``: see ``night``."""

from __future__ import annotations

import os
import sys

SETTINGS = "casino.settings.local"  # as manage.py


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS)
    import django

    django.setup()
    from bench.cheats.night import Command

    Command().run_from_argv([sys.argv[0], "night", *sys.argv[1:]])


if __name__ == "__main__":
    main()
