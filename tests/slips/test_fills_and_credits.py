"""Issue 46 item 5: fills and credits are slips whose chips travel through transit.

Every flow goes through the API as the floor would: the dealer asks, the side the chips leave
approves (the cage issues a fill, the pit releases a credit), the other side signs for them.
At every step the cage, the chips in transit and the tray are read from the ledger, and the
trial balance must balance (``GET /ledger/trial-balance``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.utils import timezone

from casino.models import Role, User
from ledger.models import Account, Transfer
from tables.accounts import CAGE, TRANSIT, tray_code
from tables.models import Table
from tables.slips.models import Slip
from tables.slips.voids import void_slip
from tests.factories import PASSWORD, open_table_for, staff

pytestmark = pytest.mark.django_db

OPENING = 100_000


@dataclass(frozen=True)
class Books:
    """The three places a fill's or credit's chips can be, and whether the ledger balances."""

    cage: int
    transit: int
    tray: int


@pytest.fixture
def floor(login: Any, table: Table, dealer: User, pit_boss: User, cashier: User, auditor: User) -> Floor:
    open_table_for(table, inventory=OPENING)
    return Floor(login, table, dealer, pit_boss, cashier, auditor)


class Floor:
    def __init__(self, login: Any, table: Table, *people: User) -> None:
        self.login, self.table = login, table
        self.dealer, self.pit_boss, self.cashier, self.auditor = people
        self.cage_before = _balance(CAGE)

    def url(self, tail: str) -> str:
        return f"/api/v1/tables/{self.table.pk}{tail}"

    def ask(self, kind: str, body: dict[str, Any], *, by: User | None = None) -> dict[str, Any]:
        answer = self.login(by or self.dealer).post(self.url(f"/{kind}s"), body, format="json")
        assert answer.status_code == 201, answer.content
        return dict(answer.json())

    def approve(self, kind: str, slip: dict[str, Any], by: User, body: Any = None) -> Any:
        return self.login(by).post(self.url(f"/{kind}s/{slip['id']}/approve"), body or {}, format="json")

    def sign(self, slip: dict[str, Any], by: User, password: str = PASSWORD) -> Any:
        return self.login(by).post(f"/api/v1/slips/{slip['id']}/sign", {"password": password}, format="json")

    def books(self) -> Books:
        """Where the chips are, relative to the cage before the test; the trial balance checked."""
        trial = self.login(self.auditor).get("/api/v1/ledger/trial-balance").json()
        assert trial["total_debits"] == trial["total_credits"]
        assert sum(row["balance"] for row in trial["accounts"]) == 0
        transit = next((row for row in trial["accounts"] if row["account"] == TRANSIT), None)
        return Books(
            cage=_balance(CAGE) - self.cage_before,
            transit=0 if transit is None else transit["balance"],
            tray=_balance(tray_code(self.table.pk)) - OPENING,
        )


def _balance(code: str) -> int:
    return Account.objects.get(code=code).balance


# --------------------------------------------------------------------------- the two flows


def test_a_fill_leaves_the_cage_travels_and_reaches_the_tray(floor: Floor) -> None:
    year = timezone.now().year
    fill = floor.ask("fill", {"amount": 30_000})
    assert (fill["number"], fill["kind"], fill["status"]) == (f"F-{year}-000001", "fill", "pending")
    assert (fill["amount"], fill["needs"], fill["signatures"], fill["table"]) == (
        30_000,
        ["cashier"],
        [],
        floor.table.pk,
    )
    assert floor.books() == Books(cage=0, transit=0, tray=0)

    issued = floor.approve("fill", fill, floor.cashier)
    assert issued.status_code == 200, issued.content
    assert (issued.json()["status"], issued.json()["needs"]) == ("issued", ["dealer", "pit_boss"])
    assert floor.books() == Books(cage=-30_000, transit=30_000, tray=0)  # neither the cage's nor the tray's

    halfway = floor.sign(fill, floor.dealer)
    assert (halfway.json()["status"], halfway.json()["needs"]) == ("issued", ["pit_boss"])
    assert floor.books() == Books(cage=-30_000, transit=30_000, tray=0)

    received = floor.sign(fill, floor.pit_boss)
    assert received.status_code == 200, received.content
    body = received.json()
    assert (body["status"], body["needs"]) == ("received", [])
    assert [(s["role"], s["user"], s["password_confirmed"]) for s in body["signatures"]] == [
        ("cashier", floor.cashier.pk, False),
        ("dealer", floor.dealer.pk, True),
        ("pit_boss", floor.pit_boss.pk, True),
    ]
    assert floor.books() == Books(cage=-30_000, transit=0, tray=30_000)
    slip = Slip.objects.get(pk=fill["id"])
    assert (slip.issue_transfer.kind, slip.receipt_transfer.kind) == ("fill_issue", "fill")


def test_a_credit_leaves_the_tray_travels_and_reaches_the_cage(floor: Floor) -> None:
    credit = floor.ask("credit", {"count": {"10000": 2, "2500": 4}})
    assert (credit["number"][:2], credit["amount"], credit["status"]) == ("C-", 30_000, "pending")
    assert (credit["count"]["10000"], credit["count"]["2500"], credit["count"]["100"]) == (2, 4, 0)
    assert credit["needs"] == ["pit_boss"]

    released = floor.approve("credit", credit, floor.pit_boss, {"password": PASSWORD})
    assert released.status_code == 200, released.content
    assert (released.json()["status"], released.json()["needs"]) == ("issued", ["cashier"])
    assert released.json()["signatures"][0]["password_confirmed"] is True
    assert floor.books() == Books(cage=0, transit=30_000, tray=-30_000)

    received = floor.sign(credit, floor.cashier)
    assert received.status_code == 200, received.content
    assert (received.json()["status"], received.json()["needs"]) == ("received", [])
    assert floor.books() == Books(cage=30_000, transit=0, tray=-30_000)


def test_a_received_slip_is_final(floor: Floor) -> None:
    fill = floor.ask("fill", {"amount": 5_000})
    floor.approve("fill", fill, floor.cashier)
    for signer in (floor.dealer, floor.pit_boss):
        floor.sign(fill, signer)

    again = floor.approve("fill", fill, floor.cashier)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "already_decided")
    signed = floor.sign(fill, staff(Role.PIT_BOSS))
    assert (signed.status_code, signed.json()["error"]["code"]) == (409, "slip_final")
    assert floor.books() == Books(cage=-5_000, transit=0, tray=5_000)


# --------------------------------------------------------------------------- refusals and voids


def test_a_refused_fill_is_void_with_the_refusal_as_its_reason(floor: Floor) -> None:
    fill = floor.ask("fill", {"amount": 10_000})

    refused = floor.login(floor.cashier).post(
        floor.url(f"/fills/{fill['id']}/refuse"), {"note": "the tray holds enough"}, format="json"
    )

    assert refused.status_code == 200, refused.content
    body = refused.json()
    assert (body["status"], body["number"]) == ("void", fill["number"])
    assert body["void"]["reason"] == "Refused by the cage: the tray holds enough"
    assert body["void"]["by"] == floor.cashier.pk
    assert floor.books() == Books(cage=0, transit=0, tray=0)
    assert floor.approve("fill", fill, floor.cashier).status_code == 409
    series = floor.login(floor.auditor).get(f"/api/v1/slips/series?kind=fill&year={fill['number'][2:6]}")
    assert (series.json()["issued"], series.json()["void"], series.json()["missing"]) == (1, 1, [])


def test_a_fill_voided_in_transit_goes_back_to_the_cage(floor: Floor) -> None:
    fill = floor.ask("fill", {"amount": 12_000})
    floor.approve("fill", fill, floor.cashier)
    assert floor.books() == Books(cage=-12_000, transit=12_000, tray=0)

    void = void_slip(actor=floor.cashier, slip_id=fill["id"], reason="the runner came back with it")

    assert (void.status, void.number, void.void_reason) == (
        "void",
        fill["number"],
        "the runner came back with it",
    )
    assert Slip.objects.get(pk=fill["id"]).return_transfer.kind == "fill_return"
    assert floor.books() == Books(cage=0, transit=0, tray=0)
    late = floor.sign(fill, floor.dealer)
    assert (late.status_code, late.json()["error"]["code"]) == (409, "slip_void")
    assert floor.books() == Books(cage=0, transit=0, tray=0)


def test_a_credit_voided_in_transit_goes_back_to_the_tray(floor: Floor) -> None:
    credit = floor.ask("credit", {"amount": 8_000})
    floor.approve("credit", credit, floor.pit_boss)
    assert floor.books() == Books(cage=0, transit=8_000, tray=-8_000)

    void_slip(actor=floor.cashier, slip_id=credit["id"], reason="the table kept it")

    assert Slip.objects.get(pk=credit["id"]).return_transfer.kind == "credit_return"
    assert floor.books() == Books(cage=0, transit=0, tray=0)


def test_a_received_fill_is_never_voided(floor: Floor) -> None:
    from casino.errors import Conflict

    fill = floor.ask("fill", {"amount": 3_000})
    floor.approve("fill", fill, floor.cashier)
    for signer in (floor.dealer, floor.pit_boss):
        floor.sign(fill, signer)

    with pytest.raises(Conflict, match="corrected by a new slip"):
        void_slip(actor=floor.cashier, slip_id=fill["id"], reason="too late")

    assert Slip.objects.get(pk=fill["id"]).status == "received"
    assert floor.books() == Books(cage=-3_000, transit=0, tray=3_000)


def test_a_void_needs_the_cage_and_a_reason(floor: Floor) -> None:
    from casino.errors import Forbidden, ValidationFailed

    fill = floor.ask("fill", {"amount": 6_000})
    floor.approve("fill", fill, floor.cashier)

    with pytest.raises(Forbidden, match="voided only by a cashier"):
        void_slip(actor=floor.pit_boss, slip_id=fill["id"], reason="not needed")
    with pytest.raises(ValidationFailed):
        void_slip(actor=floor.cashier, slip_id=fill["id"], reason="  ")

    assert Slip.objects.get(pk=fill["id"]).status == "issued"
    assert floor.books() == Books(cage=-6_000, transit=6_000, tray=0)


# --------------------------------------------------------------------------- who may do what


def test_never_the_requester_approves(floor: Floor) -> None:
    credit = floor.ask("credit", {"amount": 1_000}, by=floor.pit_boss)
    moves = Transfer.objects.count()

    own = floor.approve("credit", credit, floor.pit_boss)
    refuse = floor.login(floor.pit_boss).post(floor.url(f"/credits/{credit['id']}/refuse"), {}, format="json")

    assert (own.status_code, own.json()["error"]["code"]) == (403, "separation_of_duties")
    assert (refuse.status_code, refuse.json()["error"]["code"]) == (403, "separation_of_duties")
    assert Transfer.objects.count() == moves
    assert Slip.objects.get(pk=credit["id"]).status == "pending"


@pytest.mark.parametrize(
    ("kind", "wrong"),
    [
        ("fill", "pit_boss"),
        ("fill", "dealer"),
        ("fill", "auditor"),
        ("credit", "cashier"),
        ("credit", "dealer"),
    ],
)
def test_only_the_side_the_chips_leave_approves(floor: Floor, kind: str, wrong: str) -> None:
    slip = floor.ask(kind, {"amount": 1_000}, by=staff(Role.PIT_BOSS))
    who = {
        "pit_boss": floor.pit_boss,
        "dealer": floor.dealer,
        "cashier": floor.cashier,
        "auditor": floor.auditor,
    }

    approve = floor.approve(kind, slip, who[wrong])
    refuse = floor.login(who[wrong]).post(floor.url(f"/{kind}s/{slip['id']}/refuse"), {}, format="json")

    assert (approve.status_code, refuse.status_code) == (403, 403)
    assert approve.json()["error"]["code"] == "forbidden"
    assert floor.books() == Books(cage=0, transit=0, tray=0)


def test_only_the_receiving_side_signs_for_the_chips(floor: Floor) -> None:
    fill = floor.ask("fill", {"amount": 2_000})
    floor.approve("fill", fill, floor.cashier)

    cage_again = floor.sign(fill, floor.cashier)
    stranger = floor.sign(fill, staff(Role.DEALER))

    assert cage_again.status_code == 403  # the cage's part is done: the slip waits for the table
    assert stranger.status_code == 403  # only the table's own dealer
    assert "assigned to this table" in stranger.json()["error"]["message"]
    assert floor.books() == Books(cage=-2_000, transit=2_000, tray=0)


@pytest.mark.usefixtures("reset_login_failures")
def test_an_approval_with_a_wrong_password_moves_nothing(floor: Floor) -> None:
    fill = floor.ask("fill", {"amount": 4_000})

    wrong = floor.approve("fill", fill, floor.cashier, {"password": "not-mine"})

    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "bad_signature")
    assert Slip.objects.get(pk=fill["id"]).status == "pending"
    assert floor.books() == Books(cage=0, transit=0, tray=0)


def test_a_slip_is_approved_only_at_its_own_table_and_kind(floor: Floor, pit_boss: User) -> None:
    fill = floor.ask("fill", {"amount": 1_000})
    elsewhere = open_table_for(_another_table(pit_boss, floor.dealer), inventory=0)

    wrong_table = floor.login(floor.cashier).post(
        f"/api/v1/tables/{elsewhere.table_id}/fills/{fill['id']}/approve", {}, format="json"
    )
    as_credit = floor.approve("credit", fill, floor.pit_boss)

    assert (wrong_table.status_code, as_credit.status_code) == (404, 404)
    assert floor.books() == Books(cage=0, transit=0, tray=0)


def _another_table(pit_boss: User, dealer: User) -> Table:
    from tests.factories import TableFactory

    return TableFactory(actor=pit_boss, dealer=dealer)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "amount"),
        ({"amount": 1_000, "count": {"500": 2}}, "count"),
        ({"count": {"700": 1}}, "count"),
        ({"count": {"2500": -1}}, "count"),
        ({"count": {"2500": 0}}, "count"),
        ({"count": {"2500": 1.5}}, "count"),
        ({"amount": 0}, "amount"),
        ({"amount": "1000"}, "amount"),
    ],
)
def test_a_bad_request_is_refused_and_takes_no_number(floor: Floor, body: dict[str, Any], field: str) -> None:
    answer = floor.login(floor.dealer).post(floor.url("/fills"), body, format="json")

    assert answer.status_code == 400, answer.content
    assert field in answer.json()["error"]["fields"]
    assert not Slip.objects.filter(kind="fill").exists()
    assert floor.ask("fill", {"amount": 500})["number"].endswith("-000001")  # the series has no gap
