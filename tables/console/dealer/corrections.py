"""Corrections on the floor's screens: the dealer asks, the pit sees what would be voided and decides.

The services are ``tables.corrections``; this module reads what the screens show of them, each
action in words (``tables.console.words``). The dealer's form posts to ``views.ask_correction``,
the pit's buttons to ``pit.views.decide_correction``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from casino.selectors import player_names
from tables import corrections as service
from tables.console.words import action_words
from tables.models import Correction, Round, RoundAction, RoundStatus


def seated_names(round_: Round) -> dict[int, str]:
    return player_names(int(p) for p in round_.context.get("seats", {}).values())


@dataclass(frozen=True, slots=True)
class CorrectionRow:
    """A pending correction as the pit reads it before deciding."""

    correction: Correction
    table: str
    deal: int
    asked_by: str
    voids: list[str]


def pending_rows(*, table_ids: Iterable[int] | None = None) -> list[CorrectionRow]:
    rows = []
    for correction in service.pending_corrections(table_ids=table_ids):
        round_ = correction.round
        names = seated_names(round_)
        if correction.from_seq is None:
            voids = ["The whole deal (misdeal): every ante, bet and pot payment goes back."]
        else:
            actions = RoundAction.objects.filter(round=round_, seq__gte=correction.from_seq).order_by("seq")
            voids = [f"#{a.seq} {action_words(a.payload, names)}" for a in actions]
        requester = correction.requested_by
        rows.append(
            CorrectionRow(
                correction=correction,
                table=round_.table.name,
                deal=round_.number,
                asked_by=requester.name or requester.username,
                voids=voids,
            )
        )
    return rows


def last_action_words(round_: Round | None, names: Mapping[int, str] | None = None) -> str:
    """What "undo the last action" would undo, for the dealer's form (empty: nothing to undo).
    ``names``: the round's players' names if the caller has read them already."""
    if round_ is None or round_.status == RoundStatus.VOID:
        return ""
    last = RoundAction.objects.filter(round=round_).only("payload").order_by("-seq").first()
    return "" if last is None else action_words(last.payload, names or seated_names(round_))
