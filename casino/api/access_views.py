"""The staff access review (API.md "Evidence (2026-12)")."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.access_review import access_review
from casino.api.schema import errors
from casino.models import Role
from casino.permissions import require_role


class RoleChangeSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    action = serializers.CharField(help_text="staff.created, staff.role_changed or user.credentials_revoked")
    by = serializers.CharField(allow_null=True, help_text="who made it; null: a shell or the system")
    changes = serializers.DictField(source="data", help_text="what changed, as [before, after] per field")


class PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    name = serializers.CharField()


class AccessReviewSerializer(serializers.Serializer):
    user = PersonSerializer()
    role = serializers.CharField()
    created = serializers.DateTimeField()
    last_sign_in = serializers.DateTimeField(allow_null=True)
    active = serializers.BooleanField(help_text="false: the account can no longer sign in")
    role_changes = RoleChangeSerializer(many=True)


class AccessReviewApi(APIView):
    @extend_schema(
        operation_id="staff_access_review",
        responses={200: AccessReviewSerializer(many=True), **errors(401, 403)},
        description=(
            "Every staff account, for the periodic access review (25 CFR 543.16(c)): its role, when it was "
            "made and last signed in, whether it is active, and every change of its role or access with "
            "who made it. Auditors and admins."
        ),
    )
    def get(self, request: Request) -> Response:
        require_role(request.user, Role.AUDITOR, Role.ADMIN)
        return Response(AccessReviewSerializer(access_review(), many=True).data)
