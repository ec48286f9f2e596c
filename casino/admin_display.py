"""Amounts in the admin as dollars, through ``casino.money``: chips are int cents in the database,
and the admin showed them as such ("5000" for $50.00).

A model admin (or inline) names its cents fields in ``money_fields``; each is shown as dollars
in the change list (sortable by the field) and on the detail page, under the field's own name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from casino.money import format_dollars

SUFFIX = "_in_dollars"


def dollars_of(model: type[Model], field: str) -> Callable[[Any], str]:
    """The admin column for a cents field: '$1,234.50', labelled with the field's verbose name."""

    label = getattr(model._meta.get_field(field), "verbose_name", field)

    @admin.display(description=str(label), ordering=field)
    def show(obj: Any) -> str:
        return format_dollars(getattr(obj, field))

    return show


class DollarsMixin:
    """Shows ``money_fields`` (int cents) as dollars, in lists and on detail pages.

    Each name in ``list_display``, ``fields`` and ``readonly_fields`` that is a money field is
    swapped for a ``<name>_in_dollars`` display made per model when the admin is registered.
    """

    money_fields: Sequence[str] = ()
    model: type[Model]

    class Media:
        css = {"all": ("casino/admin.css",)}  # amounts do not wrap after their sign

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.money_fields:
            setattr(self, field + SUFFIX, dollars_of(self.model, field))

    def _in_dollars(self, names: Sequence[Any]) -> list[Any]:
        swapped = [name + SUFFIX if name in self.money_fields else name for name in names]
        return list(dict.fromkeys(swapped))  # once each, in order

    # Typed Any: the stubs' ModelAdmin and InlineModelAdmin disagree on these signatures' generics.
    def get_list_display(self, request: HttpRequest) -> Any:
        return self._in_dollars(super().get_list_display(request))  # type: ignore[misc]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self._in_dollars(super().get_fields(request, obj))  # type: ignore[misc]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        names = self._in_dollars(super().get_readonly_fields(request, obj))  # type: ignore[misc]
        return list(dict.fromkeys([*names, *(field + SUFFIX for field in self.money_fields)]))
