"""Reads a streaming replica may serve: the audit's, detection's, reports' and ratings'.

The floor's work, every write and every read a write depends on, is the primary's. The night's
long reads would take the primary's cores from it; on a replica they cost it nothing
(deploy/README.md, "Past one property"). So code that only reads, and may see data a moment
old, runs inside ``replica_reads()``: there the router (``casino.db_router``) sends the ORM's
reads, and ``read_connection()`` raw SQL, to the ``replica`` database while its replay lag is at
most ``REPLICA_MAX_LAG_SECONDS``, else to the primary. A read inside a transaction on the primary
(a write's) stays there whatever the block says. With no ``replica`` database configured
(``REPLICA_DATABASE_URL`` unset) every read is the primary's and nothing here runs a query.

The lag is measured on the replica with one statement, at most once per
``REPLICA_LAG_CHECK_SECONDS`` in a process; a replica that does not answer, is not streaming or
is not a replica at all counts as unusable until the next measurement. ``after``: a position in
the primary's WAL the reads must see (the audit's own close and ratings, committed just before
it reads); the replica serves them only once it has replayed that far, and the block waits up
to ``REPLICA_MAX_LAG_SECONDS`` for it to get there.

``replica_else_primary`` runs a read-only computation on the replica and, should the replica
fail under it, once more on the primary: a replica going down costs a report time, never an
error.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

from casino import sql
from casino.database_errors import is_database_unavailable

logger = logging.getLogger(__name__)

REPLICA = "replica"
WAIT_STEP_SECONDS = 0.05  # how often a block waiting for the replica to reach ``after`` looks again


@dataclass(frozen=True, slots=True)
class Standing:
    """The replica as last measured: ``lag`` in seconds (None: unusable, ``why``), how far it has
    replayed the primary's WAL (bytes), when it was measured (``time.monotonic``)."""

    lag: float | None
    replayed: int
    at: float
    why: str = ""


@dataclass(slots=True)
class Block:
    """One ``replica_reads`` block: what its reads must see, and whether one went to the replica."""

    after: int
    used: bool = False

    def failed_under(self, error: BaseException) -> bool:
        """Whether ``error`` is the replica gone while this block read from it."""
        return self.used and any(is_database_unavailable(e) for e in _chain(error))


def _chain(error: BaseException | None, depth: int = 8) -> Iterator[BaseException]:
    """The error and the ones it was raised from (psycopg's under Django's), a few deep."""
    while error is not None and depth:
        yield error
        error, depth = error.__cause__ or error.__context__, depth - 1


_block: contextvars.ContextVar[Block | None] = contextvars.ContextVar("replica_reads", default=None)
_last: Standing | None = None
_measuring = threading.Lock()


def configured() -> bool:
    return REPLICA in connections.settings


# --------------------------------------------------------------------------- measuring


def measure() -> Standing:
    """The replica's standing now (one statement on it; a failure to answer is a standing too)."""
    now = time.monotonic()
    replica = connections[REPLICA]
    try:
        with replica.cursor() as cursor:
            cursor.execute(sql.REPLICA_STANDING)
            recovering, receiver, lag, replayed = cursor.fetchone()
    except DatabaseError as error:
        with contextlib.suppress(DatabaseError):
            replica.close()
        return Standing(None, 0, now, f"does not answer ({type(error).__name__})")
    if not recovering:
        return Standing(None, 0, now, "is not a replica (not in recovery)")
    if receiver != "streaming":
        return Standing(None, int(replayed or 0), now, f"is not streaming from the primary ({receiver})")
    if lag is None:
        return Standing(None, int(replayed or 0), now, "has not replayed a transaction since it started")
    return Standing(float(lag), int(replayed), now)


def standing() -> Standing:
    """The last measurement, or a new one once it is ``REPLICA_LAG_CHECK_SECONDS`` old."""
    global _last
    last = _last
    if last is not None and time.monotonic() - last.at < settings.REPLICA_LAG_CHECK_SECONDS:
        return last
    with _measuring:  # one measurement at a time; the threads waiting take it
        last = _last
        if last is None or time.monotonic() - last.at >= settings.REPLICA_LAG_CHECK_SECONDS:
            last = _last = measure()
        return last


def forget_standing() -> None:
    """Measure afresh on the next read (tests that change the replica under a process)."""
    global _last
    _last = None


def _mark_down(why: str) -> None:
    global _last
    _last = Standing(None, 0, time.monotonic(), why)


def primary_position() -> int:
    """Where the primary's WAL ends now (0 without a replica configured: no query then)."""
    if not configured():
        return 0
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql.PRIMARY_WAL_POSITION)
        return int(cursor.fetchone()[0])


# --------------------------------------------------------------------------- routing


def _serves(block: Block, now: Standing) -> bool:
    return now.lag is not None and now.lag <= settings.REPLICA_MAX_LAG_SECONDS and now.replayed >= block.after


def read_alias() -> str:
    """Where a read goes now: the replica inside a ``replica_reads`` block while it keeps up, else
    the primary (always inside a transaction on the primary: a write's reads stay with it)."""
    block = _block.get()
    if block is None or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    if not _serves(block, standing()):
        return DEFAULT_DB_ALIAS
    block.used = True
    return REPLICA


def read_connection() -> BaseDatabaseWrapper:
    """The connection raw SQL that only reads runs on (``read_alias``)."""
    return connections[read_alias()]


def _wait_for_replay(after: int) -> None:
    """Until the replica has replayed to ``after`` or ``REPLICA_MAX_LAG_SECONDS`` have passed."""
    give_up = time.monotonic() + settings.REPLICA_MAX_LAG_SECONDS
    while True:
        now = standing()
        if now.lag is None or now.replayed >= after or time.monotonic() >= give_up:
            return
        time.sleep(WAIT_STEP_SECONDS)
        forget_standing()


@contextlib.contextmanager
def replica_reads(*, after: int = 0) -> Iterator[Block | None]:
    """Reads in this block may be the replica's (see the module's docstring); nested blocks keep
    the outer one's ``after`` if it asks for more. Yields the block (None without a replica)."""
    if not configured():
        yield None
        return
    outer = _block.get()
    block = Block(after=max(after, outer.after if outer else 0))
    if block.after and not connections[DEFAULT_DB_ALIAS].in_atomic_block:
        _wait_for_replay(block.after)
    token = _block.set(block)
    try:
        yield block
    finally:
        _block.reset(token)


def replica_failed(error: BaseException) -> bool:
    """Whether ``error`` is the replica going away under the current block's reads: code that turns
    errors into results (the audit's sections) lets these through to ``replica_else_primary``."""
    block = _block.get()
    return block is not None and block.failed_under(error)


def replica_else_primary[T](read: Callable[[], T], *, after: int = 0) -> T:
    """``read()`` with its reads on the replica; should the replica fail under it, ``read()`` once
    more with every read on the primary. ``read`` must only read: it may run twice."""
    with replica_reads(after=after) as block:
        try:
            return read()
        except Exception as error:
            if block is None or not block.failed_under(error):
                raise
            reason = f"{type(error).__name__}: {error}"
    _mark_down(f"failed under a read ({reason[:200]})")
    with contextlib.suppress(DatabaseError):
        connections[REPLICA].close()
    logger.warning("the replica failed under a read; reading the primary instead: %s", reason)
    return read()


def from_replica[**P, T](view: Callable[P, T]) -> Callable[P, T]:
    """A view (or any function) that only reads, run by ``replica_else_primary``."""

    @functools.wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        return replica_else_primary(lambda: view(*args, **kwargs))

    return wrapper
