"""Bearer tokens (``Authorization: Token <key>``) that expire and can be revoked."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from casino.models import ApiToken
from casino.services import record_token_use
from casino.tokens import token_digest


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
        token = ApiToken.objects.select_related("user").filter(digest=token_digest(key)).first()
        now = timezone.now()
        if token is None or token.revoked_at is not None or token.expires_at <= now:
            raise exceptions.AuthenticationFailed("The token is unknown, expired or revoked.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is disabled.")
        record_token_use(token=token, now=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
