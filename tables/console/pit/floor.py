"""The pit's table cards: rendered once for every pit screen, shared for at most 5 seconds.

Every pit boss sees the same floor, and each pit screen polls it every 5 s; the cards (the floor's
reads, its ratings figures and their markup) are most of what a refresh costs. So the rendered
grid is kept in the shared cache, keyed by the forms a role is shown, together with the moment
its reads began. A screen gets that copy only while the moment is at most ``FLOOR_FRESH_SECONDS``
old: a round action, a tray change or a new limit shows on every pit screen within that time of
being committed (plus the 5 s poll). A pit tap's own answer never uses the copy; it renders the
floor afresh and shares that one.

The per-person parts of each card's forms (the CSRF token and the one-time form tokens) are slots
in the shared copy, filled for each answer; the fills, credits, corrections and alerts waiting
for the pit are read fresh for every answer (``tables.console.pit.views``).

A poll that is served a copy older than ``settings.PIT_FLOOR_REFRESH_SECONDS`` (2.5 s) asks a
Celery worker to render the next one (one request in flight per role's forms), so screens that
keep polling keep finding a copy and no poll renders. Without that, a saturated server fed
itself: a render slower than 2 s was stale as soon as it was shared, so every poll rendered
(on a full floor, a quarter of the floor's CPU in ``bench/run-floor``). A poll
with no fresh copy still renders it itself, so a stopped worker or broker costs only speed.

So while the worker keeps up, the copy a screen reads is up to about three seconds old;
refreshing sooner costs the worker more CPU for fresher cards. The bound, ``FLOOR_FRESH_SECONDS``,
is one poll interval: it only matters when the worker falls behind on a busy floor, and there a
screen reads a copy up to 5 s old rather than rendering the floor itself in the middle of the
dealers' taps.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import redis
from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst

from casino.money import format_dollars, format_dollars_input
from casino.selectors import staff_name
from casino.task_sending import send_task
from tables.console.dealer.games import GAME_TITLES
from tables.console.idempotency import new_token
from tables.console.paths import per_table
from tables.console.pit.figures import TableFigures, floor_figures
from tables.console.pit.markup import CSRF_SLOT, TOKEN_SLOT, card_html, relief_options
from tables.console.selectors import FloorRow, floor_rows
from tables.models import DealerShift, Round
from tables.selectors import list_relief_dealers, recent_dealer_shifts

FLOOR_FRESH_SECONDS = 5.0  # one poll interval of a pit screen
# By name: the task (tables.console.pit.tasks) imports this module.
REFRESH_TASK = "tables.console.tasks.refresh_pit_floor_task"


CARD_LINKS = {
    "tray": "pit:tray",
    "limits": "pit:limits",
    "dealer": "pit:dealer",
    "markers": "pit:markers",
    "admin": "admin:tables_table_change",
}
SHIFTS_SHOWN = 4  # a card's "who dealt" list: the dealer now and the last few before


def _clock(moment: dt.datetime, today: dt.date) -> str:
    """A moment on the casino's clock: "21:05" today, "29 Nov 21:05" another day."""
    local = timezone.localtime(moment)
    return f"{local:%H:%M}" if local.date() == today else f"{local.day} {local:%b %H:%M}"


def shift_words(shifts: Sequence[DealerShift], now: dt.datetime) -> list[tuple[str, str]]:
    """Each shift as (dealer, when) in words: "since 21:05" for the one still running."""
    today = timezone.localtime(now).date()
    return [
        (
            staff_name(shift.dealer),
            f"since {_clock(shift.started_at, today)}"
            if shift.ended_at is None
            else f"{_clock(shift.started_at, today)} – {_clock(shift.ended_at, today)}",
        )
        for shift in shifts
    ]


def _live_deal(round_: Round | None) -> str | None:
    if round_ is None:
        return None
    state = round_.state
    text = f"#{round_.number} · {state.get('phase', '')}"
    if round_.game == "faro":
        text += f" · turn {state.get('turn', '')}/25 · {len(state.get('bets') or ())} bets"
    return text


def card_view(
    row: FloorRow,
    figures: TableFigures,
    links: dict[str, Callable[[int], str]],
    history: list[tuple[str, str]],
) -> dict[str, Any]:
    """One card's words and numbers, worked out here: ``card_html`` then only places them."""
    table = row.table
    variant = (table.rules or {}).get("variant")
    dealer = table.dealer
    return {
        "pk": table.pk,
        "name": table.name,
        "status": table.status,
        "status_label": capfirst(table.get_status_display()),
        "is_open": table.status == "open",
        "game": GAME_TITLES.get(table.game, table.game) + (f" ({variant})" if variant else ""),
        "dealer": staff_name(dealer) if dealer else None,
        "history": history,
        "limits": f"{format_dollars(table.min_bet)} – {format_dollars(table.max_bet)}",
        "min_input": format_dollars_input(table.min_bet),
        "max_input": format_dollars_input(table.max_bet),
        "tray": format_dollars(table.tray.balance),
        "players": row.players,
        "live_deal": _live_deal(row.live_round),
        "win": format_dollars(row.win_tonight),
        "win_class": "win-pos" if row.win_tonight >= 0 else "win-neg",
        "f": figures,
        "today_win": format_dollars(figures.win_today),
        "today_class": "win-pos" if figures.win_today >= 0 else "win-neg",
        "today_handle": format_dollars(figures.handle_today),
        "urls": {name: link(table.pk) for name, link in links.items()},
    }


