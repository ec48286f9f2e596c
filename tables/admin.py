"""Tables, sessions, seats, fills and rounds in the admin: read-only views, actions through services.

Amounts show in dollars (``casino.admin_display``); a round's state, context and actions show as
tables with card labels (A♥), player names and dollars, not as raw JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from casino.admin_display import DollarsMixin
from casino.money import format_dollars
from casino.selectors import player_names
from ledger.admin import ReadOnlyAdmin, ReadOnlyInline
from tables.games.cards import card_label
from tables.models import (
    LimitChange,
    RefusedAction,
    Round,
    RoundAction,
    RoundSettlement,
    Seat,
    Table,
    TableSession,
    TrayRequest,
)

# --------------------------------------------------------------------------- a round's JSON, readable

CARD = re.compile(r"^(?:10|[2-9AJQK])[SHDC]$|^JK$")
# Keys whose whole numbers are cents, in any game's state, context or action.
MONEY_KEYS = frozenset(
    {"amount", "ante", "bid", "chip", "farm", "max_bet", "max_player_action", "min_bet", "pot", "pots"}
    | {"reserve_left", "stake"}
)
# Keys whose whole numbers are player ids (Faro's "turn" is a count, not a player).
PLAYER_KEYS = frozenset(
    {"bidder", "best", "busted", "buyer", "dealer", "farm_winner", "farmer", "loser", "next_farmer"}
    | {"order", "player", "players", "seats", "turn", "winner", "winners"}
)


class Readable:
    """Renders a round's JSON for people: nested tables, A♥ for AH, names for ids, dollars for cents."""

    def __init__(self, names: Mapping[int, str], *, game: str = "") -> None:
        self.names = names
        self.player_keys = PLAYER_KEYS - {"turn"} if game == "faro" else PLAYER_KEYS

    def label(self, key: str, parent: str) -> str:
        if CARD.match(key):
            return card_label(key)
        if key.isdigit() and parent != "seats" and int(key) in self.names:
            return self.names[int(key)]
        return key.replace("_", " ")

    def child_key(self, key: str, child: str) -> str:
        """A map keyed by cards or players ({"AH": 300} under "pots") reads its values as its key's."""
        return key if key in MONEY_KEYS or key in self.player_keys else child

    def scalar(self, value: Any, key: str) -> str:
        if value is None:
            return "—"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int) and key in MONEY_KEYS:
            return format_dollars(value)
        if isinstance(value, int) and key in self.player_keys and value in self.names:
            return self.names[value]
        if isinstance(value, str) and CARD.match(value):
            return card_label(value)
        return str(value)

    def html(self, value: Any, key: str = "") -> SafeString:
        if isinstance(value, dict) and value:
            return self._mapping(value, key)
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            return self._rows(value, key)
        if isinstance(value, list) and value:
            cards = all(isinstance(item, str) and CARD.match(item) for item in value)
            return format_html_join(" " if cards else ", ", "{}", ((self.html(item, key),) for item in value))
        if isinstance(value, dict | list):
            return mark_safe("—")
        return format_html("{}", self.scalar(value, key))

    def _mapping(self, value: Mapping[str, Any], key: str) -> SafeString:
        rows = format_html_join(
            "",
            '<tr><th scope="row">{}</th><td>{}</td></tr>',
            ((self.label(str(k), key), self.html(v, self.child_key(key, str(k)))) for k, v in value.items()),
        )
        return format_html('<table class="round-json"><tbody>{}</tbody></table>', rows)

    def _rows(self, items: list[Mapping[str, Any]], key: str) -> SafeString:
        """A list of records (a game's players, Faro's bets) as one table, a column per key."""
        columns = list(dict.fromkeys(k for item in items for k in item))
        head = format_html_join("", '<th scope="col">{}</th>', ((self.label(c, key),) for c in columns))
        cells = (
            format_html_join("", "<td>{}</td>", ((self.html(i.get(c), c),) for c in columns)) for i in items
        )
        body = format_html_join("", "<tr>{}</tr>", ((row,) for row in cells))
        table = '<table class="round-json"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>'
        return format_html(table, head, body)

    def scalar_list(self, values: list[Any], key: str) -> str:
        return ", ".join(self.scalar(value, key) for value in values) or "—"

    def line(self, payload: Mapping[str, Any]) -> str:
        """An action on one line: 'play · player Kate Elder · card 2♥ · limits $1.00–$50.00'."""
        parts = [str(payload.get("type", "")).replace("_", " ")]
        rest = sorted((k for k in payload if k != "type"), key=lambda k: (k != "player", k == "limits", k))
        for key in rest:
            value = payload[key]
            if key == "limits" and isinstance(value, dict):
                low, high = (
                    self.scalar(value.get("min_bet"), "min_bet"),
                    self.scalar(value.get("max_bet"), "max_bet"),
                )
                shown = f"{low}–{high}"
            elif isinstance(value, dict):
                shown = ", ".join(
                    f"{self.label(str(k), key)} {self.scalar(v, self.child_key(key, str(k)))}"
                    for k, v in value.items()
                )
            elif isinstance(value, list):
                shown = " ".join(self.scalar(item, key) for item in value)
            else:
                shown = self.scalar(value, key)
            parts.append(f"{key.replace('_', ' ')} {shown}")
        return " · ".join(parts)


