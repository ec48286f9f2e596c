"""Model instances from plain SQL rows, for the few statements every request or tap runs.

Through the ORM, compiling such a statement costs more client CPU than the database spends
running it. These helpers write the column list once from the model's own fields, turn a
row back into an instance the way the ORM would, field converters (JSON) included, and give
the values a write sends the way ``Model.save`` would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Field, JSONField, Model

from ledger.kept_cursor import kept_cursor


def columns_of(fields: Sequence[Field[Any, Any]], alias: str | None = None) -> str:
    """``alias."col", ...`` for ``fields``, quoted (without ``alias``: an INSERT's column list)."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(f"{prefix}{connection.ops.quote_name(str(f.column))}" for f in fields)


def one_row(sql: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
    """The first row ``sql`` returns with ``params``, or None."""
    cursor = kept_cursor()
    cursor.execute(sql, params)
    return cursor.fetchone()


def instance_from_row[M: Model](model: type[M], fields: Sequence[Field[Any, Any]], row: Sequence[Any]) -> M:
    """``model`` built from ``row`` (one value per field, in order), as if the ORM had read it."""
    values = [
        field.from_db_value(value, None, connection) if hasattr(field, "from_db_value") else value
        for field, value in zip(fields, row, strict=True)
    ]
    return model.from_db(DEFAULT_DB_ALIAS, [f.attname for f in fields], values)


type Part = tuple[type[Model], Sequence[Field[Any, Any]]]


def instances_from_row(row: Sequence[Any], *parts: Part) -> list[Any]:
    """One instance per ``(model, fields)`` part of a joined row, the parts' columns side by side
    in that order (``instance_from_row`` for each); a part whose columns are all NULL (an outer
    join that matched nothing) is None."""
    instances: list[Any] = []
    start = 0
    for model, fields in parts:
        values = row[start : start + len(fields)]
        start += len(fields)
        empty = all(value is None for value in values)
        instances.append(None if empty else instance_from_row(model, fields, values))
    return instances


def db_values(fields: Sequence[Field[Any, Any]], instance: Model, *, adding: bool) -> list[Any]:
    """What the ORM would send for ``instance``'s ``fields`` in an INSERT (``adding``) or an
    UPDATE: defaults and ``auto_now_add`` applied, JSON adapted, as ``Model.save`` does."""
    return [field.get_db_prep_save(field.pre_save(instance, adding), connection) for field in fields]


def plain_values(fields: Sequence[Field[Any, Any]], values: Mapping[str, Any]) -> list[Any]:
    """What ``db_values`` gives for an instance whose ``fields`` hold ``values`` (by ``attname``; a
    field left out: its default), without building the instance: a tap's write sends its action
    and settlements so, where the instances and their per-field conversions cost more than the
    statement. Only JSON is adapted; every other value goes as it is, so each must already be
    what its field stores (an id for a foreign key, an aware datetime, an int) and a field set on
    save (``auto_now_add``) must be given."""
    return [
        _plain(field, values[field.attname]) if field.attname in values else field.get_default()
        for field in fields
    ]


def _plain(field: Field[Any, Any], value: Any) -> Any:
    return field.get_db_prep_save(value, connection) if isinstance(field, JSONField) else value


def cast_placeholders(fields: Sequence[Field[Any, Any]]) -> str:
    """``CAST(%s AS type), ...`` for ``fields``: typed, so rows written from a ``VALUES`` list
    (where a NULL or a quoted literal has no type of its own) reach their columns as the ORM's would."""
    return ", ".join(f"CAST(%s AS {field.db_type(connection)})" for field in fields)
