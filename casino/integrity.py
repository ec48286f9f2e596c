"""Unique-constraint races as domain errors: the loser of a race gets the answer the check gives.

A service checks first ("is this player seated anywhere?") and then inserts; two requests can
both pass the check, and the database's unique constraint stops the second. Without this the
loser is an ``IntegrityError`` and a 500. Only constraints a service does not already
serialise under a lock need it (a seat number at one table is, under the table's lock; one
player at two tables is not).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from django.db import IntegrityError, transaction

from casino.errors import DomainError


def violated_constraint(error: IntegrityError) -> str | None:
    """The name of the constraint PostgreSQL reported (psycopg's diagnostics), if any."""
    diag = getattr(error.__cause__, "diag", None)
    return getattr(diag, "constraint_name", None)


@contextmanager
def unique_or_conflict(errors: Mapping[str, Callable[[], DomainError]]) -> Iterator[None]:
    """Run the block in a savepoint; a violation of a named constraint raises its domain error.

    ``errors`` maps constraint names to factories of the error to raise (so a message is built
    only when needed). Other integrity errors propagate unchanged. The savepoint keeps the
    caller's transaction usable, although the domain error normally ends it.
    """
    try:
        with transaction.atomic():
            yield
    except IntegrityError as error:
        make = errors.get(violated_constraint(error) or "")
        if make is None:
            raise
        raise make() from error