def round_player_names(round_: Round) -> dict[int, str]:
    """The names of everyone dealt in or seated at the start: one query."""
    seats = (round_.context or {}).get("seats", {})
    ids = {int(p) for p in round_.players} | {int(p) for p in seats.values()}
    return player_names(ids)


def readable_for(round_: Round) -> Readable:
    cached = round_.__dict__.get("_admin_readable")
    if cached is None:
        cached = Readable(round_player_names(round_), game=round_.game)
        round_.__dict__["_admin_readable"] = cached
    return cast(Readable, cached)


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("number", "player", "seated_at", "left_at", "seated_by")
    readonly_fields = fields


@admin.register(Table)
class TableAdmin(DollarsMixin, ReadOnlyAdmin):
    """Tables are created and changed through the services (API, console, pit view)."""

    list_display = ("name", "game", "status", "min_bet", "max_bet", "ante", "dealer", "tray")
    money_fields = ("min_bet", "max_bet", "ante")
    list_filter = ("game", "status")
    search_fields = ("name",)
    list_select_related = ("dealer", "tray")
    inlines = (SeatInline,)


@admin.register(TableSession)
class TableSessionAdmin(DollarsMixin, ReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "opened_at",
        "closed_at",
        "opening_inventory",
        "closing_inventory",
        "win",
        "closing_variance",
    )
    list_filter = ("table",)
    date_hierarchy = "opened_at"
    list_select_related = ("table",)
    money_fields = (
        "opening_inventory",
        "opening_ledger",
        "opening_variance",
        "closing_inventory",
        "closing_ledger",
        "closing_variance",
        "drop",
        "fills",
        "credits",
        "win",
        "rake",
    )


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "player", "seated_at", "left_at")
    list_filter = ("table",)
    search_fields = ("player__user__name", "player__user__username")
    list_select_related = ("table", "player__user")


@admin.register(TrayRequest)
class TrayRequestAdmin(DollarsMixin, ReadOnlyAdmin):
    """Fills and credits approved in one step before slips: history, read only. Fills and credits
    are slips now (tables.slips), asked, approved and signed through the API and the screens."""

    list_display = ("id", "table", "kind", "amount", "status", "requested_by", "requested_at", "decided_by")
    money_fields = ("amount",)
    list_filter = ("status", "kind", "table")
    list_select_related = ("table", "requested_by", "decided_by")


@admin.register(LimitChange)
class LimitChangeAdmin(DollarsMixin, ReadOnlyAdmin):
    list_display = ("table", "at", "changed_by", "old_min_bet", "old_max_bet", "new_min_bet", "new_max_bet")
    money_fields = ("old_min_bet", "old_max_bet", "new_min_bet", "new_max_bet")
    list_filter = ("table",)
    list_select_related = ("table", "changed_by")


class RoundActionInline(ReadOnlyInline):
    model = RoundAction
    fields = ("seq", "what", "actor", "at", "transfer")
    readonly_fields = fields
    readable = Readable({})  # RoundAdmin.get_inline_instances gives it the round's names

    @admin.display(description="action")
    def what(self, action: RoundAction) -> str:
        return self.readable.line(action.payload)


class RoundSettlementInline(DollarsMixin, ReadOnlyInline):
    model = RoundSettlement
    fields = ("action", "kind", "from_account", "to_account", "amount", "player", "transfer")
    readonly_fields = fields
    money_fields = ("amount",)


def _as_html(field: str, description: str) -> Any:
    """A read-only admin field showing the round's JSON ``field`` as readable tables."""

    @admin.display(description=description)
    def shown(self: Any, round_: Round) -> SafeString:
        return readable_for(round_).html(getattr(round_, field))

    return shown


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "game", "number", "status", "shoe", "version", "started_at", "ended_at")
    list_filter = ("game", "status", "shoe", "table")
    date_hierarchy = "started_at"
    list_select_related = ("table",)
    # The seed stays out until /verify reveals it; the JSON fields show as tables.
    fields = (
        "table",
        "game",
        "number",
        "status",
        "shoe",
        "rules_shown",
        "players_dealt_in",
        "commitment",
        "version",
        "started_by",
        "started_at",
        "ended_at",
        "session",
        "context_shown",
        "state_shown",
        "carry_shown",
        "holds_shown",
    )
    readonly_fields = fields
    inlines = (RoundActionInline, RoundSettlementInline)

    def get_inline_instances(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        inlines = super().get_inline_instances(request, obj)
        for inline in inlines:
            if isinstance(inline, RoundActionInline) and obj is not None:
                inline.readable = readable_for(obj)
        return inlines

    @admin.display(description="players dealt in")
    def players_dealt_in(self, round_: Round) -> str:
        return readable_for(round_).scalar_list(round_.players, "players")

    rules_shown = _as_html("rules", "rules")
    context_shown = _as_html("context", "context (seats, limits, ante and carry at the start)")
    state_shown = _as_html("state", "state")
    carry_shown = _as_html("carry", "carry (what the next round inherits)")
    holds_shown = _as_html("holds", "holds (player → ledger hold)")


@admin.register(RefusedAction)
class RefusedActionAdmin(ReadOnlyAdmin):
    list_display = ("at", "table", "round", "actor", "player", "code")
    list_filter = ("code", "table")
    list_select_related = ("table", "actor")
