"""The per-process round-state cache (tables.state_cache): hit, miss, off, rollback, identity."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import transaction

from tables.models import Round
from tables.state_cache import STATE_CACHE, StateCache

pytestmark = pytest.mark.django_db

START = dt.datetime(2026, 3, 1, 20, 0, tzinfo=dt.UTC)


def a_round(
    pk: int = 7, *, version: int = 3, commitment: str = "c0ffee", started_at: dt.datetime = START
) -> Round:
    """An unsaved round: the cache reads only its id, version, start time and commitment."""
    return Round(pk=pk, version=version, commitment=commitment, started_at=started_at)


@pytest.fixture
def commit(django_capture_on_commit_callbacks: Any) -> Any:
    """Run ``put``'s on-commit store as the request's commit would."""

    def put(cache: StateCache, round_: Round, state: Any) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            cache.put(round_, state)

    return put


def test_a_state_put_is_served_at_its_version(commit: Any) -> None:
    cache, state = StateCache(size=4), object()
    commit(cache, a_round(version=3), state)

    hit = cache.get(a_round(version=3))
    assert hit == (3, state)
    assert hit.state is state
    assert cache.version_of(7) == 3


def test_an_older_state_is_served_to_a_newer_version_for_catching_up(commit: Any) -> None:
    cache, state = StateCache(size=4), object()
    commit(cache, a_round(version=2), state)

    assert cache.get(a_round(version=5)) == (2, state)


def test_misses(commit: Any) -> None:
    cache = StateCache(size=4)
    assert cache.get(a_round()) is None
    assert cache.version_of(7) == 0
    commit(cache, a_round(version=4), object())
    assert cache.get(a_round(version=3)) is None  # kept at a version the round has not reached
    assert cache.get(a_round(pk=8)) is None


def test_another_round_with_the_same_id_is_never_served(commit: Any) -> None:
    cache = StateCache(size=4)
    commit(cache, a_round(version=3), object())

    assert cache.get(a_round(version=3, commitment="another")) is None
    assert cache.get(a_round(version=3, started_at=START + dt.timedelta(days=1))) is None
    # ... and a new round with that id replaces the old one's state, even at a lower version.
    newcomer = object()
    commit(cache, a_round(version=1, commitment="another"), newcomer)
    assert cache.get(a_round(version=1, commitment="another")) == (1, newcomer)


def test_a_rolled_back_state_is_not_stored(commit: Any, django_capture_on_commit_callbacks: Any) -> None:
    cache = StateCache(size=4)

    def an_action_that_fails_after_its_fold() -> None:
        with transaction.atomic():
            cache.put(a_round(version=3), object())
            raise RuntimeError("the ledger refused the action")

    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        an_action_that_fails_after_its_fold()

    assert cache.get(a_round(version=3)) is None
    assert len(cache) == 0


def test_an_older_state_never_replaces_a_newer_one(commit: Any) -> None:
    cache, newer = StateCache(size=4), object()
    commit(cache, a_round(version=5), newer)
    commit(cache, a_round(version=4), object())

    assert cache.get(a_round(version=5)) == (5, newer)


def test_the_least_recently_used_round_goes_first(commit: Any) -> None:
    cache = StateCache(size=2)
    for pk in (1, 2):
        commit(cache, a_round(pk), object())
    assert cache.get(a_round(1)) is not None  # 1 is now the most recent
    commit(cache, a_round(3), object())

    assert cache.get(a_round(2)) is None
    assert cache.get(a_round(1)) is not None
    assert cache.get(a_round(3)) is not None


def test_forget_and_clear(commit: Any) -> None:
    cache = StateCache(size=4)
    for pk in (1, 2):
        commit(cache, a_round(pk), object())
    cache.forget(1)
    assert cache.get(a_round(1)) is None
    assert cache.get(a_round(2)) is not None
    cache.clear()
    assert len(cache) == 0


def test_size_zero_turns_it_off(commit: Any) -> None:
    cache = StateCache(size=0)
    commit(cache, a_round(), object())

    assert cache.get(a_round()) is None
    assert cache.version_of(7) == 0
    assert len(cache) == 0


def test_the_setting_turns_the_shared_cache_off(commit: Any, settings: Any) -> None:
    commit(STATE_CACHE, a_round(), object())
    assert STATE_CACHE.get(a_round()) is not None

    settings.ROUND_STATE_CACHE_SIZE = 0
    assert STATE_CACHE.get(a_round()) is None
    assert STATE_CACHE.version_of(7) == 0
