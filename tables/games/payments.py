"""Money an action moves out of players' reserve holds, and the house's cut of a pot.

Every pot and stakes engine pays through ``Reserves``, so GAMES.md "Reserve (table
stakes)" holds in one place: nobody pays more than what is left of their reserve; a larger
payment is paid in part and the receiver gets what there is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.dollars import dollars as _dollars
from tables.games.base import RAKE, Settlement, pot, split_evenly, wallet

HUGE = 10**15  # cents; beyond this a message says "that amount" (int→str has a length limit)


def dollars(cents: int) -> str:
    """Dollars in an engine's message, spelled as everywhere (``ledger.dollars``): $1,234.50."""
    return "that amount" if abs(cents) >= HUGE else _dollars(cents)


class Reserves:
    """What is left of each player's reserve while one action settles, and what it paid."""

    def __init__(self, left: Mapping[int, int] | Iterable[tuple[int, int]]) -> None:
        self.left = dict(left)
        self.settlements: list[Settlement] = []

    def take(self, player: int, amount: int) -> int:
        """Take up to ``amount`` from a reserve without saying yet where it goes."""
        taken = max(0, min(amount, self.left[player]))
        self.left[player] -= taken
        return taken

    def pay(self, kind: str, player: int, payee: str, amount: int) -> int:
        """Pay ``payee`` from the player's reserve, in part if need be; returns what was paid."""
        paid = self.take(player, amount)
        self.move(kind, wallet(player), payee, paid, player)
        return paid

    def move(self, kind: str, payer: str, payee: str, amount: int, player: int | None) -> None:
        """Record a movement no reserve limits (out of a pot); nothing moves for 0."""
        if amount > 0:
            self.settlements.append(Settlement(kind, payer, payee, amount, player))

    def remaining(self, players: Sequence[int]) -> tuple[int, ...]:
        return tuple(self.left[player] for player in players)


def share_among(
    reserves: Reserves, dues: Sequence[tuple[int, int]], winners: Sequence[int], kind: str
) -> None:
    """Collect each payer's due (in part if need be) and split the total evenly among winners.

    The total collected is split with the odd cent one at a time in ``winners`` order (the
    caller passes them from the dealer's left); payers' money is then matched to winners'
    shares in order, so every cent collected reaches a winner and shares differ by at most
    one cent.
    """
    collected = [(payer, reserves.take(payer, due)) for payer, due in dues]
    total = sum(amount for _, amount in collected)
    if total == 0 or not winners:
        return
    shares = [[winner, share] for winner, share in split_evenly(total, winners).items()]
    index = 0
    for payer, amount in collected:
        while amount > 0:
            winner, owed = shares[index]
            part = min(amount, owed)
            reserves.move(kind, wallet(payer), wallet(winner), part, payer)
            amount -= part
            shares[index][1] = owed - part
            if shares[index][1] == 0:
                index += 1


@dataclass(frozen=True, slots=True)
class PercentRake:
    """The house's cut of a pot as it is won: floor to the cent, capped."""

    percent: int
    cap: int | None

    def take(self, amount: int) -> int:
        cut = amount * self.percent // 100
        return cut if self.cap is None else min(cut, self.cap)


def percent_rake(rules: Mapping[str, Any]) -> PercentRake | None:
    """The engine's rake from checked rules; a time rake is the table service's business."""
    rake = rules.get("rake")
    if rake is None or rake.get("kind") != "percent":
        return None
    return PercentRake(percent=rake["percent"], cap=rake["cap"])


def pay_pot(
    reserves: Reserves,
    name: str,
    amount: int,
    winner: int,
    rake: PercentRake | None,
    *,
    rake_player: int | None = None,
) -> None:
    """The winner takes pot ``name`` less the house's percent cut, taken "from each pot as it is
    won" (GAMES.md); ``rake_player`` is whom the rake's settlement names (Newmarket: the winner)."""
    cut = rake.take(amount) if rake else 0
    reserves.move("rake", pot(name), RAKE, cut, rake_player)
    reserves.move("pot", pot(name), wallet(winner), amount - cut, winner)
