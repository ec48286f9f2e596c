"""Model instances from plain SQL rows, for the few statements every request or tap runs.

Through the ORM, compiling such a statement costs more client CPU than the database spends
running it. These helpers write the column list once from the model's own fields and turn a
row back into an instance the way the ORM would, field converters (JSON) included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Field, Model


def columns_of(fields: Sequence[Field[Any, Any]], alias: str) -> str:
    """``alias."col", ...`` for ``fields``, quoted."""
    return ", ".join(f"{alias}.{connection.ops.quote_name(str(f.column))}" for f in fields)


def instance_from_row[M: Model](model: type[M], fields: Sequence[Field[Any, Any]], row: Sequence[Any]) -> M:
    """``model`` built from ``row`` (one value per field, in order), as if the ORM had read it."""
    values = [
        field.from_db_value(value, None, connection) if hasattr(field, "from_db_value") else value
        for field, value in zip(fields, row, strict=True)
    ]
    return model.from_db(DEFAULT_DB_ALIAS, [f.attname for f in fields], values)
