"""People, tokens, the action log and idempotency records in the admin.

Money never moves from here: buy-ins and cash-outs go through the cage services. The action
log and stored responses are read-only; revoking tokens calls the service. The people list
shows whose sign-in is locked out, and an admin or a pit boss unlocks it there.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from casino import ledger_admin  # noqa: F401 (registers the ledger's models, amounts in dollars)
from casino.action_log import record_action
from casino.errors import DomainError
from casino.login_guard import account_failures_column, is_locked_out, locked_out_usernames, unlock
from casino.models import ActionLog, ApiToken, IdempotencyRecord, Player, Role, User
from casino.money import format_dollars
from casino.permissions import role_of
from casino.services import check_username, revoke_token
from ledger.admin import ReadOnlyAdmin


def _checked_username(username: str, *, user_id: int | None) -> str:
    """The service's username rules, as a form error: the admin refuses what the API refuses."""
    try:
        return check_username(username, user_id=user_id)
    except DomainError as error:
        raise forms.ValidationError(error.message) from error


class CasinoUserCreationForm(AdminUserCreationForm):
    def clean_username(self) -> str:
        return _checked_username(self.cleaned_data["username"], user_id=None)


class CasinoUserChangeForm(UserChangeForm):
    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        if "username" not in self.changed_data:
            return username
        return _checked_username(username, user_id=self.instance.pk)


SIGN_IN_UNLOCKERS = frozenset({Role.ADMIN, Role.PIT_BOSS})
"""Who may unlock a locked-out sign-in: a pit boss unlocks a dealer before a shift."""


def may_unlock_sign_in(request: HttpRequest) -> bool:
    return request.user.is_active and role_of(request.user) in SIGN_IN_UNLOCKERS


class SignInLockedFilter(admin.SimpleListFilter):
    title = "sign-in"
    parameter_name = "sign_in"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("locked", "Locked out")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        if self.value() != "locked":
            return queryset
        return queryset.filter(username__in=locked_out_usernames())


@admin.register(User)
class CasinoUserAdmin(UserAdmin):
    """Saving a new password, an inactive flag or a role here revokes the user's tokens and
    sessions (``User.save``); usernames pass the same check as the API's.

    A pit boss sees this list (never a person's page) to unlock sign-ins; an admin sees all.
    """

    form = CasinoUserChangeForm
    add_form = CasinoUserCreationForm
    list_display = ("username", "name", "role", "is_active", "is_staff", "last_login", "sign_in")
    list_filter = (SignInLockedFilter, "role", "is_active", "is_staff")
    search_fields = ("username", "name", "email")
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("Casino", {"fields": ("name", "role")}),
    )
    actions = ("unlock_sign_in",)

    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        """Save, and log a change of the person's role or access with who made it: a system
        exception the auditor reviews (GET /exceptions, GET /staff/access-review)."""
        before = (
            User.objects.filter(pk=obj.pk).values("role", "is_active", "is_superuser").first()
            if change
            else None
        )
        super().save_model(request, obj, form, change)
        after: dict[str, Any] = {
            "role": obj.role,
            "is_active": obj.is_active,
            "is_superuser": obj.is_superuser,
        }
        if before is not None and dict(before) != after:
            was = dict(before)
            moved = {name: [was[name], value] for name, value in after.items() if was[name] != value}
            record_action(actor=request.user, action="staff.role_changed", obj=obj, data=moved)

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).annotate(sign_in_failures=account_failures_column())

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return super().has_view_permission(request, obj) or (obj is None and may_unlock_sign_in(request))

    def has_unlock_permission(self, request: HttpRequest) -> bool:
        return may_unlock_sign_in(request)

    def get_list_display_links(self, request: HttpRequest, list_display: Any) -> Any:
        """No link to a person's page for whoever may not open it (a pit boss)."""
        if super().has_view_permission(request) or self.has_change_permission(request):
            return super().get_list_display_links(request, list_display)
        return None

    @admin.display(description="sign-in", ordering="sign_in_failures")
    def sign_in(self, user: User) -> str:
        failures = getattr(user, "sign_in_failures", 0)
        return f"Locked out ({failures} failures)" if is_locked_out(failures) else ""

    @admin.action(description="Unlock sign-in for the selected people", permissions=["unlock"])
    def unlock_sign_in(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        unlocked = []
        for user in queryset:
            with transaction.atomic():
                if unlock(user.username):
                    record_action(actor=request.user, action="sign_in.unlocked", obj=user)
                    unlocked.append(user.name or user.username)
        if unlocked:
            self.message_user(request, f"Unlocked sign-in for {', '.join(unlocked)}.", messages.SUCCESS)
        else:
            self.message_user(request, "None of the selected people was locked out.", messages.INFO)


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ("id", "name", "username", "wallet", "balance", "created_at")
    search_fields = ("user__name", "user__username")
    list_select_related = ("user", "wallet")

    @admin.display(ordering="user__username")
    def username(self, player: Player) -> str:
        return player.user.username

    @admin.display(description="wallet balance", ordering="wallet__balance")
    def balance(self, player: Player) -> str:
        return format_dollars(player.wallet.balance)


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "created_at", "expires_at", "revoked_at", "last_used_at")
    list_filter = ("revoked_at",)
    search_fields = ("user__username",)
    exclude = ("digest",)
    actions = ("revoke",)

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        for token in queryset:
            revoke_token(token=token)
        self.message_user(request, f"Revoked {queryset.count()} token(s).", messages.SUCCESS)


@admin.register(ActionLog)
class ActionLogAdmin(ReadOnlyAdmin):
    list_display = ("at", "actor", "action", "object_type", "object_id", "request_id")
    list_filter = ("action", "object_type")
    search_fields = ("action", "object_id", "actor__username", "request_id")
    date_hierarchy = "at"
    list_select_related = ("actor",)


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("key", "user", "method", "path", "status_code", "created_at")
    list_filter = ("method", "status_code")
    search_fields = ("key", "path", "user__username")

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).select_related("user")
