"""A request's input, checked by its serializer: the valid data, or DRF's 400 (``exceptions``)."""

from __future__ import annotations

from typing import Any

from rest_framework.serializers import Serializer


def valid(serializer: type[Serializer], data: Any) -> dict[str, Any]:
    """``serializer``'s validated data for ``data``; raises ``ValidationError`` (a 400) otherwise."""
    checked = serializer(data=data)
    checked.is_valid(raise_exception=True)
    return dict(checked.validated_data)
