"""Shared fixtures: real PostgreSQL (pytest-django) and real Redis; no mocks."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import Player, Role, User
from ledger.services import ensure_system_accounts
from tests import factories, stages
from tests.browser import ARGS, CHROMIUM, SHOTS, close_pages
from tests.celery_support import route_all_tasks_to


@pytest.fixture(autouse=True)
def _a_new_database_starts_with_no_cached_rounds() -> None:
    """``tables.state_cache`` keeps engine states per round id in the process. Every test starts on
    an emptied database that hands out the same ids again, which a live database never does;
    so every test starts with the cache empty, as a process on a new database would. (The
    cache notices a reused id anyway, at the cost of one more query, which query-count tests
    would count.)"""
    from tables.state_cache import STATE_CACHE

    STATE_CACHE.clear()


@pytest.fixture(autouse=True)
def _a_new_database_starts_with_no_shared_pit_floor() -> None:
    """The pit's rendered floor is shared through Redis for up to 2 s (``tables.console.pit.floor``);
    a test must not be shown the floor of the test before it."""
    from tables.console.pit.floor import forget_shared_floor

    forget_shared_floor()


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def reset_login_failures(db: None) -> Iterator[None]:
    """For tests that fail sign-ins on purpose: no failure remembered before or after them.

    Failures are rows in the test database (django-axes' database handler), so a rolled-back
    test forgets them anyway; this also covers transactional tests and a reused database.
    """
    from axes.utils import reset

    reset()
    yield
    reset()


@pytest.fixture
def login(api: APIClient) -> Callable[[Any], APIClient]:
    """A fresh client signed in as ``user`` with a token issued by the token service."""

    def _login(user: Any) -> APIClient:
        client = APIClient()
        token = factories.token_for(user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client

    return _login


# The floor: people and tables made through the services, for tests/api, tests/casino, tests/tables.


@pytest.fixture
def system_accounts(db: None) -> None:
    """The cage and rake rows of ledger migration 0003; a transactional test's flush removes them."""
    ensure_system_accounts()


@pytest.fixture
def admin(system_accounts: None) -> User:
    return factories.staff(Role.ADMIN)


@pytest.fixture
def pit_boss(system_accounts: None) -> User:
    return factories.staff(Role.PIT_BOSS)


@pytest.fixture
def dealer(system_accounts: None) -> User:
    return factories.staff(Role.DEALER)


@pytest.fixture
def other_dealer(system_accounts: None) -> User:
    return factories.staff(Role.DEALER)


@pytest.fixture
def cashier(system_accounts: None) -> User:
    return factories.staff(Role.CASHIER)


@pytest.fixture
def auditor(system_accounts: None) -> User:
    return factories.staff(Role.AUDITOR)


@pytest.fixture
def player(cashier: User) -> Player:
    return factories.PlayerFactory(actor=cashier)


@pytest.fixture
def other_player(cashier: User) -> Player:
    return factories.PlayerFactory(actor=cashier)


@pytest.fixture
def table(pit_boss: User, dealer: User) -> Any:
    """A closed Faro table ($5 to $500) with ``dealer`` assigned."""
    return factories.TableFactory(actor=pit_boss, dealer=dealer)


@pytest.fixture
def task_queue() -> Iterator[str]:
    """Every task this test sends goes to a queue of its own (tests/celery_support.py)."""
    queue = f"test-{uuid.uuid4().hex[:12]}"
    route_all_tasks_to(queue)
    yield queue
    route_all_tasks_to(None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks from fixtures (tests/stages.py), and browser tests after every other test: the one
    Chromium of the run (and the event loop Playwright keeps, for which Django's async-safety
    check is relaxed) then lives only while they run, whichever selection a run makes."""
    for item in items:
        stages.classify(item)
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    stages.running(item)


def pytest_runtest_teardown(item: pytest.Item) -> None:
    stages.running(None)
    if item.get_closest_marker("browser") is not None:
        close_pages()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One Chromium for the whole run; each test opens a fresh context (tests/browser.open_page)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: run `bash deploy/scripts/setup` "
            "(or `apt-get install -y chromium`). Playwright cannot download browsers here."
        )
    # ORM reads in the test beside Playwright's loop; put back afterwards, so that tests after
    # these (and the processes they start) keep Django's async-safety check.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
