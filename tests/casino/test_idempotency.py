"""casino/idempotency.py: the one runner behind the API's Idempotency-Key and the console's tokens.

Its behaviour over HTTP is tested in tests/api/test_idempotency*.py and the console's double-tap
tests (tests/console/test_views.py); here the core itself, with a write the outcome must share a
transaction with.
"""

from __future__ import annotations

import pytest

from casino.errors import Conflict
from casino.idempotency import Replayed, fingerprint, run_once
from casino.models import ActionLog, IdempotencyRecord, User
from tests import factories

pytestmark = pytest.mark.django_db


def _run(user: User, *, body: object = "a", path: str = "/x", ok: bool = True) -> object:
    def action() -> dict[str, int]:
        row = ActionLog.objects.create(actor=user, action="test.write", object_type="t", object_id="1")
        return {"row": row.pk}

    return run_once(
        user=user,
        key="k-1",
        method="POST",
        path=path,
        digest=fingerprint(f"POST {path}", body),
        action=action,
        outcome=lambda result: (201, result) if ok else None,
        conflict_message="used with another body",
    )


def test_a_repeat_replays_the_stored_outcome_and_writes_nothing() -> None:
    user = factories.staff("cashier")

    first = _run(user)
    again = _run(user)

    assert again == Replayed(status=201, body=first)
    assert ActionLog.objects.filter(action="test.write").count() == 1


@pytest.mark.parametrize("change", [{"body": "b"}, {"path": "/y"}])
def test_the_same_key_for_another_request_is_a_conflict(change: dict[str, str]) -> None:
    user = factories.staff("cashier")
    _run(user)

    with pytest.raises(Conflict) as refused:
        _run(user, **change)

    assert refused.value.code == "idempotency_conflict"
    assert ActionLog.objects.filter(action="test.write").count() == 1


def test_a_failed_outcome_rolls_back_its_writes_and_frees_the_key() -> None:
    user = factories.staff("cashier")

    _run(user, ok=False)

    assert not IdempotencyRecord.objects.filter(user=user).exists()
    assert not ActionLog.objects.filter(action="test.write").exists()
    assert not isinstance(_run(user), Replayed)  # the retry runs afresh


def test_a_path_longer_than_the_column_is_stored_cut_not_refused_by_the_database() -> None:
    user = factories.staff("cashier")
    long_path = "/" + "p" * 400

    _run(user, path=long_path)

    assert isinstance(_run(user, path=long_path), Replayed)
