"""Errors Django answers itself (casino/error_pages.py): JSON on /api/, HTML on the console.

Every status the server can give on /api/ — 400 from Django, 403, 404 for unknown paths, 405,
413, 500 and 503 — comes back as ``{"error": {"code", "message"}}`` with a JSON content type.
The database-down case is real: a separate Django process whose DATABASE_URL points at a local
port that refuses connections.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client, RequestFactory
from django.urls import get_resolver

from casino.models import User

REPO = Path(__file__).resolve().parents[2]


def _assert_api_error(response: object, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.content  # type: ignore[attr-defined]
    assert response["Content-Type"] == "application/json"  # type: ignore[index]
    error = json.loads(response.content)["error"]  # type: ignore[attr-defined]
    assert error["code"] == code
    assert error["message"]
    return error  # type: ignore[no-any-return]


def test_an_unknown_api_path_is_a_json_404_and_a_console_one_an_html_404(db: None) -> None:
    client = Client()

    _assert_api_error(client.get("/api/v1/no-such-thing"), 404, "not_found")
    page = client.get("/console/no-such-thing/")
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")


def test_a_method_the_endpoint_lacks_is_a_json_405(admin: User, login: object) -> None:
    response = login(admin).put("/api/v1/me", {}, format="json")  # type: ignore[operator]

    _assert_api_error(response, 405, "method_not_allowed")


def test_a_host_django_refuses_is_a_json_400_on_the_api_only(db: None) -> None:
    client = Client(HTTP_HOST="evil.example")

    _assert_api_error(client.get("/api/v1/me"), 400, "bad_host")
    page = client.get("/console/")
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/html")


@pytest.mark.parametrize(("status", "code"), [(500, "server_error"), (403, "forbidden")])
def test_the_urlconfs_500_and_403_handlers_answer_json_on_the_api_and_html_elsewhere(
    status: int, code: str
) -> None:
    """No endpoint fails on purpose, so the handlers the URLconf names are called as Django
    calls them: inside the ``except`` block of a real exception."""
    handler = get_resolver().resolve_error_handler(status)
    factory = RequestFactory()
    for path, html in (("/api/v1/tables", False), ("/console/", True)):
        request = factory.get(path)
        try:
            raise RuntimeError("boom")
        except RuntimeError as error:
            response = handler(request) if status == 500 else handler(request, error)
        if html:
            assert response.status_code == status
            assert response["Content-Type"].startswith("text/html")
        else:
            _assert_api_error(response, status, code)


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A local port that is bound but not listening, so connecting to it is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


# Runs in a fresh process, so its settings can point the database at the refused port.
_PROBE = """
import json, django
django.setup()
from django.test import Client
client = Client(raise_request_exception=False, HTTP_HOST="127.0.0.1")
answers = {}
def keep(name, response):
    answers[name] = [response.status_code, response["Content-Type"], response.get("Retry-After"),
                     response.content.decode()]
keep("api read", client.get("/api/v1/tables", HTTP_AUTHORIZATION="Token some-token"))
keep("api sign-in", client.post("/api/v1/auth/token", {"username": "a", "password": "b"},
                                content_type="application/json"))
client.cookies["sessionid"] = "some-session"
keep("console", client.get("/console/"))
keep("api session", client.get("/api/v1/me"))
print(json.dumps(answers))
"""


def test_an_unreachable_database_is_a_503_json_on_the_api_and_a_readable_page_on_the_console(
    refused_port: int,
) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.test",
        "DATABASE_URL": f"postgres://root@127.0.0.1:{refused_port}/casekeeper",
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answers = json.loads(done.stdout.strip().splitlines()[-1])

    for name in ("api read", "api sign-in", "api session"):
        status, content_type, retry_after, body = answers[name]
        assert (name, status, content_type) == (name, 503, "application/json")
        assert json.loads(body)["error"]["code"] == "unavailable"
        assert int(retry_after) > 0
    status, content_type, retry_after, body = answers["console"]
    assert (status, content_type.split(";")[0]) == (503, "text/html")
    assert "cannot reach its database" in body
    assert int(retry_after) > 0
