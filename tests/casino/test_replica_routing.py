"""Without a replica configured (the default) nothing reads anywhere but the primary, and no
measurement runs; the router never sends a write or a migration to the replica. The replica
itself is tested for real in tests/deploy/test_replica.py (a stage of its own)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections, router

from casino import replica
from casino.db_router import ReplicaRouter
from casino.models import Role, User
from tests import factories


def test_no_replica_is_configured_by_default() -> None:
    assert not replica.configured()
    assert replica.REPLICA not in connections.settings


@pytest.mark.django_db
def test_without_a_replica_every_read_is_the_primarys_and_nothing_is_measured(
    django_assert_num_queries: Any,
) -> None:
    with django_assert_num_queries(0):
        assert replica.primary_position() == 0
        with replica.replica_reads(after=10**12) as block:
            assert block is None
            assert replica.read_alias() == "default"
            assert User.objects.all().db == "default"
            assert replica.read_connection() is connections["default"]


@pytest.mark.usefixtures("system_accounts")  # a transactional test before may have flushed them
def test_a_view_that_reads_the_replica_answers_from_the_primary_without_one(login: Any) -> None:
    auditor = factories.staff(Role.AUDITOR)
    response = login(auditor).get("/api/v1/ledger/trial-balance")
    assert response.status_code == 200
    assert {row["account"] for row in response.json()["accounts"]} >= {"cage", "rake"}


def test_writes_and_migrations_are_the_primarys_even_for_a_row_read_from_the_replica() -> None:
    seen = User(username="read-from-the-replica")
    seen._state.db = replica.REPLICA
    router_ = ReplicaRouter()
    assert router_.db_for_write(User, instance=seen) == "default"
    assert router.db_for_write(User, instance=seen) == "default"
    assert router_.allow_migrate("default", "casino")
    assert not router_.allow_migrate(replica.REPLICA, "casino")
    assert router_.allow_relation(seen, User(username="from-the-primary"))
