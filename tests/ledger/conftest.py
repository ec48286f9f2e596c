"""Ledger fixtures: accounts opened and funded through the services, never written directly."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator

import pytest
from pytest_django import DjangoDbBlocker

from ledger.models import Account, AccountKind, AccountPurpose
from ledger.services import Leg, ensure_system_accounts, open_account, post_transfer
from tests.factories import wallet_account

_codes = itertools.count(1)
# Codes are unique per run too: two sessions sharing the test database would otherwise wait on
# each other's uncommitted rows under the unique index on ``code``.
_RUN = uuid.uuid4().hex[:6]


@pytest.fixture(scope="session", autouse=True)
def _restore_system_accounts(django_db_blocker: DjangoDbBlocker) -> Iterator[None]:
    """Transactional tests end with a flush that empties ``ledger_account``, taking the cage and
    rake rows of migration 0003 with it; with ``--reuse-db`` the next session (of any app) would
    then start without them. Put them back once every test of the session has run."""
    yield
    with django_db_blocker.unblock():
        ensure_system_accounts()


@pytest.fixture
def cage() -> Account:
    """The cage, which issues chips and so may go negative (re-created if a flush removed it)."""
    ensure_system_accounts()
    return Account.objects.get(code="cage")


@pytest.fixture
def make_wallet(cage: Account) -> Callable[..., Account]:
    """Open a player wallet with a unique code, optionally funded.

    The chips come from a bank of the test's own (which, like the cage, may go negative), so
    funding never waits on the shared cage row and leaves the cage's balance to the test.
    """
    bank = open_account(
        code=f"bank-{_RUN}-{next(_codes)}",
        kind=AccountKind.ASSET,
        purpose=AccountPurpose.HOUSE_BANK,
        must_not_go_negative=False,
    )

    def _make(funded: int = 0, *, prefix: str = "wallet") -> Account:
        account = wallet_account(f"{prefix}-{_RUN}-{next(_codes)}")
        if funded:
            post_transfer(
                key=f"fund:{account.code}",
                kind="buy_in",
                legs=[Leg(debit=bank.code, credit=account.code, amount=funded)],
            )
            account.refresh_from_db()
        return account

    return _make
