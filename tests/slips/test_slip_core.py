"""Issue 46 items 1, 3 and 4: the chip set, numbered slips, and signatures bound to the person.

Slips here are written through ``issue_slip`` directly (the counts, fills and credits that
write them through the API have tests of their own); signing goes through the API.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from casino.errors import ValidationFailed
from casino.models import Role
from tables.slips.chips import count_amount, parse_count
from tables.slips.models import Slip, SlipCounter, SlipKind, SlipSignature
from tables.slips.selectors import account_for_series
from tables.slips.services import issue_slip
from tests.factories import PASSWORD, staff

pytestmark = pytest.mark.django_db


def a_count(table: Any, by: Any, *, amount: int = 100_000, expected: int = 100_000) -> Slip:
    with transaction.atomic():
        return issue_slip(
            kind=SlipKind.COUNT,
            requested_by=by,
            table=table,
            amount=amount,
            expected=expected,
            count={"10000": amount // 10000},
            reason="spot_check",
        )


def test_the_chip_set_is_served_smallest_first_and_pays_a_faro_split(login: Any, dealer: Any) -> None:
    answer = login(dealer).get("/api/v1/chips")
    assert answer.status_code == 200
    values = [d["value"] for d in answer.json()["denominations"]]
    assert values == sorted(values)
    assert values[0] == 50  # half of a whole-dollar bet is paid in chips
    assert all(d["colour"] for d in answer.json()["denominations"])


def test_a_player_may_not_read_the_chip_set(login: Any, player: Any) -> None:
    assert login(player.user).get("/api/v1/chips").status_code == 403


def test_a_count_is_read_over_the_whole_chip_set() -> None:
    count = parse_count({"2500": 40, "500": 12})
    assert (count["2500"], count["500"], count["100"]) == (40, 12, 0)
    assert count_amount(count) == 40 * 2500 + 12 * 500


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ({"700": 1}, "There is no 700-cent chip"),
        ({"2500": -1}, "$25 chips must be a whole number"),
        ({"2500": 1.5}, "$25 chips must be a whole number"),
        ({"2500": True}, "$25 chips must be a whole number"),
        ([1, 2], "pieces by chip value"),
    ],
)
def test_a_bad_count_is_refused_in_words(raw: Any, says: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_count(raw)
    assert says in refused.value.message


def test_numbers_run_per_kind_and_year_from_one(table: Any, dealer: Any) -> None:
    year = timezone.now().year
    first, second = a_count(table, dealer), a_count(table, dealer)
    assert first.number == f"S-{year}-000001"
    assert second.number == f"S-{year}-000002"
    with transaction.atomic():
        fill = issue_slip(kind=SlipKind.FILL, requested_by=dealer, table=table, amount=5000)
    assert fill.number == f"F-{year}-000001"
    assert fill.needs == [Role.CASHIER]


def test_a_rolled_back_slip_gives_its_number_back(table: Any, dealer: Any) -> None:
    a_count(table, dealer)

    def count_then_fail() -> None:
        with transaction.atomic():
            a_count(table, dealer)
            raise RuntimeError("the count's transaction fails after the number was taken")

    with pytest.raises(RuntimeError):
        count_then_fail()
    assert a_count(table, dealer).serial == 2
    series = account_for_series(kind=SlipKind.COUNT, year=timezone.now().year)
    assert (series.issued, series.missing, series.void) == (2, [], 0)


def test_what_a_slip_says_cannot_be_changed_or_deleted(table: Any, dealer: Any) -> None:
    slip = a_count(table, dealer)
    with pytest.raises(IntegrityError, match="says what it said"), transaction.atomic():
        Slip.objects.filter(pk=slip.pk).update(amount=1)
    with pytest.raises(IntegrityError, match="never deleted"), transaction.atomic():
        Slip.objects.filter(pk=slip.pk).delete()
    with pytest.raises(IntegrityError, match="only counts up"), transaction.atomic():
        SlipCounter.objects.filter(kind=SlipKind.COUNT).update(last=0)
    assert Slip.objects.get(pk=slip.pk).amount == 100_000


def test_the_series_shows_a_number_no_slip_carries(table: Any, dealer: Any, login: Any, auditor: Any) -> None:
    a_count(table, dealer)
    with connection.cursor() as cursor:  # a number taken behind the service's back
        cursor.execute("UPDATE tables_slipcounter SET last = last + 1 WHERE kind = 'count'")
    a_count(table, dealer)
    year = timezone.now().year
    answer = login(auditor).get(f"/api/v1/slips/series?year={year}&kind=count")
    assert answer.status_code == 200
    assert answer.json() == {
        "kind": "count",
        "year": year,
        "first": f"S-{year}-000001",
        "last": f"S-{year}-000003",
        "issued": 2,
        "void": 0,
        "missing": [f"S-{year}-000002"],
    }
    every = login(auditor).get(f"/api/v1/slips/series?year={year}").json()
    assert {s["kind"] for s in every} == set(SlipKind.values)
    assert login(auditor).get("/api/v1/slips/series?kind=nothing").status_code == 400
    assert login(dealer).get("/api/v1/slips/series").status_code == 403


def test_signing_takes_the_signers_own_password(login: Any, table: Any, dealer: Any, pit_boss: Any) -> None:
    slip = a_count(table, dealer)
    as_dealer = login(dealer)
    wrong = as_dealer.post(f"/api/v1/slips/{slip.pk}/sign", {"password": "not-it"}, format="json")
    assert wrong.status_code == 403
    assert wrong.json()["error"]["code"] == "bad_signature"
    assert not SlipSignature.objects.filter(slip=slip).exists()
    signed = as_dealer.post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert signed.status_code == 200
    body = signed.json()
    assert body["needs"] == ["pit_boss"]
    assert [(s["role"], s["user"], s["name"]) for s in body["signatures"]] == [
        ("dealer", dealer.pk, dealer.name)
    ]
    twice = as_dealer.post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert twice.status_code == 403  # the dealer's part is done: the slip waits for a pit boss
    final = login(pit_boss).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert final.status_code == 200
    assert (final.json()["needs"], final.json()["status"]) == ([], "final")
    again = login(pit_boss).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert again.status_code == 409


def test_one_person_signs_a_slip_once(login: Any, table: Any, dealer: Any, pit_boss: Any) -> None:
    with transaction.atomic():  # a step that needs two of one role (a drop slip's count team)
        slip = issue_slip(kind=SlipKind.COUNT, requested_by=pit_boss, table=table, amount=0, expected=0)
    Slip.objects.filter(pk=slip.pk).update(needs=["pit_boss", "pit_boss"])
    first = login(pit_boss).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert first.status_code == 200
    second = login(pit_boss).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "already_signed"


def test_only_the_tables_own_dealer_signs_as_dealer(login: Any, table: Any, dealer: Any) -> None:
    slip = a_count(table, dealer)
    stranger = staff(Role.DEALER)
    answer = login(stranger).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert answer.status_code == 403
    assert "assigned to this table" in answer.json()["error"]["message"]


def test_a_role_the_slip_does_not_need_may_not_sign(
    login: Any, table: Any, dealer: Any, cashier: Any
) -> None:
    slip = a_count(table, dealer)
    answer = login(cashier).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert answer.status_code == 403
    assert "dealer and pit boss" in answer.json()["error"]["message"]


@pytest.mark.usefixtures("reset_login_failures")
def test_wrong_signatures_count_toward_the_accounts_lockout(
    login: Any, table: Any, dealer: Any, api: Any, settings: Any
) -> None:
    slip = a_count(table, dealer)
    as_dealer = login(dealer)
    for _ in range(settings.LOGIN_FAILURES_PER_USERNAME):
        as_dealer.post(f"/api/v1/slips/{slip.pk}/sign", {"password": "guess"}, format="json")
    locked = as_dealer.post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert locked.status_code == 429
    credentials = {"username": dealer.username, "password": PASSWORD}
    sign_in = api.post("/api/v1/auth/token", credentials, format="json")
    assert sign_in.status_code == 429  # the same account is locked for signing in too


def test_a_large_variance_needs_the_pit_bosss_note(
    login: Any, table: Any, dealer: Any, pit_boss: Any
) -> None:
    slip = a_count(table, dealer, amount=90_000, expected=100_000)  # $100.00 short
    bare = login(pit_boss).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert bare.status_code == 400
    assert bare.json()["error"]["code"] == "note_required"
    assert "$100.00 short" in bare.json()["error"]["message"]
    noted = login(pit_boss).post(
        f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD, "note": "recounted twice"}, format="json"
    )
    assert noted.status_code == 200
    assert noted.json()["signatures"][0]["note"] == "recounted twice"


def test_slips_are_listed_newest_first_and_filtered(login: Any, table: Any, dealer: Any) -> None:
    first, second = a_count(table, dealer), a_count(table, dealer)
    listed = login(dealer).get(f"/api/v1/slips?kind=count&table={table.pk}").json()["results"]
    assert [s["number"] for s in listed] == [second.number, first.number]
    one = login(dealer).get(f"/api/v1/slips/{first.pk}").json()
    assert (one["count"]["10000"], one["expected"], one["variance"]) == (10, 100_000, 0)
    assert login(dealer).get("/api/v1/slips?kind=fill").json()["results"] == []
    assert login(dealer).get("/api/v1/slips?status=nope").status_code == 400
    assert login(dealer).get("/api/v1/slips/999999").status_code == 404
