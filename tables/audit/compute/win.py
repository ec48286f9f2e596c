"""Win as the regulator reads it, and why it differs from the ledger's (API.md "The drop and the count").

``win = drop − fills + credits + (closer − opener)`` and ``hold = win ÷ drop``, per table and
period, from the count room and the pit's slips alone. The ledger keeps the game's own result
(``electronic_win``: the tray's postings from play). The two differ only by what the count and
the drop add or miss, and each part of the gap is a line (``WinFigures.lines``):

    closer − opener = play + fills − credits − chips sold for cash − chips lent on markers
                      + the tray's count variances          (the ledger's tray between the counts)
    drop            = cash recorded + the boxes' count variance + markers found in the boxes

so ``win − electronic_win`` = tray count variances + drop count variance + (cash recorded in the
counted boxes − chips sold for cash) + (markers found − markers issued). Whatever is left is
``unexplained`` and should be nothing. Plain arithmetic on cents: the reads are in ``win_data``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tables.audit.report import WinLineData, WinRowData

# (code, words) of each line that explains win − electronic_win, in the report's order.
LINES: tuple[tuple[str, str], ...] = (
    ("tray_count_variance", "Tray counts off the ledger (openers and closers adjusted the tray)"),
    ("drop_count_variance", "Drop boxes counted over or short of the cash recorded into them"),
    (
        "cash_not_in_counted_drop",
        "Cash recorded into the counted boxes less chips sold for cash at the table "
        "(a box not yet removed or counted, or one from another day)",
    ),
    ("markers_outstanding", "Markers found in the counted boxes less markers issued at the table"),
    ("unexplained", "Not explained by the above"),
)


@dataclass
class WinFigures:
    """One table's (or a sum of tables') figures for one period, in cents."""

    drop: int = 0  # cash counted in the period's boxes plus the markers found in them
    fills: int = 0
    credits: int = 0
    opener: int = 0
    closer: int = 0
    electronic_win: int = 0  # the tray's postings from play
    tray_variance: int = 0  # count variances the openers and closers posted to the tray
    cash_recorded: int = 0  # cash recorded into the counted boxes
    cash_counted: int = 0  # cash the count found in them
    cash_sold: int = 0  # chips out of the tray for cash at the table (the ledger)
    markers_in_drop: int = 0
    markers_issued: int = 0
    counted: bool = True  # False: a box of the period still waits to be counted

    def __add__(self, other: WinFigures) -> WinFigures:
        out = WinFigures()
        for item in fields(self):
            if item.name == "counted":
                continue
            setattr(out, item.name, getattr(self, item.name) + getattr(other, item.name))
        out.counted = self.counted and other.counted
        return out

    @property
    def win(self) -> int:
        return self.drop - self.fills + self.credits + (self.closer - self.opener)

    @property
    def hold(self) -> float | None:
        """win ÷ drop, a ratio rounded to four places; None with no drop."""
        return hold_of(self.win, self.drop)

    @property
    def difference(self) -> int:
        return self.win - self.electronic_win

    def lines(self) -> list[WinLineData]:
        """``[{code, words, amount}]`` adding up to ``difference``; lines of 0 left out."""
        amounts = {
            "tray_count_variance": self.tray_variance,
            "drop_count_variance": self.cash_counted - self.cash_recorded,
            "cash_not_in_counted_drop": self.cash_recorded - self.cash_sold,
            "markers_outstanding": self.markers_in_drop - self.markers_issued,
        }
        amounts["unexplained"] = self.difference - sum(amounts.values())
        return [
            {"code": code, "words": words, "amount": amounts[code]} for code, words in LINES if amounts[code]
        ]

    def row(self, key: str, label: str) -> WinRowData:
        """The API's row (``WinRowData``)."""
        return {
            "key": key,
            "label": label,
            "drop": self.drop,
            "fills": self.fills,
            "credits": self.credits,
            "opener": self.opener,
            "closer": self.closer,
            "win": self.win,
            "hold": self.hold,
            "electronic_win": self.electronic_win,
            "difference": self.difference,
            "counted": self.counted,
            "explanation": self.lines(),
        }


def hold_of(win: int, drop: int) -> float | None:
    return round(win / drop, 4) if drop else None


def total(figures: list[WinFigures]) -> WinFigures:
    out = WinFigures()
    for item in figures:
        out = out + item
    return out


@dataclass(frozen=True)
class Band:
    """The 95 % band of a month-to-date hold: the expected win ± z σ, over the drop."""

    expected: float  # cents
    sigma: float  # cents
    z: float
    drop: int

    @property
    def low(self) -> float | None:
        return (self.expected - self.z * self.sigma) / self.drop if self.drop else None

    @property
    def high(self) -> float | None:
        return (self.expected + self.z * self.sigma) / self.drop if self.drop else None

    def holds(self, hold: float | None) -> bool:
        """Inside the band (or nothing to judge: no drop, or no play to spread it)."""
        if hold is None or self.low is None or self.high is None or self.sigma <= 0:
            return True
        return self.low <= hold <= self.high


def hold_band(
    *, theo: float | None, theo_variance: float, electronic_win: int, win_squares: float, drop: int, z: float
) -> Band:
    """Where a table's or a game's hold should fall, from its decisions.

    A game with a theoretical win (Faro: each decided bet's edge, ``RoundStat.theo_milli``) is
    expected to win its theo, give or take the bets' own variance (``theo_variance``). A game
    without one (the card room's games) is expected to win what its rounds won in the ledger,
    give or take the rounds' spread: the sum of each round's house win squared, the variance of a
    sum of independent rounds about a small mean. Either way the drop-based hold outside
    ``expected ± z σ`` over the drop is a question for the pit: cash missing from a box, a count
    gone wrong, or play the game should not produce.
    """
    if theo is not None:
        return Band(expected=theo, sigma=math.sqrt(max(theo_variance, 0.0)), z=z, drop=drop)
    return Band(expected=float(electronic_win), sigma=math.sqrt(max(win_squares, 0.0)), z=z, drop=drop)
