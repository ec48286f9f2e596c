"""OpenAPI naming, auth and the error responses every operation shares, for drf-spectacular.

Views nest their ``InputSerializer``/``OutputSerializer`` (HackSoft style), so component
names are qualified by the view (``TableOpenApi.InputSerializer`` → ``TableOpenInput``);
otherwise every view's ``Input`` would collide into one component.

Some errors come from machinery around the view, not from the view's own code, so listing
them by hand on each view drifted (schemathesis found 409s and 429s the schema never named).
The schema class adds them wherever that machinery applies: 400 for a body that cannot be
parsed or a bad ``limit``/``cursor``; 401 behind authentication; 409 where an
``Idempotency-Key`` is taken; 413 for a body over the size limit; 429 behind a throttle;
503 everywhere (the database cannot be reached).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework.permissions import AllowAny

from casino.api.schema import IDEMPOTENCY_HEADER, errors

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class CasekeeperAutoSchema(AutoSchema):
    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        cls = serializer if isinstance(serializer, type) else serializer.__class__
        parts = cls.__qualname__.split(".")
        if len(parts) > 1:
            outer = parts[-2].removesuffix("Api")
            return outer + parts[-1]
        return str(cls.__name__)

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for code, response in errors(*self._machinery_errors()).items():
            responses.setdefault(str(code), self._get_response_for_code(response, str(code), None, direction))
        return dict(sorted(responses.items()))

    def _machinery_errors(self) -> list[int]:
        """Statuses the parsers, paginator, authentication, idempotency runner and throttles give."""
        codes = [503]
        has_body = self.method in _BODY_METHODS
        if has_body or (getattr(self.view, "pagination_class", None) is not None and self.method == "GET"):
            codes.append(400)
        if has_body:
            codes.append(413)
        if not any(isinstance(permission, AllowAny) for permission in self.view.get_permissions()):
            codes.append(401)
        if any(
            isinstance(parameter, OpenApiParameter) and parameter.name == IDEMPOTENCY_HEADER.name
            for parameter in self.get_override_parameters()
        ):
            codes.append(409)
        if self.view.get_throttles():
            codes.append(429)
        return codes


class ExpiringTokenScheme(OpenApiAuthenticationExtension):
    target_class = "casino.api.authentication.ExpiringTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>` from POST /api/v1/auth/token; tokens expire (TOKEN_TTL_HOURS).",
        }
