"""Electronic signatures bound to the person: the signer types their own password again.

The check goes through ``authenticate`` like every sign-in, so django-axes counts a wrong
password toward that account's lockout (casino.login_guard), and a locked-out account cannot
sign even with the right one.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate

from casino.errors import Forbidden
from casino.login_guard import LoginLockedOut, lockout_message


class BadSignature(Forbidden):
    code = "bad_signature"


def confirm_signature(request: Any, *, user: Any, password: Any) -> None:
    """Nothing when ``password`` is the signed-in user's own; else 403 ``bad_signature`` (or
    429 ``locked_out`` once the account is locked)."""
    if not isinstance(password, str) or not password:
        raise BadSignature("Type your own password to sign.", fields={"password": "required"})
    signer = authenticate(request, username=user.get_username(), password=password)
    if signer is None or signer.pk != user.pk:
        if getattr(request, "axes_locked_out", False):
            raise LoginLockedOut(lockout_message(request))
        raise BadSignature("That is not your password: the slip is not signed.", fields={"password": "wrong"})
