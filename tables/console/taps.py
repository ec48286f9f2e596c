"""What every screen's tap shares (the dealer's table, the pit's, the cage's): the flash that
answers it, the receipt a service call's work returns, and the one way a screen is drawn whole
or in part. Kept apart from the screens so none of them imports another's views for it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.cash.errors import IdentificationRequired
from casino.cash.services import note_refusal
from casino.errors import DomainError
from ledger.errors import LedgerError
from tables.console.idempotency import Done, Outcome, run_tap
from tables.games.errors import IllegalAction

SERVICE_ERRORS = (DomainError, LedgerError, IllegalAction)


@dataclass(frozen=True, slots=True)
class Flash:
    """The answer to the last tap, shown where it was made: what moved, or why nothing did."""

    ok: bool
    headline: str
    lines: tuple[str, ...] = ()
    form: str = ""
    replayed: bool = False
    fill_cents: int = 0  # a tray short for a payout: the fill to offer (tables.console.dealer.opening)
    stays: bool = False  # a success that says something to act on: it does not fade

    @classmethod
    def done(cls, outcome: Outcome, form: str) -> Flash:
        """A tap that went through (``outcome`` from ``run_tap``: its receipt, and whether replayed)."""
        return cls(
            ok=True,
            headline=outcome.result["headline"],
            lines=tuple(outcome.result.get("lines", [])),
            form=form,
            replayed=outcome.replayed,
            stays=bool(outcome.result.get("stays")),
        )

    @property
    def fades_after(self) -> int:
        """After how many milliseconds console.js fades the receipt: a success that does not stay;
        0 (never) for a refusal."""
        return settings.RECEIPT_FADE_MS if self.ok and not self.stays else 0

    @classmethod
    def refused(
        cls, error: DomainError | LedgerError | IllegalAction, form: str, headline: str = ""
    ) -> Flash:
        return cls(ok=False, headline=headline or error.message, form=form)


def receipt(headline: str, *lines: str, **extra: Any) -> dict[str, Any]:
    return {"headline": headline, "lines": list(lines), **extra}


def render_screen(
    request: HttpRequest, partial: str, whole: str, context: dict[str, Any], *, status: int = 200
) -> HttpResponse:
    """A screen drawn with ``partial`` for htmx (a tap's answer in place, a poll) or ``whole``."""
    template = partial if request.htmx else whole  # type: ignore[attr-defined]
    return render(request, template, context, status=status)


def tap_flash(
    request: HttpRequest, form: str, work: Callable[[], dict[str, Any]]
) -> tuple[Flash, dict[str, Any], int]:
    """Run ``work`` once per form token for a screen that shows any outcome in its flash (the
    pit's, the cage's): the flash, the receipt (empty when refused) and the answer's status."""
    try:
        outcome = run_tap(request, lambda: Done(work()))
    except SERVICE_ERRORS as error:
        if isinstance(error, IdentificationRequired):  # its transaction rolled back: write it down now
            note_refusal(error)
        return Flash.refused(error, form), {}, int(getattr(error, "status", 400))
    return Flash.done(outcome, form), outcome.result, 200
