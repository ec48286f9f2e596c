"""Who dealt a table and when: the dealer shifts ``tables.services.assign_dealer`` writes, the
same history the pit shows on each table's card (issue 44)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.pagination import NewestFirstCursorPagination
from casino.api.schema import errors
from casino.errors import NotFound
from casino.models import Role
from casino.permissions import require_role
from casino.selectors import staff_name
from tables.models import Table
from tables.selectors import list_dealer_shifts


class DealerShiftOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    dealer = serializers.IntegerField(source="dealer_id", help_text="staff id")
    dealer_name = serializers.SerializerMethodField(help_text="the dealer's name (their username if none)")
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True, help_text="null while the dealer deals the table")
    assigned_by = serializers.IntegerField(source="assigned_by_id", help_text="staff id of the pit boss")

    def get_dealer_name(self, shift: Any) -> str:
        return staff_name(shift.dealer)


class TableDealerShiftListApi(APIView):
    pagination_class = NewestFirstCursorPagination

    @extend_schema(responses={200: DealerShiftOutputSerializer(many=True), **errors(400, 401, 403, 404)})
    def get(self, request: Request, table_id: int) -> Response:
        """Newest first, cursor-paginated: ``{"results": [...], "next": url | null}``; the shift
        still running has ``ended_at`` null. Read by those who read the dealers' performance."""
        require_role(request.user, Role.PIT_BOSS, Role.AUDITOR)
        if not Table.objects.filter(pk=table_id).exists():
            raise NotFound("No such table.")
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(list_dealer_shifts(table_id=table_id), request, view=self)
        return paginator.get_paginated_response(DealerShiftOutputSerializer(page, many=True).data)
