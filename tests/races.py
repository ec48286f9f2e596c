"""Races made certain: API posts from threads of their own, held behind a lock until every one
of them waits on it, then let go at once.

Each post runs on its own thread with its own database connection (real PostgreSQL). ``hold`` is
a ``LOCK TABLE`` statement on the table whose rows serialise the writers under test; while it is
held, the posts queue on it, and the harness waits until ``pg_stat_activity`` shows them all
waiting before it lets go.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from django.db import connection
from rest_framework.test import APIClient

from tests.deploy.test_faults import held

WAIT_SECONDS = 120


@dataclass(frozen=True)
class Post:
    token: str
    url: str
    body: dict[str, Any]


def waiting_for_a_lock() -> int:
    """How many other connections of this database wait on a lock now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def post_all_at_once(posts: list[Post], *, hold: str) -> list[tuple[int, Any]]:
    """Every post's (status, JSON body), in the order they were answered."""
    answers: list[tuple[int, Any]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def send(post: Post) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {post.token}")
            response = client.post(post.url, post.body, format="json")
            with lock:
                answers.append((response.status_code, response.json()))
        except BaseException as error:  # raised below, in the test's own thread
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(post,)) for post in posts]
    with held(hold):
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + WAIT_SECONDS
        while waiting_for_a_lock() < len(posts):
            assert time.monotonic() < deadline, f"only {waiting_for_a_lock()} of {len(posts)} posts wait"
            time.sleep(0.02)
    for thread in threads:
        thread.join(timeout=WAIT_SECONDS)
    assert not any(thread.is_alive() for thread in threads)
    assert not errors, errors
    return answers
