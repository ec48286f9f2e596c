"""``request.user`` on a signed-in page or tap: the session and its user read in one plain statement.

Every console and pit request reads its session row, then the session's user. Through the ORM,
building and decoding those statements cost more client CPU than the database spends answering
them, and each statement costs the database about as much again (``bench/run-rounds`` measures it).
Sessions are ``casino.models.Session``: Django's, plus the signed-in user's id in a column, so
the session's row comes with its user's. These classes change only how the two rows are read:
what Django then does with them (the session's expiry and signature, the password hash the session
must match, ``is_active``) is Django's own code.

``SESSION_ENGINE`` names this module; ``AUTHENTICATION_BACKENDS`` names ``UserBackend`` where
Django's ``ModelBackend`` was (a session signed in under the old name is asked to sign in again).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, cast

from django.contrib.auth import SESSION_KEY
from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends import db
from django.core.exceptions import ValidationError
from django.utils import timezone

from casino import sql
from casino.models import Session, User
from casino.rows import instances_from_row, one_row

# The user read with the session this request loaded, until ``UserBackend.get_user`` takes it:
# Django asks the backend for the session's user right after loading the session, by id only.
_READ_WITH_SESSION: ContextVar[User | None] = ContextVar("casekeeper_user_read_with_session", default=None)


def _user_id(value: Any) -> Any:
    """A session's user id as the database holds it, or None for one that names no valid id."""
    try:
        return User._meta.pk.to_python(value)
    except (TypeError, ValueError, ValidationError):
        return None


class SessionStore(db.SessionStore):
    """Django's database sessions, in ``casino.models.Session``: saved with the signed-in user's id,
    and read with that user's row in one plain statement."""

    @classmethod
    def get_model_class(cls) -> type[Session]:
        return Session

    def create_model_instance(self, data: dict[str, Any]) -> Session:
        session = cast(Session, super().create_model_instance(data))
        session.user_id = _user_id(data.get(SESSION_KEY))
        return session

    def _get_session_from_db(self) -> Session | None:
        row = one_row(sql.SESSION_AND_USER, [self.session_key, timezone.now()]) if self.session_key else None
        if row is None:
            _READ_WITH_SESSION.set(None)
            self._session_key = None  # as Django's: an unknown or expired key starts afresh
            return None
        session, user = instances_from_row(row, (Session, sql.SESSION_FIELDS), (User, sql.USER_FIELDS))
        _READ_WITH_SESSION.set(user)
        return session


class UserBackend(ModelBackend):
    """Django's ``ModelBackend`` (passwords, permissions); the session's user comes with the session
    (``SessionStore``), or is read in plain SQL when it did not."""

    def get_user(self, user_id: Any) -> User | None:
        pk = _user_id(user_id)
        if pk is None:  # a session naming no valid id names no one
            return None
        user = _READ_WITH_SESSION.get()
        _READ_WITH_SESSION.set(None)  # taken once: no later request of this thread can find it
        if user is None or user.pk != pk:
            row = one_row(sql.USER, [pk])
            user = None if row is None else instances_from_row(row, (User, sql.USER_FIELDS))[0]
        return user if user is not None and self.user_can_authenticate(user) else None
