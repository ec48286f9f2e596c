"""The database router: reads in a ``casino.replica.replica_reads`` block may go to the replica;
every write, every migration and every other read is the primary's (``default``)."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS

from casino.replica import read_alias


class ReplicaRouter:
    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        return read_alias()

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        # Not the instance's own database: a row read from the replica is saved to the primary.
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # the replica holds the primary's rows: a row from either relates to the other

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return db == DEFAULT_DB_ALIAS  # a replica replays the primary's schema; it cannot be migrated
