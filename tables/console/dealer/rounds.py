"""A round's taps at the console, each the one piece of work its ``run_tap`` runs once per token:
read the form into the engine's action, apply it through ``tables.rounds`` as the API does, and
say what it did (``tables.console.words``).

A form is read inside the tap, not before it: what a form means can depend on the round as it
stands (the manual shoe's cards due, the pot games' offers of now), and a retry of a tap that
went through must replay its receipt, not be refused by the round it moved on.

An action the engine (or ``apply_round_action``) refuses raises ``RefusedAction``, which carries
the action the form asked for: the view logs it (``log_refused``) once the tap's transaction
has rolled back, as the API does.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import HttpRequest, QueryDict

from casino.models import Player
from casino.permissions import actor_of
from tables.accounts import WALLET_PREFIX
from tables.console import forms
from tables.console.access import found
from tables.console.dealer import faro as faro_screen
from tables.console.dealer.games import (
    GAME_TITLES,
    find_offer,
    known_hands_of,
    legal_actions_of,
    payload_from,
    round_offers,
)
from tables.console.dealer.screen import names_at
from tables.console.idempotency import Done
from tables.console.taps import receipt
from tables.console.words import done_words, faro_done_words, not_dealt_in, settlement_words
from tables.games.errors import IllegalAction
from tables.models import Round, ShoeKind, Table
from tables.rounds import apply_round_action, log_refused_action, start_round
from tables.selectors import SettlementRow

NO_SUCH_DEAL = "No such deal at this table."
FARO_ACTIONS = ("bet", "remove_bet", "soda", "turn", "last_turn", "call_turn")


class RefusedAction(IllegalAction):
    """An action refused by the round's rules, with the ``action`` the form asked for (to log)."""

    def __init__(self, error: IllegalAction, action: dict[str, Any]) -> None:
        super().__init__(error.code, error.message, error.fields)
        self.action = action


def log_refused(request: HttpRequest, round_id: int, error: Exception) -> None:
    """Keep a refused action for the dealer's metrics and detection (``log_refused_action``),
    outside the tap's rolled-back transaction; any other error was not the round's to refuse."""
    if isinstance(error, RefusedAction):
        log_refused_action(actor=actor_of(request), round_id=round_id, action=error.action, code=error.code)


def start_deal(request: HttpRequest, table_id: int) -> Done:
    """The deal's start: its shoe, what it moved (antes, reserves), who sat it out and why."""
    shoe = forms.checked(forms.StartDealForm(request.POST)).cleaned_data["shoe"]
    round_ = start_round(actor=actor_of(request), table_id=table_id, shoe=shoe)
    lines = moved(round_)
    if round_.shoe == ShoeKind.ELECTRONIC:
        lines.insert(0, f"Shoe commitment {round_.commitment[:16]}… published before the first card.")
    title = GAME_TITLES.get(round_.game, round_.game)
    started = f"{title} deal #{round_.number} started ({round_.shoe} shoe)."
    left_out = round_.context.get("sat_out", [])
    if left_out:  # in the headline, and kept on screen: a seat skipped in silence looks like a mistake
        return Done(receipt(f"{started} {not_dealt_in(left_out)}", *lines, stays=True))
    return Done(receipt(started, *lines))


def faro_action(request: HttpRequest, table: Table, round_id: int, kind: str) -> Done:
    """A Faro form's action (``kind``, from its URL), applied at ``table`` (its access check's read)."""
    payload = _faro_payload(kind, request.POST, table.pk, round_id)
    saved = _apply(request, table, round_id, payload)
    names, _ = names_at(table, None)
    return _done(faro_done_words(payload, saved.state, names), payload, saved, table)


def _faro_payload(kind: str, data: QueryDict, table_id: int, round_id: int) -> dict[str, Any]:
    """The engine action a Faro form asks for. Only the card picker's dealing step reads the round
    before the action (how many cards its manual shoe keys now); an electronic shoe's "Deal turn"
    posts no card, so it is the bare step, read nowhere but in the action (a manual round sent
    no card is refused there by the engine)."""
    if kind in forms.FARO_FORMS or not forms.keys_cards(data):
        return forms.faro_payload(kind, data)
    round_ = _round_at(table_id, round_id)
    due = round_.shoe == ShoeKind.MANUAL
    needed = faro_screen.cards_to_key(legal_actions_of(round_), kind) if due else None
    return forms.faro_payload(kind, data, needed=needed)


def game_action(request: HttpRequest, table: Table, round_id: int) -> Done:
    """A pot or stakes game's action: the form names one of the offers of now (``games.offers``),
    found again among what the engine accepts, then filled from the form."""
    round_ = _round_at(table.pk, round_id)
    names, _ = names_at(table, round_)
    offer = find_offer(round_offers(round_, names), request.POST.get("action", ""))
    payload = payload_from(offer, request.POST)
    saved = _apply(request, table, round_id, payload)
    headline = done_words(
        saved.game,
        offer.kind,
        payload,
        names=names,
        before=round_.state,
        after=saved.state,
        hands_before=known_hands_of(round_),
        hands_after=known_hands_of(saved),
    )
    return _done(headline, payload, saved, table)


def _round_at(table_id: int, round_id: int) -> Round:
    return found(Round.objects.filter(pk=round_id, table_id=table_id), NO_SUCH_DEAL)


def _apply(request: HttpRequest, table: Table, round_id: int, payload: dict[str, Any]) -> Round:
    """The action applied at the round version the screen was drawn at; a refusal carries it."""
    version = forms.checked(forms.VersionForm(request.POST)).cleaned_data["version"]
    try:
        return apply_round_action(
            actor=actor_of(request), round_id=round_id, action=payload, version=version, at_table=table.pk
        )
    except IllegalAction as error:
        raise RefusedAction(error, payload) from error


def _done(headline: str, payload: dict[str, Any], saved: Round, table: Table) -> Done:
    """The receipt: the headline, then what moved (a bet's stake says itself), then the settling."""
    lines = [] if payload.get("type") in ("bet", "call_turn") else moved(saved, table)
    if saved.status == "settled":
        lines.append("The round is settled.")
    return Done(receipt(headline, *lines), made=saved)


def moved(round_: Round, table: Table | None = None) -> list[str]:
    """What the deal's start or an action just moved, in words, from the rows it wrote
    (``settlements_made``: nothing is read back). Players are named from ``table``'s seats (its
    ``dealer_table`` read); anyone else the rows name (a player who left mid-deal) in one read."""
    rows = [SettlementRow(*row) for row in round_.settlements_made]
    by_code: dict[str, str] = {}
    by_id: dict[int, str] = {}
    for seat in getattr(table, "active_seats", []):
        by_code[seat.player.wallet.code] = by_id[seat.player_id] = seat.player.name
    codes = {code for row in rows for code in (row.from_account, row.to_account)}
    wallets = {code for code in codes if code.startswith(WALLET_PREFIX) and code not in by_code}
    ids = {row.player_id for row in rows if row.player_id is not None and row.player_id not in by_id}
    if wallets or ids:
        others = Player.objects.select_related("user", "wallet").filter(
            Q(wallet__code__in=wallets) | Q(pk__in=ids)
        )
        for player in others:
            by_code[player.wallet.code] = by_id[player.pk] = player.name
    return settlement_words(rows, by_code, by_id)
