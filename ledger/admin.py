"""The ledger in the admin: read-only. Transfers and entries are immutable; only services post them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from ledger.models import Account, ClosedGamingDay, Entry, Hold, Transfer


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only: no add, change or delete, whoever asks (the triggers would refuse anyway)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("leg", "account", "amount", "balance_after", "hold", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("code", "name", "kind", "purpose", "balance", "held", "must_not_go_negative")
    list_filter = ("kind", "purpose", "must_not_go_negative")
    search_fields = ("code", "name", "holder")
    ordering = ("code",)


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = ("id", "key", "kind", "memo", "created_at", "gaming_day")
    list_filter = ("kind", "gaming_day")
    search_fields = ("key", "memo")
    date_hierarchy = "created_at"
    inlines = (EntryInline,)


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transfer", "account", "amount", "balance_after", "created_at")
    list_filter = ("account__purpose",)
    search_fields = ("account__code", "transfer__key")
    list_select_related = ("transfer", "account")


@admin.register(Hold)
class HoldAdmin(ReadOnlyAdmin):
    list_display = ("key", "account", "amount", "captured", "status", "created_at", "resolved_at")
    list_filter = ("status",)
    search_fields = ("key", "account__code")


@admin.register(ClosedGamingDay)
class ClosedGamingDayAdmin(ReadOnlyAdmin):
    list_display = ("day", "closed_at", "closed_by")
