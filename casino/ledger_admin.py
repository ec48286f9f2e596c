"""The ledger in the admin: read-only, amounts in dollars. Transfers and entries are immutable;
only services post them. Registered here, not in ``ledger/admin.py``, because the ledger may not
import ``casino.money`` (it is the bottom layer)."""

from __future__ import annotations

from django.contrib import admin

from casino.admin_display import DollarsMixin
from ledger.admin import ReadOnlyAdmin, ReadOnlyInline
from ledger.models import Account, ClosedGamingDay, Entry, Hold, Transfer


class EntryInline(DollarsMixin, ReadOnlyInline):
    model = Entry
    fields = ("leg", "account", "amount", "balance_after", "hold", "created_at")
    readonly_fields = fields
    money_fields = ("amount", "balance_after")


@admin.register(Account)
class AccountAdmin(DollarsMixin, ReadOnlyAdmin):
    list_display = ("code", "name", "kind", "purpose", "balance", "held", "must_not_go_negative")
    list_filter = ("kind", "purpose", "must_not_go_negative")
    search_fields = ("code", "name", "holder")
    ordering = ("code",)
    money_fields = ("balance", "held", "debits_posted", "credits_posted")


@admin.register(Transfer)
class TransferAdmin(ReadOnlyAdmin):
    list_display = ("id", "key", "kind", "memo", "created_at", "gaming_day")
    list_filter = ("kind", "gaming_day")
    search_fields = ("key", "memo")
    date_hierarchy = "created_at"
    inlines = (EntryInline,)


@admin.register(Entry)
class EntryAdmin(DollarsMixin, ReadOnlyAdmin):
    list_display = ("id", "transfer", "account", "amount", "balance_after", "created_at")
    list_filter = ("account__purpose",)
    search_fields = ("account__code", "transfer__key")
    list_select_related = ("transfer", "account")
    money_fields = ("amount", "balance_after")


@admin.register(Hold)
class HoldAdmin(DollarsMixin, ReadOnlyAdmin):
    list_display = ("key", "account", "amount", "captured", "status", "created_at", "resolved_at")
    list_filter = ("status",)
    search_fields = ("key", "account__code")
    money_fields = ("amount", "captured")


@admin.register(ClosedGamingDay)
class ClosedGamingDayAdmin(ReadOnlyAdmin):
    list_display = ("day", "closed_at", "closed_by")
