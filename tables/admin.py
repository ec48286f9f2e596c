"""Tables, sessions, seats, fills and rounds in the admin: read-only views, actions through services."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from casino.errors import DomainError
from casino.models import User
from ledger.admin import ReadOnlyAdmin
from ledger.errors import LedgerError
from tables import services
from tables.models import (
    LimitChange,
    RefusedAction,
    Round,
    RoundAction,
    RoundSettlement,
    Seat,
    Table,
    TableSession,
    TrayRequest,
    TrayRequestStatus,
)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("number", "player", "seated_at", "left_at", "seated_by")
    readonly_fields = fields


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    """Tables are created and changed through the services (API, console, pit view)."""

    list_display = ("name", "game", "status", "min_bet", "max_bet", "ante", "dealer", "tray")
    list_filter = ("game", "status")
    search_fields = ("name",)
    list_select_related = ("dealer", "tray")
    inlines = (SeatInline,)


@admin.register(TableSession)
class TableSessionAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "opened_at",
        "closed_at",
        "opening_inventory",
        "closing_inventory",
        "win",
        "closing_variance",
    )
    list_filter = ("table",)
    date_hierarchy = "opened_at"
    list_select_related = ("table",)


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "player", "seated_at", "left_at")
    list_filter = ("table",)
    search_fields = ("player__user__name", "player__user__username")
    list_select_related = ("table", "player__user")


@admin.register(TrayRequest)
class TrayRequestAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "kind", "amount", "status", "requested_by", "requested_at", "decided_by")
    list_filter = ("status", "kind", "table")
    list_select_related = ("table", "requested_by", "decided_by")
    actions = ("approve", "refuse")

    def _decide(self, request: HttpRequest, queryset: QuerySet[TrayRequest], *, approve: bool) -> None:
        done = 0
        actor = cast(User, request.user)
        for tray_request in queryset.filter(status=TrayRequestStatus.PENDING):
            try:
                if approve:
                    services.approve_tray_request(
                        actor=actor,
                        table_id=tray_request.table_id,
                        request_id=tray_request.pk,
                        kind=tray_request.kind,
                    )
                else:
                    services.refuse_tray_request(
                        actor=actor,
                        table_id=tray_request.table_id,
                        request_id=tray_request.pk,
                        kind=tray_request.kind,
                        note="Refused in the admin",
                    )
                done += 1
            except (DomainError, LedgerError) as error:
                self.message_user(request, f"#{tray_request.pk}: {error.message}", messages.ERROR)
        verb = "Approved" if approve else "Refused"
        self.message_user(
            request, f"{verb} {done} request(s).", messages.SUCCESS if done else messages.WARNING
        )

    @admin.action(description="Approve the selected fills/credits (moves the chips)")
    def approve(self, request: HttpRequest, queryset: QuerySet[TrayRequest]) -> None:
        self._decide(request, queryset, approve=True)

    @admin.action(description="Refuse the selected fills/credits")
    def refuse(self, request: HttpRequest, queryset: QuerySet[TrayRequest]) -> None:
        self._decide(request, queryset, approve=False)


@admin.register(LimitChange)
class LimitChangeAdmin(ReadOnlyAdmin):
    list_display = ("table", "at", "changed_by", "old_min_bet", "old_max_bet", "new_min_bet", "new_max_bet")
    list_filter = ("table",)
    list_select_related = ("table", "changed_by")


class RoundActionInline(ReadOnlyInline):
    model = RoundAction
    fields = ("seq", "payload", "actor", "at", "transfer")
    readonly_fields = fields


class RoundSettlementInline(ReadOnlyInline):
    model = RoundSettlement
    fields = ("action", "kind", "from_account", "to_account", "amount", "player", "transfer")
    readonly_fields = fields


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "game", "number", "status", "shoe", "version", "started_at", "ended_at")
    list_filter = ("game", "status", "shoe", "table")
    date_hierarchy = "started_at"
    list_select_related = ("table",)
    exclude = ("seed",)
    inlines = (RoundActionInline, RoundSettlementInline)


@admin.register(RefusedAction)
class RefusedActionAdmin(ReadOnlyAdmin):
    list_display = ("at", "table", "round", "actor", "player", "code")
    list_filter = ("code", "table")
    list_select_related = ("table", "actor")
