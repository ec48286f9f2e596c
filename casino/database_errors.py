"""Which database errors mean the server is gone, rather than a working server saying no.

``casino.error_pages`` answers them 503 instead of 500; ``casino.replica`` reads the primary
instead when the replica is the one gone.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

# SQLSTATEs of a server that is going away or not yet taking connections (class 08 aside):
# admin_shutdown, crash_shutdown, cannot_connect_now.
_SHUTDOWN_SQLSTATES = frozenset({"57P01", "57P02", "57P03"})


def is_database_unavailable(exc: BaseException | None) -> bool:
    """True for a lost or refused database connection; False for errors of a working one.

    A refused or dropped connection has no SQLSTATE (the server never answered) or one of class
    08; a closed connection is an InterfaceError. Deadlocks, timeouts and constraint errors
    come from a live server and stay what they are.
    """
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith("08") or sqlstate in _SHUTDOWN_SQLSTATES
