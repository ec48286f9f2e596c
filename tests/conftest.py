"""Shared fixtures: real PostgreSQL (pytest-django) and real Redis; no mocks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests import factories


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def login(api: APIClient) -> Callable[[Any], APIClient]:
    """Authenticate the shared client as a user through the real token endpoint."""

    def _login(user: Any) -> APIClient:
        client = APIClient()
        token = factories.token_for(user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client

    return _login
