"""One exception handler: every error becomes ``{"error": {"code", "message", "fields"}}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

from casino.cash.errors import IdentificationRequired
from casino.cash.services import note_refusal
from casino.errors import error_body
from casino.observability.metrics import API_ERRORS

_DRF_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "malformed_request",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


# Django raises these when a body passes DATA_UPLOAD_MAX_MEMORY_SIZE or its field/file counts.
TOO_LARGE = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)
TOO_LARGE_MESSAGE = "The request body is larger than this service accepts."


def _flatten(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {key: _flatten(value) for key, value in detail.items()}
    if isinstance(detail, list):
        flat = [_flatten(item) for item in detail]
        return flat[0] if len(flat) == 1 and isinstance(flat[0], str) else flat
    return str(detail)


def _validation_message(fields: dict[str, Any]) -> str:
    if "non_field_errors" in fields:
        return str(fields["non_field_errors"])
    parts = [f"{name}: {problem}" for name, problem in fields.items()]
    return "Invalid input. " + "; ".join(parts)


def render_error(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Render domain errors (anything with ``code`` and ``status``) and DRF's own.

    A cash transaction refused for want of identification is written down here (``note_refusal``):
    its own transaction has rolled back by now, and the audit lists every refusal.
    """
    if isinstance(exc, IdentificationRequired):
        note_refusal(exc)
    response = _render(exc)
    if response is not None:
        API_ERRORS.labels(response.data["error"]["code"], str(response.status_code)).inc()
    return response


def _render(exc: Exception) -> Response | None:
    status_code = getattr(exc, "status", None)
    code = getattr(exc, "code", None)
    if isinstance(status_code, int) and isinstance(code, str):
        message = getattr(exc, "message", None) or str(exc)
        return Response(error_body(code, message, getattr(exc, "fields", None)), status=status_code)
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields}
        return Response(error_body("invalid", _validation_message(fields), fields), status=400)
    if isinstance(exc, DjangoValidationError):
        fields = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        return Response(error_body("invalid", _validation_message(fields), fields), status=400)
    if isinstance(exc, TOO_LARGE):
        return Response(error_body("too_large", TOO_LARGE_MESSAGE), status=413)
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "Not found."), status=404)
    if isinstance(exc, DjangoPermissionDenied):
        return Response(error_body("forbidden", "You may not do this."), status=403)
    if isinstance(exc, exceptions.APIException):
        api_code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
        response = Response(error_body(api_code, str(exc.detail)), status=exc.status_code)
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            response.status_code = status.HTTP_401_UNAUTHORIZED
            response["WWW-Authenticate"] = 'Token realm="api"'
        wait = getattr(exc, "wait", None)
        if isinstance(exc, exceptions.Throttled) and wait:
            response["Retry-After"] = str(int(wait))
        return response
    return None
