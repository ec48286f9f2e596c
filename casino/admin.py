"""People, tokens, the action log and idempotency records in the admin.

Money never moves from here: buy-ins and cash-outs go through the cage services. The action
log and stored responses are read-only; revoking tokens calls the service.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.db.models import QuerySet
from django.http import HttpRequest

from casino import ledger_admin  # noqa: F401 (registers the ledger's models, amounts in dollars)
from casino.errors import DomainError
from casino.models import ActionLog, ApiToken, IdempotencyRecord, Player, User
from casino.money import format_dollars
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


@admin.register(User)
class CasinoUserAdmin(UserAdmin):
    """Saving a new password, an inactive flag or a role here revokes the user's tokens and
    sessions (``User.save``); usernames pass the same check as the API's."""

    form = CasinoUserChangeForm
    add_form = CasinoUserCreationForm
    list_display = ("username", "name", "role", "is_active", "is_staff", "last_login")
    list_filter = ("role", "is_active", "is_staff")
    search_fields = ("username", "name", "email")
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("Casino", {"fields": ("name", "role")}),
    )


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