@dataclass(frozen=True, slots=True)
class CardForms:
    """What a role is shown on each card besides the figures: the rendered grid's cache key."""

    can_request_tray: bool
    can_change_limits: bool
    can_use_admin: bool
    can_assign_dealer: bool

    @property
    def flags(self) -> tuple[bool, bool, bool, bool]:
        return (self.can_request_tray, self.can_change_limits, self.can_use_admin, self.can_assign_dealer)

    @property
    def key(self) -> str:
        return "pit-floor:v2:" + "".join("1" if flag else "0" for flag in self.flags)


def render_cards(*, forms: CardForms) -> tuple[float, str]:
    """The grid of table cards with empty slots, and the moment (epoch seconds) its reads began.

    Whoever asks has been let in already (the pit view, or the worker refreshing the copy)."""
    began = time.time()
    rows = floor_rows()
    figures = floor_figures([row.table for row in rows])
    shifts = recent_dealer_shifts(table_ids=[row.table.pk for row in rows], per_table=SHIFTS_SHOWN)
    links = {name: per_table(view) for name, view in CARD_LINKS.items()}
    dealers = None  # the options of every card's dealer form: written once, for those who swap
    if forms.can_assign_dealer:
        dealers = relief_options([(dealer.pk, staff_name(dealer)) for dealer in list_relief_dealers()])
    now = timezone.now()
    cards = []
    for row in rows:
        view = card_view(row, figures[row.table.pk], links, shift_words(shifts[row.table.pk], now))
        cards.append(
            card_html(
                view,
                tray=forms.can_request_tray,
                limits=forms.can_change_limits,
                admin=forms.can_use_admin,
                dealers=dealers,
            )
        )
    return began, render_to_string("pit/_floor.html", {"cards": mark_safe("".join(cards))})


def _shared(forms: CardForms) -> str | None:
    """The shared copy if its reads began at most ``FLOOR_FRESH_SECONDS`` ago; an older one past
    ``settings.PIT_FLOOR_REFRESH_SECONDS`` has the next one rendered in the background."""
    try:
        kept = cache.get(forms.key)
    except redis.RedisError:  # the cache is an optimisation: without Redis, every answer renders
        return None
    if not kept:
        return None
    began, html = kept
    age = time.time() - began
    if age > FLOOR_FRESH_SECONDS:
        return None
    if age > settings.PIT_FLOOR_REFRESH_SECONDS:
        _refresh_in_background(forms)
    return str(html)


def _refresh_in_background(forms: CardForms) -> None:
    """Ask a worker for the next copy, once per copy's lifetime (the first poll to see it aging)."""
    try:
        claimed = cache.add(f"{forms.key}:refreshing", 1, timeout=int(FLOOR_FRESH_SECONDS) + 1)
    except redis.RedisError:
        return
    if claimed:
        send_task(
            current_app.signature(REFRESH_TASK),
            args=[list(forms.flags)],
            ignore_result=True,
            expires=FLOOR_FRESH_SECONDS,  # a copy rendered later than that would be stale already
        )


def refresh_shared_floor(flags: list[bool]) -> None:
    """The worker's side: render this role's floor and share it for the polls to come."""
    forms = CardForms(*(bool(flag) for flag in flags))
    _render_shared(forms)
    with contextlib.suppress(redis.RedisError):
        cache.delete(f"{forms.key}:refreshing")


def _render_shared(forms: CardForms) -> str:
    """The grid rendered now, and shared as the copy for the polls to come."""
    began, html = render_cards(forms=forms)
    with contextlib.suppress(redis.RedisError):
        cache.set(forms.key, (began, html), timeout=int(FLOOR_FRESH_SECONDS) + 1)
    return html


def floor_cards(request: Any, forms: CardForms, *, fresh: bool = False) -> SafeString:
    """The cards for this answer: the shared copy if fresh enough (never when ``fresh``), slots filled.

    Each answer gets its own one-time token prefix; a form's token is that prefix and the form's
    name on the card, so every form on the page still has a token of its own.
    """
    html = None if fresh else _shared(forms)
    if html is None:
        html = _render_shared(forms)
    html = html.replace(CSRF_SLOT, get_token(request)).replace(TOKEN_SLOT, new_token())
    return mark_safe(html)  # written by pit/_floor.html and pit.markup, which escape every text


def forget_shared_floor() -> None:
    """Drop every role's shared copy (the next poll renders): for a new database, as in tests."""
    every = itertools.product((False, True), repeat=len(dataclasses.fields(CardForms)))
    keys = [CardForms(*flags).key for flags in every]
    with contextlib.suppress(redis.RedisError):
        cache.delete_many(keys + [f"{key}:refreshing" for key in keys])
