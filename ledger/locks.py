"""Row locks in one fixed order (accounts by pk, then holds by pk), so money paths never deadlock."""

from __future__ import annotations

from collections.abc import Iterable

from ledger.models import Account, Hold


def lock_accounts(*, ids: Iterable[int]) -> dict[int, Account]:
    rows = Account.objects.filter(pk__in=set(ids)).order_by("pk").select_for_update(of=("self",))
    return {account.pk: account for account in rows}


def lock_accounts_by_code(*, codes: Iterable[str]) -> dict[str, Account]:
    """The accounts with these codes, locked in pk order as ``lock_accounts`` locks them (PostgreSQL
    locks the rows after sorting them), keyed by code; unknown codes are simply absent."""
    rows = Account.objects.filter(code__in=set(codes)).order_by("pk").select_for_update(of=("self",))
    return {account.code: account for account in rows}


def lock_accounts_of_holds(*, hold_ids: Iterable[int]) -> dict[int, Account]:
    """The accounts these holds reserve on, locked in pk order, found in the same statement."""
    owners = Hold.objects.filter(pk__in=set(hold_ids)).values("account_id")
    rows = Account.objects.filter(pk__in=owners).order_by("pk").select_for_update(of=("self",))
    return {account.pk: account for account in rows}


def lock_holds(*, ids: Iterable[int]) -> dict[int, Hold]:
    rows = Hold.objects.filter(pk__in=set(ids)).order_by("pk").select_for_update(of=("self",))
    return {hold.pk: hold for hold in rows}
