"""Ledger errors. Each carries ``code`` and ``status`` so the API renders it without knowing it."""

from __future__ import annotations

import re
from typing import Any

from ledger.dollars import dollars

CENTS = re.compile(r"(-?\d+) cents")


def in_dollars(message: str) -> str:
    """A message's "5000 cents" as "$50.00": people read dollars."""
    return CENTS.sub(lambda found: dollars(int(found.group(1))), message)


class ServiceError(Exception):
    """The one base of refusals a person can read: the API, console and admin show ``message``.

    ``casino.errors.DomainError`` (the floor's) and ``LedgerError`` (the ledger's) both derive
    from it; it lives here because the ledger imports nothing above it.
    """

    code = "bad_request"
    status = 400

    def __init__(
        self, message: str, *, fields: dict[str, Any] | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}
        if code:
            self.code = code


class LedgerError(ServiceError):
    code = "ledger_error"


class InsufficientFunds(LedgerError):
    code = "insufficient_funds"
    status = 409


class IdempotencyConflict(LedgerError):
    code = "idempotency_conflict"
    status = 409


class UnknownAccount(LedgerError):
    code = "unknown_account"
    status = 404


class InvalidTransfer(LedgerError):
    code = "invalid_transfer"
    status = 400


class HoldNotPending(LedgerError):
    code = "hold_not_pending"
    status = 409


class HoldExceeded(LedgerError):
    code = "hold_exceeded"
    status = 409


class AlreadyReversed(LedgerError):
    code = "already_reversed"
    status = 409


class GamingDayClosed(LedgerError):
    code = "gaming_day_closed"
    status = 409
