"""Row locks in one fixed order (accounts by pk, then holds by pk), so money paths never deadlock."""

from __future__ import annotations

from collections.abc import Iterable

from ledger.models import Account, Hold


def lock_accounts(*, ids: Iterable[int]) -> dict[int, Account]:
    rows = Account.objects.filter(pk__in=set(ids)).order_by("pk").select_for_update(of=("self",))
    return {account.pk: account for account in rows}


def lock_holds(*, ids: Iterable[int]) -> dict[int, Hold]:
    rows = Hold.objects.filter(pk__in=set(ids)).order_by("pk").select_for_update(of=("self",))
    return {hold.pk: hold for hold in rows}
