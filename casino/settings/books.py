"""The pit's books (tables.slips): the chip set, and when a count or a slip in transit needs a look.

Amounts in cents. ``CHIP_SET`` is the casino's chip set, smallest first, as ``value:colour``
pairs separated by commas (``CHIP_SET="50:pink,100:white,…"``); the default has a 50-cent chip
so a Faro split of any whole-dollar bet (the bank takes half) can be paid in chips.
"""

from casino.settings.environment import env


def _chip_set(text: str) -> tuple[tuple[int, str], ...]:
    pairs = []
    for item in text.split(","):
        value, _, colour = item.strip().partition(":")
        pairs.append((int(value), colour.strip() or "plain"))
    return tuple(sorted(pairs))


CHIP_SET = _chip_set(
    env(
        "CHIP_SET",
        default="50:pink,100:white,500:red,2500:green,10000:black,50000:purple,100000:orange",
    )
)
# A count off the ledger's tray by more than this needs the pit boss's written note and raises
# a count_variance alert; by REPORTABLE_VARIANCE or more, a reportable_variance the audit lists.
COUNT_VARIANCE_NOTE = env.int("COUNT_VARIANCE_NOTE", default=2500)
REPORTABLE_VARIANCE = env.int("REPORTABLE_VARIANCE", default=10000)
# A fill or credit still in transit after this long raises an alert.
SLIP_TRANSIT_MINUTES = env.int("SLIP_TRANSIT_MINUTES", default=30)
# A marker still unpaid this many days after its gaming day is past the casino's collection
# deadline: the markers list and the audit's credit aging flag it (Nevada MICS credit play).
MARKER_COLLECTION_DAYS = env.int("MARKER_COLLECTION_DAYS", default=30)
# The bills the count team counts a drop box in, in cents (BILL_VALUES="100,200,500,…").
BILL_VALUES = tuple(
    sorted(int(v) for v in env("BILL_VALUES", default="100,200,500,1000,2000,5000,10000").split(","))
)
# A drop box still at its table this many gaming days after it went there raises drop_box_overdue.
DROP_BOX_OVERDUE_DAYS = env.int("DROP_BOX_OVERDUE_DAYS", default=2)


def _shifts(text: str) -> tuple[tuple[str, int], ...]:
    """``"Day:8,Swing:8,Graveyard:8"`` → ``(("Day", 8), …)``: the pit's shifts in order from the
    gaming day's rollover, each a whole number of hours; together they make the day's 24."""
    shifts = []
    for item in text.split(","):
        name, _, hours = item.strip().partition(":")
        shifts.append((name.strip(), int(hours)))
    if sum(hours for _, hours in shifts) != 24 or any(hours <= 0 or not name for name, hours in shifts):
        raise ValueError(f"WIN_SHIFTS must name shifts of whole hours that make 24: {text!r}")
    return tuple(shifts)


# The shifts win and hold are reported by (GET /gaming-days/{date}/win?by=shift), from the rollover.
WIN_SHIFTS = _shifts(env("WIN_SHIFTS", default="Day:8,Swing:8,Graveyard:8"))
# A table's or a game's month-to-date hold outside this band of its expected hold opens a
# hold_investigation (docs/ledger.md "Win as the regulator reads it"); 1.96: a 95 % band.
HOLD_BAND_Z = env.float("HOLD_BAND_Z", default=1.96)
