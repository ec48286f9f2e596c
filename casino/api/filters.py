"""django-filter for the API's lists: a list's query parameters are one FilterSet, which the
view applies and drf-spectacular documents (``FilteredListApi``).

Days and moments are read by ``casino.days`` and ids as the path converters read them, so a
query parameter means what the same text means anywhere else. A bad parameter is a 400 that
names it (``{"error": {"code": "invalid", "fields": {name: why}}}``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import django_filters
from django import forms
from django.db.models import Model, QuerySet
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.request import Request

from casino.converters import BIGINT_MAX, IdConverter
from casino.days import DayMeans, parse_day, parse_moment
from casino.errors import ValidationFailed


class _NamedField(forms.Field):
    """A form field that knows its query parameter's name, for messages that say which one is wrong."""

    def __init__(self, *, query_name: str, **kwargs: Any) -> None:
        self.query_name = query_name
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Any:
        # Refusals are casino.days' ValidationFailed, raised through the form as they are, so a
        # bad day reads the same (fields: {name: what was sent}) here as in a path or a body.
        return None if value in self.empty_values else self.parse(str(value))

    def parse(self, text: str) -> Any:
        raise NotImplementedError


class GamingDayFormField(_NamedField):
    def parse(self, text: str) -> dt.date:
        return parse_day(text, field=self.query_name)


class MomentFormField(_NamedField):
    def __init__(self, *, day_means: DayMeans, **kwargs: Any) -> None:
        self.day_means = day_means
        super().__init__(**kwargs)

    def parse(self, text: str) -> dt.datetime:
        return parse_moment(text, field=self.query_name, day_means=self.day_means)


class IdFormField(_NamedField):
    _ID = re.compile(IdConverter.regex)

    def parse(self, text: str) -> int:
        if not self._ID.fullmatch(text) or int(text) > BIGINT_MAX:
            raise ValidationFailed(
                f"{self.query_name} must be an id: a whole number from 1.", fields={self.query_name: text}
            )
        return int(text)


class GamingDayFilter(django_filters.DateFilter):
    """``?day=2026-11-22``: a gaming day, ``YYYY-MM-DD`` only."""

    field_class = GamingDayFormField


class MomentFilter(django_filters.CharFilter):  # a string in the schema: a date or a datetime
    """A datetime, or a gaming day meaning its start or end (``day_means``); give it a ``method``."""

    field_class = MomentFormField


class IdFilter(django_filters.Filter):
    """An id as the path converters take it; the schema's type comes from the model field."""

    field_class = IdFormField


class FilteredListApi:
    """For an ``APIView`` whose GET lists rows: ``filterset_class`` reads its query parameters."""

    filter_backends = [DjangoFilterBackend]
    filterset_class: type[django_filters.FilterSet]

    def get_queryset(self) -> QuerySet[Any]:
        """Only drf-spectacular calls this, to learn the listed model; views call ``filter_list``."""
        model: type[Model] = self.filterset_class._meta.model
        return model._default_manager.none()

    def filter_list[M: Model](self, request: Request, queryset: QuerySet[M]) -> QuerySet[M]:
        filtered: QuerySet[M] = DjangoFilterBackend().filter_queryset(request, queryset, self)
        return filtered
