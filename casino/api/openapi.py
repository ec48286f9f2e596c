"""OpenAPI naming and auth for drf-spectacular.

Views nest their ``InputSerializer``/``OutputSerializer`` (HackSoft style), so component
names are qualified by the view (``TableOpenApi.InputSerializer`` → ``TableOpenInput``);
otherwise every view's ``Input`` would collide into one component.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema


class CasekeeperAutoSchema(AutoSchema):
    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        cls = serializer if isinstance(serializer, type) else serializer.__class__
        parts = cls.__qualname__.split(".")
        if len(parts) > 1:
            outer = parts[-2].removesuffix("Api")
            return outer + parts[-1]
        return str(cls.__name__)


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
