"""The reports' replica, real: a primary and a streaming replica of the test's own.

``tests/replica_support.py`` starts them (deploy/scripts/make-primary and make-replica) and puts
Django on them as ``REPLICA_DATABASE_URL`` would. The tests pause the replica's replay
(``pg_wal_replay_pause``: WAL still arrives, so it falls behind) and stop it, and check where a
report's reads went by what the answer says: a replica one buy-in behind shows the books
without it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connections, router, transaction
from django.test.utils import CaptureQueriesContext

from bench.postgres_pair import PostgresPair
from casino import replica
from casino.models import Role, User
from casino.services import buy_in
from ledger.gaming_day import gaming_day_for
from ledger.models import Account
from ledger.selectors import get_trial_balance
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.services import request_audit, run_audit
from tables.simulation.night import NightConfig, simulate_night
from tests import factories
from tests.replica_support import django_on, private_pair

pytestmark = [
    pytest.mark.outage,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True, databases=["default", "replica"]),
]


def wait_for(predicate: Callable[[], Any], *, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def pair(django_db_setup: None) -> Iterator[PostgresPair]:
    with private_pair() as started:
        yield started


@pytest.fixture
def on_pair(pair: PostgresPair, transactional_db: None, settings: Any) -> Iterator[PostgresPair]:
    """Django on the pair; the replica measured before every read (the tests change it under us)."""
    settings.REPLICA_LAG_CHECK_SECONDS = 0.0
    settings.REPLICA_MAX_LAG_SECONDS = 60.0
    with django_on(pair):
        yield pair


def books(client: Any) -> dict[str, int]:
    """The trial balance report (``GET /api/v1/ledger/trial-balance``): each account's balance."""
    response = client.get("/api/v1/ledger/trial-balance")
    assert response.status_code == 200, response.content
    return {row["account"]: row["balance"] for row in response.json()["accounts"]}


def books_on_the_primary() -> dict[str, int]:
    return {row.account: row.balance for row in get_trial_balance().rows}


def on_the_floor() -> tuple[User, Any]:
    """An auditor and a cashier's buy-in of $100 for a player."""
    cashier = factories.staff(Role.CASHIER)
    player = factories.PlayerFactory(actor=cashier)
    buy_in(actor=cashier, player=player, amount=10_000)
    return factories.staff(Role.AUDITOR), player


def test_a_report_reads_the_replica_until_it_lags_then_the_primary(
    on_pair: PostgresPair, login: Any, settings: Any
) -> None:
    auditor, player = on_the_floor()
    client = login(auditor)
    on_pair.wait_for_replay()
    before = books(client)
    assert before == books_on_the_primary()

    on_pair.pause_replay()
    try:
        buy_in(actor=factories.staff(Role.CASHIER), player=player, amount=5_000)
        after = books_on_the_primary()
        assert after[player.wallet.code] == before[player.wallet.code] + 5_000
        # A replica a few seconds behind is within the limit: the report is its, without the buy-in.
        assert books(client) == before

        settings.REPLICA_MAX_LAG_SECONDS = 0.5
        wait_for(lambda: (replica.measure().lag or 0.0) > 0.5, what="the paused replica to lag 0.5 s")
        assert books(client) == after, "past the limit, the primary answers"
    finally:
        on_pair.resume_replay()

    on_pair.wait_for_replay()
    settings.REPLICA_MAX_LAG_SECONDS = 5.0
    with CaptureQueriesContext(connections[replica.REPLICA]) as on_replica:
        assert books(client) == after
    assert any("ledger_account" in query["sql"] for query in on_replica.captured_queries), (
        "caught up, the replica answers again"
    )


def test_reads_in_a_write_stay_on_the_primary_and_writes_never_go_to_the_replica(
    on_pair: PostgresPair,
) -> None:
    cashier = factories.staff(Role.CASHIER, name="Before")
    on_pair.wait_for_replay()
    with replica.replica_reads():
        assert Account.objects.all().db == replica.REPLICA
        assert replica.read_connection() is connections[replica.REPLICA]
        with transaction.atomic():
            assert Account.objects.all().db == "default", "a read inside a write's transaction"
            assert replica.read_connection() is connections["default"]
        seen = User.objects.get(pk=cashier.pk)
        assert seen._state.db == replica.REPLICA
        assert router.db_for_write(User, instance=seen) == "default"
        seen.name = "After"
        seen.save(update_fields=["name"])  # the replica is read-only: this only works on the primary
    assert User.objects.get(pk=cashier.pk).name == "After"


