"""Writes for people, tokens and the cage. Each runs in one transaction and logs the action."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from casino.audit import record_audit
from casino.errors import Conflict, ValidationFailed
from casino.models import STAFF_ROLES, ApiToken, Player, Role, User
from ledger.models import AccountKind, AccountPurpose, Transfer
from ledger.services import Leg, open_account, post_transfer


def issue_token(*, user: User) -> str:
    """A new random token; only its digest is stored, so a database leak reveals no token."""
    from casino.api.authentication import token_digest

    key = secrets.token_urlsafe(32)
    ApiToken.objects.create(
        digest=token_digest(key), user=user, expires_at=timezone.now() + settings.TOKEN_TTL
    )
    return key


def revoke_token(*, token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])


def _check_password(password: str, user: User) -> None:
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as error:
        raise ValidationFailed(" ".join(error.messages), fields={"password": error.messages}) from error


def _create_user(*, username: str, password: str, name: str, role: str) -> User:
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict(
            f"The username {username!r} is taken.", code="username_taken", fields={"username": "taken"}
        )
    user = User(username=username, name=name, role=role, is_staff=role in {Role.ADMIN, Role.PIT_BOSS})
    _check_password(password, user)
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError as error:
        raise Conflict(f"The username {username!r} is taken.", code="username_taken") from error
    return user


@transaction.atomic
def create_staff(*, actor: User, username: str, password: str, name: str, role: str) -> User:
    if role not in STAFF_ROLES:
        raise ValidationFailed(f"'{role}' is not a staff role.", fields={"role": "not a staff role"})
    user = _create_user(username=username, password=password, name=name, role=role)
    record_audit(actor=actor, action="staff.created", obj=user, data={"role": role})
    return user


def wallet_code(player_id: int) -> str:
    return f"wallet:{player_id}"


@transaction.atomic
def create_player(*, actor: User, username: str, password: str, name: str) -> Player:
    """A player account and its wallet, created together."""
    user = _create_user(username=username, password=password, name=name, role=Role.PLAYER)
    wallet = open_account(
        code=f"wallet:user:{user.pk}",
        kind=AccountKind.LIABILITY,
        purpose=AccountPurpose.WALLET,
        name=f"Wallet of {name or username}",
        holder=f"user:{user.pk}",
    )
    player = Player.objects.create(user=user, wallet=wallet)
    record_audit(actor=actor, action="player.created", obj=player)
    return player


@transaction.atomic
def buy_in(*, actor: User, player: Player, amount: int, key: str | None = None) -> Transfer:
    """Cash for chips at the cage: the cage issues chips into the player's wallet."""
    transfer = post_transfer(
        key=key or f"buy_in:{secrets.token_hex(16)}",
        kind="buy_in",
        legs=[Leg(debit="cage", credit=player.wallet.code, amount=amount)],
        memo=f"Buy-in by {player.name}",
        meta={"player": player.pk, "staff": actor.pk},
    )
    record_audit(
        actor=actor, action="cage.buy_in", obj=transfer, data={"player": player.pk, "amount": amount}
    )
    return transfer


@transaction.atomic
def cash_out(*, actor: User, player: Player, amount: int, key: str | None = None) -> Transfer:
    """Chips back to cash; refused beyond what is available (held reserves stay put)."""
    transfer = post_transfer(
        key=key or f"cash_out:{secrets.token_hex(16)}",
        kind="cash_out",
        legs=[Leg(debit=player.wallet.code, credit="cage", amount=amount)],
        memo=f"Cash-out by {player.name}",
        meta={"player": player.pk, "staff": actor.pk},
    )
    record_audit(
        actor=actor, action="cage.cash_out", obj=transfer, data={"player": player.pk, "amount": amount}
    )
    return transfer
