"""Bearer tokens (``Authorization: Token <key>``) that expire and can be revoked."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from casino import sql
from casino.models import ApiToken, User
from casino.rows import instances_from_row, one_row
from casino.services import record_token_use
from casino.tokens import token_digest


def _token_with_user(digest: str) -> ApiToken | None:
    """The stored token with this digest, its user attached (None: no such token).

    Read afresh on every request, so a revocation or a disabled account counts at once.
    """
    row = one_row(sql.TOKEN_WITH_USER, [digest])
    if row is None:
        return None
    token, token.user = instances_from_row(row, (ApiToken, sql.TOKEN_FIELDS), (User, sql.USER_FIELDS))
    return token


class ExpiringTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send 'Authorization: Token <token>'.")
        try:
            key = header[1].decode()
        except UnicodeError as error:
            raise exceptions.AuthenticationFailed("The token is not valid.") from error
        token = _token_with_user(token_digest(key))
        now = timezone.now()
        if token is None or token.revoked_at is not None or token.expires_at <= now:
            raise exceptions.AuthenticationFailed("The token is unknown, expired or revoked.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.")
        record_token_use(token=token, now=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
