"""Check a stored round against a fresh fold of its actions (state and settlements)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ledger.models import Transfer
from tables.accounts import PartyMap
from tables.games.base import Settlement
from tables.games.registry import engine_for
from tables.models import Round, RoundSettlement, RoundStatus, ShoeKind
from tables.round_state import fold

Move = tuple[int, str, str, str, int]  # seq, kind, payer, payee, amount (engine parties)


@dataclass
class ReplayCheck:
    round_id: int
    ok: bool = True
    problems: list[str] = field(default_factory=list)

    def fail(self, problem: str) -> None:
        self.ok = False
        self.problems.append(problem)


def check_round(round_: Round) -> ReplayCheck:
    """Re-run the engine; the state, the settlements and the commitment must all match."""
    from tables.games.shoe import commitment_for

    result = ReplayCheck(round_id=round_.pk)
    if round_.shoe == ShoeKind.ELECTRONIC and commitment_for(round_.seed) != round_.commitment:
        result.fail("the seed does not match the published commitment")
    if round_.status == RoundStatus.VOID:
        _check_voided(round_, result)
        return result
    expected: Counter[Move] = Counter()

    def count(
        seq: int, _payload: Mapping[str, Any] | None, _before: Any, _after: Any, moved: tuple[Settlement, ...]
    ) -> None:
        expected.update((seq, s.kind, s.payer, s.payee, s.amount) for s in moved)

    try:
        state = fold(round_, observer=count)
    except Exception as error:
        result.fail(f"the actions no longer replay: {error}")
        return result
    if engine_for(round_.game).public_state(state) != round_.state:
        result.fail("the stored state differs from the replayed state")
    rows = list(round_.settlements.select_related("action"))
    parties = PartyMap.of_codes(
        round_.table_id, [code for r in rows for code in (r.from_account, r.to_account)]
    )
    stored: Counter[Move] = Counter(
        (
            row.action.seq if row.action else 0,
            row.kind,
            parties.party(row.from_account),
            parties.party(row.to_account),
            row.amount,
        )
        for row in rows
    )
    if expected != stored:
        missing = expected - stored
        extra = stored - expected
        result.fail(f"settlements differ: missing {sorted(missing)[:5]}, unexpected {sorted(extra)[:5]}")
    return result


def _check_voided(round_: Round, result: ReplayCheck) -> None:
    """A round voided whole (a misdeal): every settlement voided, every transfer reversed once."""
    rows = RoundSettlement.all_objects.filter(round=round_)
    if rows.filter(voided_by__isnull=True).exists():
        result.fail("the round is void but some of its settlements are not")
    transfers = set(rows.values_list("transfer_id", flat=True))
    reversed_ = set(Transfer.objects.filter(reverses__in=transfers).values_list("reverses_id", flat=True))
    if transfers - reversed_:
        result.fail(f"the round is void but transfers {sorted(transfers - reversed_)[:5]} are not reversed")
