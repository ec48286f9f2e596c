"""Domain errors of the floor. Each has ``code`` and ``status``; the API renders them."""

from __future__ import annotations

from typing import Any

from ledger.errors import ServiceError


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON every error on /api/ answers with, whichever layer turned it away."""
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


class DomainError(ServiceError):
    code = "bad_request"


class ValidationFailed(DomainError):
    code = "invalid"
    status = 400


class NotFound(DomainError):
    code = "not_found"
    status = 404


class Forbidden(DomainError):
    code = "forbidden"
    status = 403


class SeparationOfDuties(Forbidden):
    code = "separation_of_duties"


class Conflict(DomainError):
    code = "conflict"
    status = 409
