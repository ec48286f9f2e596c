"""``request.user`` from a session, read in plain SQL (``casino.request_user``): one statement for
the session and its user, and the same answers as Django's own reads for an expired session, a
missing or inactive user, and an id that is no number."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from casino.models import Role, Session, User
from casino.request_user import SessionStore, UserBackend
from tests.casino.test_credentials import CONSOLE, _console
from tests.factories import staff


def _signed_out(client: Client) -> bool:
    answer = client.get(CONSOLE)
    return answer.status_code == 302 and "/console/login/" in answer["Location"]


def test_a_signed_in_request_reads_its_session_and_its_user_in_one_plain_statement(db: None) -> None:
    dealer = staff(Role.DEALER, username="rq.dealer")
    client = _console(dealer)
    assert Session.objects.get().user_id == dealer.pk  # saved with the user it signed in as
    with CaptureQueriesContext(connection) as queries:
        assert client.get(CONSOLE).status_code == 200
    first, *rest = (q["sql"] for q in queries.captured_queries)
    assert first.startswith('SELECT s."session_key", s."session_data", s."expire_date", s."user_id", u."id"')
    assert "FROM casino_session AS s LEFT JOIN casino_user AS u ON u.id = s.user_id" in first
    assert not any("FROM casino_user" in sql for sql in rest)  # the user came with the session
    assert not any("django_session" in sql for sql in rest)


def test_the_user_read_with_one_session_is_never_given_for_another_id(db: None) -> None:
    dealer = staff(Role.DEALER, username="rq.first")
    other = staff(Role.DEALER, username="rq.other")
    client = _console(dealer)
    store = SessionStore(client.session.session_key)
    assert store.load()  # reads the dealer with the session
    with CaptureQueriesContext(connection) as queries:
        found = UserBackend().get_user(other.pk)
    assert found is not None
    assert found.pk == other.pk
    assert len(queries.captured_queries) == 1  # read on its own
    store.load()
    assert UserBackend().get_user(dealer.pk) == dealer
    with CaptureQueriesContext(connection) as queries:
        assert UserBackend().get_user(dealer.pk) == dealer  # taken once: read again
    assert len(queries.captured_queries) == 1


def test_a_changed_password_deletes_the_users_session_rows(db: None) -> None:
    dealer = staff(Role.DEALER, username="rq.out")
    _console(dealer)
    _console(dealer)
    assert Session.objects.filter(user=dealer).count() == 2
    dealer.set_password("a-new-password-123")
    dealer.save()
    assert not Session.objects.filter(user=dealer).exists()


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
