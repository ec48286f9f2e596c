"""The ledger's own reports for auditors (API.md "Gaming days, audits, alerts")."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.fields import MomentField
from casino.api.inputs import valid
from casino.api.schema import errors
from casino.models import Role
from casino.permissions import require_role
from casino.replica import from_replica
from ledger.selectors import get_trial_balance


class AsOfQuery(serializers.Serializer):
    as_of = MomentField(
        day_means="end",
        required=False,
        help_text=(
            "A datetime (without a zone: casino time) or a gaming day such as 2026-11-22, which means "
            "the end of that gaming day. Entries up to and including that moment count. "
            "Absent: now, from the stored balances."
        ),
    )


class TrialBalanceAccountSerializer(serializers.Serializer):
    account = serializers.CharField(help_text="The account's code, e.g. wallet:42 or cage")
    kind = serializers.CharField(help_text="asset, liability, equity, revenue or expense")
    purpose = serializers.CharField(help_text="wallet, tray, layout, pot, cage, house_bank, …")
    debits = serializers.IntegerField(help_text="Cents debited, a positive number")
    credits = serializers.IntegerField(help_text="Cents credited")
    balance = serializers.IntegerField(help_text="credits − debits, cents")


class TrialBalanceApi(APIView):
    class OutputSerializer(serializers.Serializer):
        accounts = TrialBalanceAccountSerializer(many=True)
        total_debits = serializers.IntegerField()
        total_credits = serializers.IntegerField()
        as_of = serializers.DateTimeField(allow_null=True, help_text="The moment used; null for now")

    @extend_schema(
        operation_id="ledger_trial_balance",
        parameters=[AsOfQuery],
        responses={200: OutputSerializer, **errors(400, 401, 403)},
        description="Debits and credits per account, by account code; in a sound ledger the totals "
        "are equal and the balances sum to zero. Auditors only.",
    )
    @from_replica
    def get(self, request: Request) -> Response:
        require_role(request.user, Role.AUDITOR)
        query = valid(AsOfQuery, request.query_params.dict())
        as_of = query.get("as_of")
        trial = get_trial_balance(as_of=as_of)
        return Response(
            self.OutputSerializer(
                {
                    "accounts": trial.rows,
                    "total_debits": trial.total_debits,
                    "total_credits": trial.total_credits,
                    "as_of": as_of,
                }
            ).data
        )
