"""Ledger errors. Each carries ``code`` and ``status`` so the API renders it without knowing it."""

from __future__ import annotations

from typing import Any


class LedgerError(Exception):
    code = "ledger_error"
    status = 400

    def __init__(self, message: str, *, fields: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields or {}


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
