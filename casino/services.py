"""Writes for people, tokens and the cage. Each runs in one transaction and logs the action."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from casino.action_log import record_action
from casino.cash.models import CashDirection, CashKind
from casino.cash.services import link_transfer, lock_cash_day, record_cash
from casino.errors import Conflict, ValidationFailed
from casino.models import STAFF_ROLES, ApiToken, IdempotencyRecord, Player, Role, User
from casino.money import format_dollars
from casino.permissions import ADMIN_SITE_ROLES
from casino.tokens import token_digest
from casino.usernames import is_mixed_script_lookalike, username_skeleton
from ledger.errors import InsufficientFunds
from ledger.gaming_day import gaming_day_for
from ledger.models import AccountKind, AccountPurpose, Transfer
from ledger.services import Leg, open_account, post_transfer


def issue_token(*, user: User) -> str:
    """A new random token; only its digest is stored, so a database leak reveals no token."""
    key = secrets.token_urlsafe(32)
    now = timezone.now()
    # Signing in is the token's first use, so its first minute of requests writes nothing.
    ApiToken.objects.create(
        digest=token_digest(key), user=user, expires_at=now + settings.TOKEN_TTL, last_used_at=now
    )
    return key


def revoke_token(*, token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])


# last_used_at is for people (which tokens are live, which are stale), so a minute is precise enough.
TOKEN_USE_RESOLUTION = timedelta(minutes=1)


def record_token_use(*, token: ApiToken, now: datetime) -> None:
    """Stamp ``last_used_at`` at most once a minute per token.

    Most requests find a stamp younger than a minute on the token they already loaded and
    write nothing. The UPDATE repeats the condition, so of several requests racing past the
    check only the first writes.
    """
    stale = now - TOKEN_USE_RESOLUTION
    if token.last_used_at is not None and token.last_used_at > stale:
        return
    ApiToken.objects.filter(Q(last_used_at__isnull=True) | Q(last_used_at__lte=stale), pk=token.pk).update(
        last_used_at=now
    )
    token.last_used_at = now


def purge_expired_tokens() -> int:
    """Delete tokens past their lifetime (revoked or not): they can never sign in again."""
    deleted, _ = ApiToken.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted


def purge_idempotency_records() -> int:
    """Delete stored first responses older than ``IDEMPOTENCY_TTL``: retries are promised that long.

    A retry within the TTL replays the stored response (``casino.idempotency.run_once``); after
    it the key is free again. Without this the table would grow by every money-moving POST.
    """
    cutoff = timezone.now() - settings.IDEMPOTENCY_TTL
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted


def _check_password(password: str, user: User) -> None:
    try:
        password_validation.validate_password(password, user)
    except DjangoValidationError as error:
        raise ValidationFailed(" ".join(error.messages), fields={"password": error.messages}) from error


def check_username(username: str, *, user_id: int | None = None) -> str:
    """The username as Django's user creation would store it, or why it cannot be one.

    Django's rules (NFKC, the model field's validators: ``UnicodeUsernameValidator`` and the
    length), no case variant of a taken name (409, as Django's creation form), no mix of
    scripts that fake each other, and no lookalike of a taken name (``аlice``, Cyrillic ``а``,
    beside ``alice``; ``player.l`` beside ``player.1``), whose owner the refusal names.
    ``user_id`` is the user being renamed, who may look like themselves. The unique
    constraint still settles two creations racing for one name.
    """
    username = User.normalize_username(username)
    field = User._meta.get_field("username")
    try:
        field.clean(username, None)
    except DjangoValidationError as error:
        raise ValidationFailed(" ".join(error.messages), fields={"username": error.messages}) from error
    others = User.objects.exclude(pk=user_id) if user_id is not None else User.objects.all()
    if others.filter(username__iexact=username).exists():
        raise Conflict(
            f"The username {username!r} is taken.", code="username_taken", fields={"username": "taken"}
        )
    skeleton = username_skeleton(username)
    lookalike = others.filter(username_skeleton=skeleton).values_list("username", "name", "role").first()
    if lookalike is not None:
        taken, name, role = lookalike
        whose = f"{name}, {Role(role).label.lower()}" if name else Role(role).label.lower()
        message = (
            f"The username {username!r} looks like the existing username {taken!r} ({whose}); "
            "choose another, so that the two cannot be mistaken for each other."
        )
        raise ValidationFailed(message, fields={"username": [message]})
    if is_mixed_script_lookalike(username):
        message = "The username mixes letters of different scripts that look alike; use one script."
        raise ValidationFailed(message, fields={"username": [message]})
    return username


def _create_user(*, username: str, password: str, name: str, role: str) -> User:
    username = check_username(username)
    user = User(username=username, name=name, role=role, is_staff=role in ADMIN_SITE_ROLES)
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
    record_action(actor=actor, action="staff.created", obj=user, data={"role": role})
    return user


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
    record_action(actor=actor, action="player.created", obj=player)
    return player


CAGE = "Cage"  # where a cage transaction happened, in words (casino.cash)


@transaction.atomic
def buy_in(*, actor: User, player: Player, amount: int, key: str | None = None) -> Transfer:
    """Cash for chips at the cage: the cage issues chips into the player's wallet.

    A cash transaction (``casino.cash.services.record_cash``): refused with 409
    ``identification_required`` when it takes the player's cash in today past the CTR line and no
    identification is on file.
    """
    leg = Leg(debit="cage", credit=player.wallet.code, amount=amount)
    cash = Cash(direction=CashDirection.IN, kind=CashKind.CAGE_BUY_IN)
    return _cage_move(actor, player, leg, kind="buy_in", memo=f"Buy-in by {player.name}", key=key, cash=cash)


@transaction.atomic
def cash_out(*, actor: User, player: Player, amount: int, key: str | None = None) -> Transfer:
    """Chips back to cash; refused beyond what is available (held reserves stay put), and, like a
    buy-in, for want of identification past the CTR line."""
    leg = Leg(debit=player.wallet.code, credit="cage", amount=amount)
    cash = Cash(direction=CashDirection.OUT, kind=CashKind.CAGE_CASH_OUT)
    try:
        return _cage_move(
            actor, player, leg, kind="cash_out", memo=f"Cash-out by {player.name}", key=key, cash=cash
        )
    except InsufficientFunds as error:  # the ledger names the wallet; the cage and the app, the player
        available = int(error.fields.get("available", 0))
        raise InsufficientFunds(
            f"{player.name} has {format_dollars(available)} available; a cash-out of "
            f"{format_dollars(amount)} needs {format_dollars(amount - available)} more. Nothing moved.",
            fields=error.fields,
        ) from error


@dataclass(frozen=True, slots=True)
class Cash:
    """The cash side of a cage move: which way the cash goes, and its kind (``casino.cash``)."""

    direction: str
    kind: str


def _cage_move(
    actor: User, player: Player, leg: Leg, *, kind: str, memo: str, key: str | None, cash: Cash
) -> Transfer:
    """One cage transfer, its cash line and its ``cage.<kind>`` action-log line.

    The player's day-totals row is locked first (before the ledger's accounts, the floor's order),
    so a retry of a key posted before, even a twin racing this one, is seen under the lock: it
    answers the first transfer and adds no second cash line, and is never refused for the line
    its own first run added to the day.
    """
    key = key or f"{kind}:{secrets.token_hex(16)}"
    at = timezone.now()
    lock_cash_day(player_id=player.pk, day=gaming_day_for(at))
    if Transfer.objects.filter(key=key).exists():  # the ledger answers the first transfer, or a 409
        return _post(actor, player, leg, kind=kind, memo=memo, key=key)
    line = record_cash(
        player=player,
        direction=cash.direction,
        kind=cash.kind,
        amount=leg.amount,
        where=CAGE,
        by=actor,
        at=at,
    )
    transfer = _post(actor, player, leg, kind=kind, memo=memo, key=key, at=at)
    link_transfer(cash=line, transfer=transfer)
    record_action(
        actor=actor, action=f"cage.{kind}", obj=transfer, data={"player": player.pk, "amount": leg.amount}
    )
    return transfer


def _post(
    actor: User, player: Player, leg: Leg, *, kind: str, memo: str, key: str, at: datetime | None = None
) -> Transfer:
    return post_transfer(
        key=key, kind=kind, legs=[leg], memo=memo, meta={"player": player.pk, "staff": actor.pk}, at=at
    )
