"""The admin's read-only base for the ledger and everything above it.

The ledger's own models are registered one layer up, in ``casino/ledger_admin.py``: they show
amounts in dollars through ``casino.money``, which the ledger (the bottom layer) may not import.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only: no add, change or delete, whoever asks (the triggers would refuse anyway)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    """Rows shown under their parent, view only, as ``ReadOnlyAdmin``."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
