"""The canonical text is exactly what PostgreSQL prints for the same value as jsonb, which is
what the database hashed: any difference would make every honest record look changed."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.evidence.canonical import canonical_json, loads

pytestmark = pytest.mark.django_db

TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-(10**9), max_value=10**9)
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def _jsonb_text(written: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::jsonb::text", [written])
        return str(cursor.fetchone()[0])


def _written(value: Any) -> str:
    """JSON text as a client writes it, decimals as numbers."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(_written(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_written(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_canonical_text_is_postgresql_jsonb_text(value: Any) -> None:
    written = _written(value)
    assert canonical_json(loads(written)) == _jsonb_text(written)


@pytest.mark.parametrize(
    "text",
    ['{"bb": 1, "a": [1.50, -0, 1e3, 2.5E-7]}', '"tab\\tquote\\"é\\u0001"', '{"é": 1, "z": 2, "ab": null}'],
)
def test_tricky_spellings_match(text: str) -> None:
    assert canonical_json(loads(text)) == _jsonb_text(text)


def test_a_float_is_spelled_as_jsonb_spells_the_text_python_sends() -> None:
    value = {"x": 1e20, "y": 0.1, "z": 1.0, "w": -2.5e-8}
    assert canonical_json(value) == _jsonb_text(json.dumps(value))
