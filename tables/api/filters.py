"""The query parameters of the floor's lists, one FilterSet per list (see ``casino.api.filters``)."""

from __future__ import annotations

import datetime as dt

import django_filters
from django.db.models import Q, QuerySet

from casino.api.filters import GamingDayFilter, IdFilter, MomentFilter
from tables.detection.kinds import ALERT_KINDS
from tables.detection.models import Alert, AlertStatus
from tables.models import Seat


class AlertFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=AlertStatus.choices, help_text="open or resolved")
    kind = django_filters.ChoiceFilter(
        choices=[(kind, kind) for kind in ALERT_KINDS], help_text="one alert kind"
    )
    day = GamingDayFilter(
        field_name="gaming_day", query_name="day", help_text="the gaming day the alert is about"
    )
    table = IdFilter(field_name="table_id", query_name="table", help_text="alerts about one table")

    class Meta:
        model = Alert
        fields: list[str] = []


class SittingFilter(django_filters.FilterSet):
    """Sittings that overlap [from, to): a bare day is the start of that gaming day."""

    to = MomentFilter(
        query_name="to",
        day_means="start",
        method="before",
        label="to",
        help_text="ISO date (that gaming day's start) or datetime; exclusive",
    )

    class Meta:
        model = Seat
        fields: list[str] = []

    def before(self, sittings: QuerySet[Seat], _name: str, end: dt.datetime) -> QuerySet[Seat]:
        return sittings.filter(seated_at__lt=end)

    def since(self, sittings: QuerySet[Seat], _name: str, start: dt.datetime) -> QuerySet[Seat]:
        return sittings.filter(Q(left_at__isnull=True) | Q(left_at__gte=start))


# ``from`` is a Python keyword, so it cannot be declared in the class body above.
SittingFilter.base_filters = {
    "from": MomentFilter(
        query_name="from",
        day_means="start",
        method="since",
        label="from",
        help_text="ISO date (the gaming day's start) or datetime",
    ),
    **SittingFilter.base_filters,
}
