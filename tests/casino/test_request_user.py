"""``request.user`` from a session, read in plain SQL (``casino.request_user``): two statements,
and the same answers as Django's own reads for an expired session, a missing or inactive user,
and an id that is no number."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.models import Role, User
from casino.request_user import SessionStore, UserBackend
from tests.casino.test_credentials import CONSOLE, _console
from tests.factories import staff


def _signed_out(client: Client) -> bool:
    answer = client.get(CONSOLE)
    return answer.status_code == 302 and "/console/login/" in answer["Location"]


def test_a_signed_in_request_reads_its_session_and_its_user_in_two_plain_statements(db: None) -> None:
    dealer = staff(Role.DEALER, username="rq.dealer")
    client = _console(dealer)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(CONSOLE).status_code == 200
    first, second = (q["sql"] for q in queries.captured_queries[:2])
    assert first.startswith('SELECT "session_key", "session_data", "expire_date" FROM django_session')
    assert second.startswith('SELECT "id", "password"')
    assert f"FROM casino_user WHERE id = {dealer.pk}" in second
    assert not any(q["sql"].startswith('SELECT "django_session".') for q in queries.captured_queries)


def test_an_expired_session_signs_out(db: None) -> None:
    client = _console(staff(Role.DEALER, username="rq.expired"))
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    assert _signed_out(client)


def test_a_user_made_inactive_or_gone_signs_out(db: None) -> None:
    inactive = staff(Role.DEALER, username="rq.inactive")
    client = _console(inactive)
    User.objects.filter(pk=inactive.pk).update(is_active=False)  # not through save(): its sessions stay
    assert _signed_out(client)
    assert UserBackend().get_user(inactive.pk) is None
    assert UserBackend().get_user(inactive.pk + 1000) is None


def test_no_valid_id_names_no_one(db: None) -> None:
    assert UserBackend().get_user("not-a-number") is None
    assert UserBackend().get_user(None) is None


def test_an_unknown_session_key_loads_nothing_and_starts_afresh(db: None) -> None:
    store = SessionStore("no-such-session-key-0123456789")
    assert store.load() == {}
    assert store.session_key is None
