"""Corrections on the floor's screens: the dealer asks, the pit sees what would be voided and decides.

The services are ``tables.corrections``; this module only phrases things for people (card
names, player names, dollars). The dealer's form posts to ``views.ask_correction``, the pit's
buttons to ``pit.views.decide_correction``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from casino.money import format_dollars
from casino.selectors import player_names
from tables import corrections as service
from tables.console.dealer.cards import card_label, cards_label
from tables.console.dealer.faro import TARGET_LABELS
from tables.models import Correction, Round, RoundAction, RoundStatus


def describe_action(payload: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """One action in words: 'Bet $20.00 by Wyatt Earp on K', 'Turn 9♠ K♥', 'Doc Holliday plays 7♥'."""
    kind = str(payload.get("type", ""))
    player = payload.get("player")
    who = names.get(player, "") if isinstance(player, int) else ""
    amount = payload.get("amount")
    money = format_dollars(amount) if isinstance(amount, int) and not isinstance(amount, bool) else ""
    if kind == "bet":
        where = (
            "–".join(payload.get("ranks") or []) or TARGET_LABELS.get(str(payload.get("target")), "").lower()
        )
        copper = " (coppered)" if payload.get("coppered") else ""
        return f"Bet {money} by {who} on {where}{copper}"
    if kind in ("turn", "last_turn", "soda"):
        cards = payload.get("cards") or ([payload["card"]] if payload.get("card") else [])
        label = {"turn": "Turn", "last_turn": "Last turn", "soda": "Soda"}[kind]
        return f"{label} {cards_label(map(str, cards))}" if cards else f"{label} (electronic shoe)"
    if kind == "remove_bet":
        return f"Bet {payload.get('bet')} taken down"
    if kind == "call_turn":
        return f"{who} calls the turn {cards_label(map(str, payload.get('order') or []))} for {money}"
    if kind == "result":
        if payload.get("winner") is not None:
            return f"Result: {names.get(payload['winner'], 'a player')} wins"
        if payload.get("loser") is not None:
            return f"Result: {names.get(payload['loser'], 'a player')} loses"
        return "Result: scores keyed"
    verb = kind.replace("_", " ")
    card = payload.get("card")
    detail = f" {card_label(str(card))}" if isinstance(card, str) else ""
    if who:
        return f"{who}: {verb}{detail}"
    return f"{verb.capitalize()}{detail}"


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
            voids = [f"#{a.seq} {describe_action(a.payload, names)}" for a in actions]
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
    return "" if last is None else describe_action(last.payload, names or seated_names(round_))
