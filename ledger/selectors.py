"""Reads from the ledger. Balances come from stored columns, never from summing history."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q, QuerySet, Sum
from django.db.models.functions import Coalesce

from ledger import sql
from ledger.errors import UnknownAccount
from ledger.kept_cursor import kept_cursor
from ledger.models import Account, Entry


def get_account(*, code: str) -> Account:
    account = Account.objects.filter(code=code).first()
    if account is None:
        raise UnknownAccount(f"No such account: {code}.")
    return account


def get_balance(*, code: str, as_of: dt.datetime | None = None) -> int:
    """The balance now (stored) or at a moment (the last entry's ``balance_after`` by then)."""
    cursor = kept_cursor()
    if as_of is None:
        cursor.execute(sql.BALANCE, [code])
    else:
        cursor.execute(sql.BALANCE_AS_OF, [as_of, code])
    row = cursor.fetchone()
    if row is None:
        raise UnknownAccount(f"No such account: {code}.")
    if as_of is None:
        return int(row[0])
    return int(row[1] or 0)  # no entry by then: the account was still empty


def list_statement(*, code: str) -> QuerySet[Entry]:
    """An account's entries, newest first (callers paginate with a cursor on ``id``)."""
    return Entry.objects.filter(account__code=code).select_related("transfer").order_by("-created_at", "-id")


@dataclass(frozen=True, slots=True)
class TrialBalanceRow:
    account: str
    kind: str
    purpose: str
    debits: int
    credits: int
    balance: int


@dataclass(frozen=True, slots=True)
class TrialBalance:
    rows: list[TrialBalanceRow]
    total_debits: int
    total_credits: int

    @property
    def balanced(self) -> bool:
        return self.total_debits == self.total_credits and sum(r.balance for r in self.rows) == 0


def get_trial_balance(*, as_of: dt.datetime | None = None) -> TrialBalance:
    """Debits and credits per account; in a sound ledger the totals are equal."""
    if as_of is None:
        rows = [
            TrialBalanceRow(a.code, a.kind, a.purpose, a.debits_posted, a.credits_posted, a.balance)
            for a in Account.objects.order_by("code")
        ]
    else:
        sums = (
            Account.objects.order_by("code")
            .annotate(
                d=Coalesce(
                    Sum("entries__amount", filter=Q(entries__amount__lt=0, entries__created_at__lte=as_of)), 0
                ),
                c=Coalesce(
                    Sum("entries__amount", filter=Q(entries__amount__gt=0, entries__created_at__lte=as_of)), 0
                ),
            )
            .values_list("code", "kind", "purpose", "d", "c")
        )
        rows = [TrialBalanceRow(code, kind, purpose, -d, c, c + d) for code, kind, purpose, d, c in sums]
    return TrialBalance(
        rows=rows,
        total_debits=sum(r.debits for r in rows),
        total_credits=sum(r.credits for r in rows),
    )
