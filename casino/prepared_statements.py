"""Keep a connection's prepared statements over a rollback, as PostgreSQL itself does.

psycopg prepares a statement once a connection has run it ``prepare_threshold`` times (the
settings' ``DB_PREPARE_THRESHOLD``): the floor's hot statements are then parsed and planned once
per connection instead of on every tap. But after any rollback, a whole transaction's or a
savepoint's, psycopg forgets every statement it prepared and sends ``DEALLOCATE ALL``. A refused
tap rolls back, and so does a player's first bet at a table (the ledger opens the layout and the
action runs again). After each, every hot statement is parsed and planned again for its next
runs. In process, one refused tap in 31 raised PostgreSQL's CPU per request from 0.86-0.95 ms to
1.06-1.33 ms (bench/README.md, "This morning's machine; prepared statements kept over a rollback").

PostgreSQL keeps a session's prepared statements over ROLLBACK and ROLLBACK TO SAVEPOINT: they
are not transactional, even when prepared inside the transaction that rolls back. psycopg's
clearing guards against DDL undone by the rollback; the service runs no DDL outside migrations,
and DROP, ALTER, DISCARD ALL, DISCARD PLANS and DEALLOCATE ALL still clear, as psycopg does.

One case needs the old clearing: another session changes a column a prepared statement returns
(a migration running beside the workers), and PostgreSQL refuses the statement ("cached plan must
not change result type"). psycopg's clearing on the rollback that followed healed the connection.
Here the refusal itself makes the connection forget its statements (``forget_after_stale_plan``),
so the next request prepares them afresh.

This reaches into psycopg's private prepare manager (``Connection._prepared``, as in psycopg 3.3).
If psycopg changes it, ``keep_over_rollbacks`` leaves the connection as psycopg made it, and
``tests/casino/test_prepared_statements.py`` fails.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from django.db import DatabaseError
from psycopg import pq
from psycopg._preparing import Prepare, PrepareManager

logger = logging.getLogger(__name__)

# The SQLSTATEs of a prepared statement the server no longer runs: "cached plan must not change
# result type" (feature_not_supported) and "prepared statement does not exist".
STALE_PLAN = {"0A000", "26000"}
# psycopg's own rule (psycopg._preparing.PrepareManager._should_discard) less ROLLBACK.
_FORGETS_ALL = re.compile(rb"^(?:DROP|ALTER|DISCARD ALL|DISCARD PLANS|DEALLOCATE ALL)\b").match


class KeptOverRollbacks(PrepareManager):
    """psycopg's prepare manager, except that a rollback does not forget the prepared statements."""

    def clear(self) -> bool:
        """psycopg calls this after every rollback; the server still has the statements."""
        return False

    def _should_discard(self, prep: Prepare, results: Sequence[pq.abc.PGresult], *_: Any) -> bool:
        if self._names or prep == Prepare.SHOULD:
            for result in results:
                if result.status == pq.ExecStatus.COMMAND_OK and _FORGETS_ALL(result.command_status or b""):
                    return super().clear()
        return False

    def forget(self) -> None:
        """Prepare every statement afresh, under new names; the server's copies are left until
        the connection closes (a DEALLOCATE would fail in the transaction the refusal aborted)."""
        self._names.clear()
        self._counts.clear()


def forget_after_stale_plan(execute: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
    """Django execute wrapper: a statement refused for a stale plan makes its connection forget
    its prepared statements; the refusal still reaches the caller."""
    try:
        return execute(sql, params, many, context)
    except DatabaseError as error:
        if getattr(error.__cause__, "sqlstate", None) in STALE_PLAN:
            manager = getattr(context["connection"].connection, "_prepared", None)
            if isinstance(manager, KeptOverRollbacks):
                manager.forget()
        raise


def keep_over_rollbacks(*, sender: Any, connection: Any, **kwargs: Any) -> None:
    """``connection_created`` receiver: a new PostgreSQL connection keeps its prepared statements
    over rollbacks. Other databases, and a psycopg whose internals moved, are left alone."""
    if connection.vendor != "postgresql":
        return
    raw = connection.connection
    manager = getattr(raw, "_prepared", None)
    if type(manager) is not PrepareManager:
        if not isinstance(manager, KeptOverRollbacks):
            logger.warning(
                "psycopg's prepare manager has changed; prepared statements are forgotten on rollback"
            )
        return
    kept = KeptOverRollbacks()
    kept.prepare_threshold = manager.prepare_threshold
    kept.prepared_max = manager.prepared_max
    raw._prepared = kept
    if forget_after_stale_plan not in connection.execute_wrappers:  # the wrapper outlives a reconnect
        connection.execute_wrappers.append(forget_after_stale_plan)
