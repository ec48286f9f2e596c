"""Who is dealt into a pot or stakes round: a wallet must cover the engine's reserve (GAMES.md).

The engine says what each player's reserve is (``Engine.reserve``: for the stakes games at
least the most the table's ``settle`` can ask of one player). A seated player whose wallet
cannot cover it sits the round out, and the dealer is told who and why, in dollars, so a
short wallet never shortens a stake in silence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from casino.errors import Conflict
from casino.models import Player
from casino.money import format_dollars
from ledger.services import HoldRequest, hold_many
from tables.games.base import Engine, TableContext
from tables.games.errors import IllegalAction
from tables.models import Round


@dataclass(frozen=True, slots=True)
class SatOut:
    """A seated player left out of a round because their wallet cannot cover its reserve."""

    player: int
    name: str
    reserve: int  # cents
    available: int  # cents

    @property
    def message(self) -> str:
        return (
            f"{self.name} is not dealt in: the reserve for this round is {format_dollars(self.reserve)} "
            f"and their wallet has {format_dollars(self.available)} available."
        )

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "message": self.message}


def dealt_in(
    engine: Engine[Any], seated: Mapping[int, Player], base_ctx: Mapping[str, Any]
) -> tuple[dict[int, int], list[SatOut]]:
    """The seats dealt in, and who sat out and why.

    Leaving a player out can change everyone's reserve (Tonk's and Old Maid's grow with the
    players), so the check repeats until every remaining wallet covers it. When too few
    players are left to play, the refusal names those who sat out.
    """
    seats = {number: player.pk for number, player in seated.items()}
    sat_out: list[SatOut] = []
    for _ in range(len(seated) + 1):
        if not seats:
            break
        try:
            reserve = engine.reserve(TableContext(seats=seats, **base_ctx))
        except IllegalAction as error:
            if not sat_out:
                raise
            raise Conflict(_with_reasons(error.message, sat_out), code=error.code) from error
        short = [n for n, pid in seats.items() if reserve.get(pid, 0) > seated[n].wallet.available]
        if not short:
            return seats, sat_out
        sat_out += [
            SatOut(seats[n], seated[n].name, reserve[seats[n]], seated[n].wallet.available) for n in short
        ]
        seats = {n: p for n, p in seats.items() if n not in short}
    if sat_out:
        raise Conflict(
            _with_reasons("No seated player can cover the reserve.", sat_out), code="insufficient_funds"
        )
    return seats, sat_out


def _with_reasons(message: str, sat_out: list[SatOut]) -> str:
    return " ".join([message, *(s.message for s in sat_out)])


def hold_reserves(
    round_: Round, amounts: Mapping[int, int], wallets: Mapping[int, str], *, memo: str, key_suffix: str = ""
) -> dict[str, int]:
    """Hold each player's reserve (cents; none for 0) on their wallet, in one batch: the holds as
    ``Round.holds`` keeps them. A correction's re-hold keys its holds with a ``key_suffix``."""
    players = [pid for pid, amount in amounts.items() if amount > 0]
    held = hold_many(
        [
            HoldRequest(
                key=f"round:{round_.pk}:reserve:{pid}{key_suffix}",
                account_code=wallets[pid],
                amount=amounts[pid],
                memo=memo,
                meta={"table": round_.table_id, "round": round_.pk, "player": pid},
            )
            for pid in players
        ]
    )
    return {str(pid): hold.pk for pid, hold in zip(players, held, strict=True)}
