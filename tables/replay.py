"""Check a stored round against a fresh replay of its actions (state and settlements)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ledger.models import Transfer
from tables.games.registry import engine_for
from tables.models import Round, RoundSettlement, RoundStatus, ShoeKind
from tables.rounds import replay_round


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
    try:
        replay = replay_round(round_)
    except Exception as error:
        result.fail(f"the actions no longer replay: {error}")
        return result
    engine = engine_for(round_.game)
    if engine.public_state(replay.state) != round_.state:
        result.fail("the stored state differs from the replayed state")
    expected = Counter(
        (seq, s.kind, s.payer, s.payee, s.amount) for seq, moved in replay.settlements for s in moved
    )
    stored: Counter[tuple[int, str, str, str, int]] = Counter()
    party = _party_of(round_)
    for row in round_.settlements.select_related("action"):
        seq = row.action.seq if row.action else 0
        stored[(seq, row.kind, party(row.from_account), party(row.to_account), row.amount)] += 1
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


def _party_of(round_: Round) -> Callable[[str], str]:
    """Ledger code → engine party, the inverse of tables.rounds._Accounts.code."""
    from casino.models import Player

    seated = [int(p) for p in round_.context.get("seats", {}).values()]
    wallets = {
        code: f"wallet:{pk}"
        for pk, code in Player.objects.filter(pk__in=seated).values_list("pk", "wallet__code")
    }
    table_id = round_.table_id

    def party(code: str) -> str:
        if code in wallets:
            return wallets[code]
        if code == f"tray:{table_id}":
            return "bank"
        if code == "rake":
            return "rake"
        if code.startswith(f"layout:{table_id}:"):
            return f"layout:{code.rsplit(':', 1)[1]}"
        if code.startswith(f"pot:{table_id}:"):
            return f"pot:{code.split(':', 2)[2]}"
        return code

    return party
