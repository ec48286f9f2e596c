"""Who may call what: every role against every People/Cage/Tables endpoint of API.md.

The expected matrix is written out as data, read straight off API.md's "who" column:
an allowed role gets the endpoint's success status, a role that may not do a thing gets
403, and a player asking for another player's data gets 404.
"""

from __future__ import annotations

import pytest

from tests.api.world import ENDPOINTS, ROLES, World

# Columns: admin, pit_boss, dealer (assigned), dealer (not assigned), cashier, auditor,
#          player (self), player (other).
MATRIX: dict[str, tuple[int, int, int, int, int, int, int, int]] = {
    #                                        adm  pit  dA   dO   cash aud  pS   pO
    "GET /me":                              (200, 200, 200, 200, 200, 200, 200, 200),
    "POST /staff":                          (201, 403, 403, 403, 403, 403, 403, 403),
    "POST /players":                        (201, 201, 403, 403, 201, 403, 403, 403),
    "GET /players":                         (200, 200, 200, 200, 200, 200, 403, 403),
    "GET /players/{id}":                    (200, 200, 200, 200, 200, 200, 200, 404),
    "GET /players/{id}/balance":            (200, 200, 200, 200, 200, 200, 200, 404),
    "GET /players/{id}/transactions":       (200, 200, 200, 200, 200, 200, 200, 404),
    "POST /cage/buy-ins":                   (403, 403, 403, 403, 201, 403, 403, 403),
    "POST /cage/cash-outs":                 (403, 403, 403, 403, 201, 403, 403, 403),
    "POST /tables":                         (201, 201, 403, 403, 403, 403, 403, 403),
    "GET /tables":                          (200, 200, 200, 200, 200, 200, 403, 403),
    "GET /tables/{id}":                     (200, 200, 200, 200, 200, 200, 403, 403),
    "PATCH /tables/{id}/limits":            (403, 200, 200, 403, 403, 403, 403, 403),
    "POST /tables/{id}/assign":             (403, 200, 403, 403, 403, 403, 403, 403),
    "POST /tables/{id}/open":               (403, 403, 201, 403, 403, 403, 403, 403),
    "POST /tables/{id}/close":              (403, 403, 200, 403, 403, 403, 403, 403),
    # "dealer requests": the table's dealer, or the pit boss standing in for them.
    "POST /tables/{id}/fills":              (403, 201, 201, 403, 403, 403, 403, 403),
    "POST /tables/{id}/credits":            (403, 201, 201, 403, 403, 403, 403, 403),
    # Approved (or refused) by a pit boss or a cashier; the world's requests are the dealer's.
    "POST /tables/{id}/fills/{id}/approve": (403, 200, 403, 403, 200, 403, 403, 403),
    "POST /tables/{id}/fills/{id}/refuse":  (403, 200, 403, 403, 200, 403, 403, 403),
    "POST /tables/{id}/credits/{id}/approve": (403, 200, 403, 403, 200, 403, 403, 403),
    "POST /tables/{id}/credits/{id}/refuse": (403, 200, 403, 403, 200, 403, 403, 403),
    # API.md says "dealer"; the service also lets the pit boss seat and unseat for the dealer.
    "POST /tables/{id}/seats":              (403, 201, 201, 403, 403, 403, 403, 403),
    "DELETE /tables/{id}/seats/{player}":   (403, 204, 204, 403, 403, 403, 403, 403),
}  # fmt: skip

CELLS = [(name, role, MATRIX[name][column]) for name in MATRIX for column, role in enumerate(ROLES)]


def test_matrix_covers_every_endpoint() -> None:
    """Every endpoint, every role; no token at all is test_bad_input.py's "no token" case."""
    assert set(MATRIX) == set(ENDPOINTS)
    assert all(len(row) == len(ROLES) for row in MATRIX.values())


@pytest.mark.parametrize(("endpoint", "role", "expected"), CELLS, ids=[f"{n} as {r}" for n, r, _ in CELLS])
@pytest.mark.django_db
def test_role_may_or_may_not(world: World, endpoint: str, role: str, expected: int) -> None:
    response = ENDPOINTS[endpoint].send(world, role)

    assert response.status_code == expected, response.content
    if expected >= 400:
        error = response.json()["error"]
        assert error["code"] == ("not_found" if expected == 404 else "forbidden")
        assert set(error) == {"code", "message", "fields"}
    elif expected != 204:
        assert response.json()
