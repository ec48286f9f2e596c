"""The two reads behind ``request.user`` on a signed-in page or tap, written as plain SQL.

Every console and pit request reads its session row, then the session's user. Through the ORM,
building and decoding those two statements cost more client CPU than the database spends
answering them (``bench/README.md``, 2026-11-29). These classes change only how the two rows are
read: what Django then does with them (the session's expiry and signature, the password hash the
session must match, ``is_active``) is Django's own code.

``SESSION_ENGINE`` names this module; ``AUTHENTICATION_BACKENDS`` names ``UserBackend`` where
Django's ``ModelBackend`` was (a session signed in under the old name is asked to sign in again).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.utils import timezone

from casino.models import User
from casino.rows import columns_of, instance_from_row, one_row

_SESSION_FIELDS = list(Session._meta.concrete_fields)
_SESSION = (
    f"SELECT {columns_of(_SESSION_FIELDS)} FROM {Session._meta.db_table}"
    " WHERE session_key = %s AND expire_date > %s"
)
_USER_FIELDS = list(User._meta.concrete_fields)
_USER = f"SELECT {columns_of(_USER_FIELDS)} FROM {User._meta.db_table} WHERE id = %s"


class SessionStore(db.SessionStore):
    """Django's database sessions; the row a request loads is read in plain SQL."""

    def _get_session_from_db(self) -> Session | None:
        row = one_row(_SESSION, [self.session_key, timezone.now()]) if self.session_key else None
        if row is None:
            self._session_key = None  # as Django's: an unknown or expired key starts afresh
            return None
        return instance_from_row(Session, _SESSION_FIELDS, row)


class UserBackend(ModelBackend):
    """Django's ``ModelBackend`` (passwords, permissions); the session's user is read in plain SQL."""

    def get_user(self, user_id: Any) -> User | None:
        try:
            pk = User._meta.pk.to_python(user_id)
        except (TypeError, ValueError, ValidationError):  # a session naming no valid id names no one
            return None
        row = one_row(_USER, [pk])
        if row is None:
            return None
        user = instance_from_row(User, _USER_FIELDS, row)
        return user if self.user_can_authenticate(user) else None
