"""People, tokens, the action log and stored idempotent responses."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from casino.observability.context import current_request
from casino.usernames import username_skeleton


class Role(models.TextChoices):
    ADMIN = "admin", "Admin"
    PIT_BOSS = "pit_boss", "Pit boss"
    DEALER = "dealer", "Dealer"
    CASHIER = "cashier", "Cashier"
    AUDITOR = "auditor", "Auditor"
    COUNT_TEAM = "count_team", "Count team"
    PLAYER = "player", "Player"


STAFF_ROLES = frozenset({Role.ADMIN, Role.PIT_BOSS, Role.DEALER, Role.CASHIER, Role.AUDITOR, Role.COUNT_TEAM})


class User(AbstractUser):
    """Staff and players sign in the same way; ``role`` decides what they may do."""

    name = models.CharField(max_length=150, blank=True)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    # The username folded so that lookalikes match (casino.usernames); kept by save(), indexed so
    # the service can refuse a new name that looks like an existing one in one lookup.
    username_skeleton = models.CharField(max_length=600, editable=False, default="")

    # A change of any of these ends every token and session the user has (see save()).
    CREDENTIAL_FIELDS = ("password", "is_active", "role", "is_superuser", "is_staff")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=[choice.value for choice in Role]), name="casino_user_role_valid"
            ),
        ]
        indexes = [models.Index(fields=["username_skeleton"], name="casino_user_skeleton")]

    def save(self, **kwargs: Any) -> None:
        """Save, and revoke the user's tokens and sessions if a credential changed.

        This sits in save() rather than in the services, against the house style, because a
        password, an account or a role is changed by code we do not own: the Django admin's
        forms, ``manage.py changepassword``, ``set_password()`` + ``save()`` in a shell. Every
        one of them ends here, so none can forget the revocation; it runs in the same
        transaction as the change (``_revoke_credentials``). A save limited to
        other fields (a login's ``last_login``) costs no extra query. ``QuerySet.update()``
        bypasses save() and so this check: change credentials through a model instance.
        A rehash of the same password on login (a new hasher) also counts as a change, as it
        already does for Django's own session check.
        """
        update_fields: Iterable[str] | None = kwargs.get("update_fields")
        self.username_skeleton = username_skeleton(self.username)
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_skeleton"}
        with transaction.atomic(using=kwargs.get("using")):
            changed = self._changed_credentials(update_fields)
            super().save(**kwargs)
            if changed:
                self._revoke_credentials(changed)

    def _revoke_credentials(self, changed: list[str]) -> None:
        """End every live token and session of this user: their password, account or role changed.

        A model method, not a service, because save() calls it (see there why); it is logged
        like a service's action, in the transaction that writes the change.
        """
        now = timezone.now()
        tokens = ApiToken.objects.filter(user=self, revoked_at__isnull=True, expires_at__gt=now).update(
            revoked_at=now
        )
        sessions, _ = Session.objects.filter(user=self, expire_date__gt=now).delete()
        ActionLog.objects.record(
            actor=None,
            action="user.credentials_revoked",
            obj=self,
            data={"changed": changed, "tokens": tokens, "sessions": sessions},
        )

    def _changed_credentials(self, update_fields: Iterable[str] | None) -> list[str]:
        """Which credential fields this save writes with a new value; locks the row to compare."""
        if self.pk is None:
            return []
        deferred = self.get_deferred_fields()
        watched = [
            field
            for field in self.CREDENTIAL_FIELDS
            if field not in deferred and (update_fields is None or field in update_fields)
        ]
        if not watched:
            return []
        stored = type(self)._default_manager.filter(pk=self.pk).select_for_update().values(*watched).first()
        if stored is None:
            return []
        return [field for field in watched if stored[field] != getattr(self, field)]

    @property
    def effective_role(self) -> str:
        """A superuser is an admin whatever its stored role (``createsuperuser`` sets none)."""
        return Role.ADMIN if self.is_superuser else self.role

    @property
    def is_floor_staff(self) -> bool:
        return self.effective_role in STAFF_ROLES


class Session(AbstractBaseSession):
    """A browser's session (Django's database sessions), with the user it is signed in as in a
    column of its own: a request reads its session and its user in one statement
    (``casino.request_user``), and a user's sessions are found without decoding any."""

    user = models.ForeignKey(User, null=True, blank=True, on_delete=models.CASCADE, related_name="+")


class Player(models.Model):
    """A player and the wallet account the ledger keeps for them."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="player")
    wallet = models.OneToOneField("ledger.Account", on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.user.name or self.user.username

    @property
    def name(self) -> str:
        return self.user.name or self.user.username


class ApiToken(models.Model):
    """A bearer token; only its SHA-256 is stored. Tokens expire and can be revoked."""

    digest = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"token for {self.user_id}"


class ActionLogManager(models.Manager["ActionLog"]):
    def record(self, *, actor: Any, action: str, obj: Any, data: dict[str, Any] | None = None) -> ActionLog:
        """One row for ``action`` on ``obj``, with the request id and client address it came from.

        Services call it through ``casino.action_log.record_action``; ``User.save()``, which
        sits below the services, calls it directly.
        """
        info = current_request.get()
        return self.create(
            actor=actor if getattr(actor, "pk", None) else None,
            action=action,
            object_type=type(obj).__name__.lower(),
            object_id=str(getattr(obj, "pk", obj)),
            data=data or {},
            request_id=info.request_id,
            remote_addr=info.remote_addr,
        )


class ActionLog(models.Model):
    """Who did what, when, from which request: written in the same transaction as the change.

    The action log, written by ``casino.action_log.record_action``; not the end-of-night audit
    (``tables.audit``). Its table keeps the name it was created with (migration 0003).
    """

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT)
    action = models.CharField(max_length=60, db_index=True)
    object_type = models.CharField(max_length=40)
    object_id = models.CharField(max_length=40)
    data = models.JSONField(default=dict, blank=True)
    request_id = models.CharField(max_length=64, blank=True)
    remote_addr = models.GenericIPAddressField(null=True, blank=True)

    objects = ActionLogManager()

    class Meta:
        db_table = "casino_auditlog"
        verbose_name = "action log entry"
        verbose_name_plural = "action log"
        indexes = [models.Index(fields=["object_type", "object_id"], name="casino_audit_object")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.object_type}:{self.object_id}"


class IdempotencyRecord(models.Model):
    """The first response to an ``Idempotency-Key``, replayed to retries with the same body."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=200)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=300)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True)
    response_body = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="casino_idempotency_user_key"),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.method} {self.path})"


class Sandbox(models.Model):
    """The mark that this database's play is made up: the demo's or simulated nights'.

    ``load_demo_data`` and ``simulate_night`` write it when they begin on a database that holds
    no play yet (no ledger transfer, no round), and refuse one that holds play without it: that
    play is real (``tables.simulation.sandbox``). One row at most: a database is a sandbox or not.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    marked_by = models.CharField(max_length=40)  # the command that began filling the database
    marked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="casino_sandbox_one_row")]

    def __str__(self) -> str:
        return f"sandbox since {self.marked_at:%Y-%m-%d %H:%M} ({self.marked_by})"