def test_reads_wait_for_the_replica_to_replay_what_they_must_see(
    on_pair: PostgresPair, settings: Any
) -> None:
    on_pair.wait_for_replay()
    with replica.replica_reads(after=replica.primary_position()):
        assert Account.objects.all().db == replica.REPLICA
    settings.REPLICA_MAX_LAG_SECONDS = 0.2  # how long a block waits for the replica to get there
    beyond = replica.primary_position() + 10**12  # WAL the primary has not even written
    with replica.replica_reads(after=beyond):
        assert Account.objects.all().db == "default"
        assert replica.read_connection() is connections["default"]


def test_a_replica_that_is_down_is_not_read(on_pair: PostgresPair, login: Any, settings: Any) -> None:
    auditor, _ = on_the_floor()
    client = login(auditor)
    on_pair.wait_for_replay()
    expected = books_on_the_primary()

    # Down before the read: the measurement says so, and the report is the primary's.
    on_pair.stop_replica()
    try:
        assert "does not answer" in replica.measure().why
        assert books(client) == expected
    finally:
        on_pair.start_replica()

    # Down under a read the replica was given (its last measurement said it was well): that read
    # is made again on the primary, and the replica counts as down until measured again.
    settings.REPLICA_LAG_CHECK_SECONDS = 3600.0
    replica.forget_standing()
    with CaptureQueriesContext(connections[replica.REPLICA]) as on_replica:
        assert books(client) == expected
    assert on_replica.captured_queries, "the replica answered before it went down"
    on_pair.stop_replica()
    try:
        assert replica.standing().lag is not None, "still measured as well"
        assert books(client) == expected
        assert replica.standing().lag is None
        assert "failed under a read" in replica.standing().why
    finally:
        on_pair.start_replica()


def _audited_night() -> tuple[AuditReport, int]:
    """A small night simulated on the pair's primary, its early close requested (the task goes to
    the test's own queue, which nothing consumes: the audit runs here)."""
    summary = simulate_night(NightConfig(tables=2, players=6, rounds=1, seed=5, games=("faro",)))
    assert summary.rounds > 0
    report = request_audit(day=gaming_day_for(), actor=factories.staff(Role.AUDITOR), force=True)
    return report, summary.rounds


def _assert_complete(report: AuditReport, rounds: int) -> None:
    report.refresh_from_db()
    assert report.status == AuditStatus.DONE, report.error
    assert report.data["summary"]["rounds"] == rounds
    assert report.data["summary"]["checks_failed"] == 0, report.data["checks"]
    assert not [f for f in report.data["findings"] if f["kind"] == "audit_section_failed"]


def _audit_statements(queries: list[dict[str, str]]) -> list[str]:
    return [q["sql"] for q in queries if "tables_round" in q["sql"] or "ledger_" in q["sql"]]


def test_the_audit_reads_the_replica_once_it_has_replayed_the_close(
    on_pair: PostgresPair, task_queue: str
) -> None:
    report, rounds = _audited_night()
    with CaptureQueriesContext(connections[replica.REPLICA]) as on_replica:
        run_audit(report_id=report.pk)
    _assert_complete(report, rounds)
    assert _audit_statements(on_replica.captured_queries), "the audit's reads ran on the replica"


def test_an_audit_never_reads_a_replica_that_has_not_replayed_its_close(
    on_pair: PostgresPair, task_queue: str, settings: Any
) -> None:
    report, rounds = _audited_night()
    settings.REPLICA_MAX_LAG_SECONDS = 1.0
    on_pair.pause_replay()  # before the close: the replica never sees it while the audit runs
    try:
        with CaptureQueriesContext(connections[replica.REPLICA]) as on_replica:
            run_audit(report_id=report.pk)
    finally:
        on_pair.resume_replay()
    _assert_complete(report, rounds)
    assert not _audit_statements(on_replica.captured_queries)
