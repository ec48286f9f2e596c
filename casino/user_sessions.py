"""Ending a user's sessions, for ``User.save()`` when their credentials change.

Django's session store has no "sessions of a user"; this finds them. It imports no model of
ours, so the ``User`` model can call it.
"""

from __future__ import annotations

from datetime import datetime
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY


def delete_user_sessions(*, user_id: int, now: datetime) -> int:
    """Delete the user's sessions from a database-backed session engine (ours: the default db).

    Sessions are not indexed by user, so the live ones are decoded and matched on
    ``_auth_user_id``; a floor has hundreds, not millions. An engine with nothing to list
    (cache, signed cookies) still refuses a changed password (Django's session hash) and a
    deactivated user (``ModelBackend.get_user``), but not a role change: keep a db engine.
    """
    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    if not hasattr(store_class, "get_model_class"):
        return 0
    store = store_class()
    rows = (
        store_class.get_model_class().objects.filter(expire_date__gt=now).only("session_key", "session_data")
    )
    keys = [
        row.session_key
        for row in rows.iterator()
        if store.decode(row.session_data).get(SESSION_KEY) == str(user_id)
    ]
    for key in keys:
        store.delete(key)
    return len(keys)
