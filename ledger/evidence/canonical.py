"""The canonical text of a JSON value: exactly what PostgreSQL prints for it as ``jsonb``.

The database hashes a record as it writes it (``jsonb_build_array(...)::text``), so a verifier
must spell every value as ``jsonb`` does: object keys sorted by their UTF-8 length, then
bytewise; ``", "`` between items and ``": "`` after a key; strings escaped as ``escape_json``
escapes them (``\\"``, ``\\\\``, ``\\b \\f \\n \\r \\t``, other control characters as
``\\u00xx``, everything else as is); numbers in plain decimal notation, never an exponent, a
fraction's trailing zeros kept as written.
"""

from __future__ import annotations

import json
from decimal import Decimal
from json.encoder import encode_basestring as _string  # json.dumps(text, ensure_ascii=False)
from typing import Any

ENCODING = "utf-8"


def canonical_json(value: Any) -> str:
    """``value`` (from ``json.loads``, with floats as ``Decimal`` or ``float``) as jsonb prints it."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return str(value)
    if kind is dict:
        keys = sorted(value, key=_key_order)
        return "{" + ", ".join(f"{_string(key)}: {canonical_json(value[key])}" for key in keys) + "}"
    if kind is list or kind is tuple:
        return "[" + ", ".join([canonical_json(item) for item in value]) + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _decimal(Decimal(repr(value)))
    if isinstance(value, Decimal):
        return _decimal(value)
    if isinstance(value, str):
        return _string(str(value))
    raise TypeError(f"no canonical JSON for {type(value).__name__}")


def _key_order(key: str) -> tuple[int, bytes]:
    raw = key.encode(ENCODING)
    return len(raw), raw


def canonical_bytes(value: Any) -> bytes:
    return canonical_json(value).encode(ENCODING)


def _decimal(number: Decimal) -> str:
    if not number.is_finite():
        raise ValueError("JSON has no NaN or infinity")
    text = format(number, "f")
    return "0" + text[2:] if text.startswith("-0") and not number else text


def loads(text: str) -> Any:
    """Parse JSON keeping each fraction as written (``1.50`` stays ``1.50``), as jsonb keeps it."""
    return json.loads(text, parse_float=Decimal)
