"""Made-up play goes only into a database that holds no real play.

``load_demo_data`` and ``simulate_night`` fill a database with made-up players, tables, chips
and rounds. A database holds *real play* when it has ledger transfers or rounds and no
``casino.models.Sandbox`` mark, the mark these commands write when they begin on a database that
holds no play yet. Both commands call ``make_room_for_made_up_play`` before they write anything:
it marks an empty database, passes a marked one, and refuses one with real play, unless told to
add to it anyway (``--allow-real-play``); a database with real play is never marked, so each
later run asks again.
"""

from __future__ import annotations

from casino.models import Sandbox
from ledger.models import Transfer
from tables.models import Round


class RealPlayFound(Exception):
    """The database holds real play: the message says what was found and how to go on anyway."""


def _counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def real_play() -> str | None:
    """What real play the database holds, in words ("3 ledger transfers and 1 round"), or None."""
    if Sandbox.objects.exists():
        return None
    transfers, rounds = Transfer.objects.count(), Round.objects.count()
    if not transfers and not rounds:
        return None
    return f"{_counted(transfers, 'ledger transfer')} and {_counted(rounds, 'round')}"


def make_room_for_made_up_play(*, command: str, allow_real_play: bool) -> None:
    """Before ``command`` adds made-up play: mark a database without play as a sandbox, pass a
    sandbox, and refuse (``RealPlayFound``, nothing written) a database with real play unless
    ``allow_real_play``; then it is left unmarked."""
    found = real_play()
    if found is None:
        Sandbox.objects.get_or_create(pk=1, defaults={"marked_by": command})
        return
    if allow_real_play:
        return
    raise RealPlayFound(
        f"This database holds real play: {found}, and no mark that the demo or a simulated night "
        f"made them. {command} would add made-up players, tables and chips to it. Run it on an "
        "empty database, or pass --allow-real-play to add them anyway."
    )
