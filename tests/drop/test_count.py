"""The drop boxes and the count (API.md "The drop and the count"): the list, a box removed under
seal (the next box at the table at once), its count into a drop slip, the second count team
member's signature and the cashier's, who takes the cash into the cage."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from casino.models import Player, Role, User
from ledger.models import Account
from ledger.selectors import get_trial_balance
from tables.accounts import CAGE, COUNT_ROOM, OVER_SHORT, drop_code
from tables.drop.models import DropBox
from tables.drop.services import cash_buy_in, count_box, remove_box
from tables.models import Table
from tables.slips.models import Slip
from tables.slips.services import issue_slip
from tests import factories
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def _balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return 0 if account is None else account.balance


@pytest.fixture
def box(open_table: Table, dealer: User, player: Player) -> DropBox:
    """The table's box with $300.00 of cash recorded into it."""
    cash_buy_in(actor=dealer, table_id=open_table.pk, player_id=player.pk, amount=20_000)
    made = cash_buy_in(actor=dealer, table_id=open_table.pk, player_id=player.pk, amount=10_000)
    return made.box


@pytest.fixture
def removed(box: DropBox, counter: User) -> DropBox:
    return remove_box(actor=counter, box_id=box.pk, seal="S-1001")


def test_removing_a_box_puts_the_next_one_at_the_table_at_once(
    box: DropBox, counter: User, open_table: Table, login: Any
) -> None:
    response = login(counter).post(f"/api/v1/drop-boxes/{box.pk}/remove", {"seal": " S-1001 "}, format="json")

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["seal"], body["recorded"], body["counted"], body["variance"]) == (
        "removed",
        "S-1001",
        30_000,
        None,
        None,
    )
    following = DropBox.objects.get(table=open_table, status="at_table")
    assert following.sequence == 2
    assert following.recorded == 0
    again = login(counter).post(f"/api/v1/drop-boxes/{box.pk}/remove", {"seal": "S-2"}, format="json")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "drop_box_removed"


def test_play_goes_on_into_the_new_box(
    removed: DropBox, dealer: User, player: Player, open_table: Table
) -> None:
    made = cash_buy_in(actor=dealer, table_id=open_table.pk, player_id=player.pk, amount=4_000)

    assert made.box.pk != removed.pk
    removed.refresh_from_db()
    assert removed.recorded == 30_000
    assert made.box.recorded == 4_000


@pytest.mark.parametrize("seal", ["", "   ", "x" * 41])
def test_a_box_is_removed_only_under_a_seal(box: DropBox, counter: User, login: Any, seal: str) -> None:
    response = login(counter).post(f"/api/v1/drop-boxes/{box.pk}/remove", {"seal": seal}, format="json")

    assert response.status_code == 400
    assert DropBox.objects.get(pk=box.pk).status == "at_table"


def test_the_count_writes_a_drop_slip_and_moves_the_cash_to_the_count_room(
    removed: DropBox, counter: User, login: Any
) -> None:
    response = login(counter).post(
        f"/api/v1/drop-boxes/{removed.pk}/count",
        {"currency": {"10000": 2, "2000": 4, "500": 3}},
        format="json",
    )

    assert response.status_code == 200, response.content
    slip = response.json()
    assert (slip["kind"], slip["amount"], slip["expected"], slip["variance"]) == (
        "drop",
        29_500,
        30_000,
        -500,
    )
    assert slip["number"].startswith("D-")
    assert slip["needs"] == ["count_team"]
    assert slip["count"]["10000"] == 2
    assert slip["count"]["100"] == 0
    removed.refresh_from_db()
    assert (removed.status, removed.counted, removed.variance, removed.slip_id) == (
        "counted",
        29_500,
        -500,
        slip["id"],
    )
    assert _balance(drop_code(removed.pk)) == 0
    assert _balance(COUNT_ROOM) == 30_000
    assert get_trial_balance().balanced


def test_the_second_member_then_a_cashier_sign_and_the_cash_reaches_the_cage(
    removed: DropBox, counter: User, second_counter: User, cashier: User, login: Any
) -> None:
    slip = count_box(actor=counter, box_id=removed.pk, currency={"10000": 3, "2000": 1})  # $320: $20 over
    cage_before, over_short_before = _balance(CAGE), _balance(OVER_SHORT)

    own = login(counter).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert own.status_code == 403
    assert own.json()["error"]["code"] == "separation_of_duties"
    early = login(cashier).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert early.status_code == 403

    second = login(second_counter).post(
        f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json"
    )
    assert second.status_code == 200, second.content
    assert second.json()["needs"] == ["cashier"]
    assert _balance(COUNT_ROOM) == 30_000  # nothing moves until the cage takes it

    taken = login(cashier).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert taken.status_code == 200, taken.content
    assert (taken.json()["status"], taken.json()["needs"]) == ("received", [])
    assert _balance(COUNT_ROOM) == 0
    assert _balance(CAGE) - cage_before == 32_000
    assert _balance(OVER_SHORT) - over_short_before == -2_000
    assert get_trial_balance().balanced


def test_a_short_count_books_the_shortfall_to_over_short(
    removed: DropBox, counter: User, second_counter: User, cashier: User
) -> None:
    from tables.slips.services import sign_slip

    slip = count_box(actor=counter, box_id=removed.pk, currency={"10000": 2, "5000": 1})  # $250: $50 short
    cage_before, over_short_before = _balance(CAGE), _balance(OVER_SHORT)
    sign_slip(actor=second_counter, slip_id=slip.pk)
    sign_slip(actor=cashier, slip_id=slip.pk)

    assert _balance(CAGE) - cage_before == 25_000
    assert _balance(OVER_SHORT) - over_short_before == 5_000
    assert _balance(COUNT_ROOM) == 0
    assert get_trial_balance().balanced


def test_a_box_at_its_table_or_counted_already_is_not_counted(
    box: DropBox, counter: User, login: Any
) -> None:
    at_table = login(counter).post(f"/api/v1/drop-boxes/{box.pk}/count", {"currency": {}}, format="json")
    assert at_table.status_code == 409
    assert at_table.json()["error"]["code"] == "drop_box_at_table"

    remove_box(actor=counter, box_id=box.pk, seal="S-9")
    first = login(counter).post(
        f"/api/v1/drop-boxes/{box.pk}/count", {"currency": {"10000": 3}}, format="json"
    )
    again = login(counter).post(
        f"/api/v1/drop-boxes/{box.pk}/count", {"currency": {"10000": 3}}, format="json"
    )
    assert first.status_code == 200
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "drop_box_counted"
    assert Slip.objects.filter(kind="drop").count() == 1


@pytest.mark.parametrize(
    "currency",
    [{"123": 1}, {"10000": -1}, {"10000": 1.5}, {"10000": "2"}, [1, 2], "lots"],
    ids=["unknown bill", "negative", "fraction", "text", "list", "string"],
)
def test_currency_is_whole_bills_of_known_values(
    removed: DropBox, counter: User, login: Any, currency: Any
) -> None:
    response = login(counter).post(
        f"/api/v1/drop-boxes/{removed.pk}/count", {"currency": currency}, format="json"
    )

    assert response.status_code == 400, response.content
    assert DropBox.objects.get(pk=removed.pk).status == "removed"


def _marker(table: Table, boss: User, box: DropBox | None, amount: int = 50_000) -> Slip:
    with transaction.atomic():
        slip = issue_slip(kind="marker", requested_by=boss, table=table, amount=amount)
        if box is not None:
            slip.drop_box = box
            slip.save(update_fields=["drop_box"])
    return slip


def test_markers_listed_must_be_marker_slips_in_that_box(
    removed: DropBox, open_table: Table, pit_boss: User, counter: User, login: Any
) -> None:
    inside = _marker(open_table, pit_boss, removed)
    elsewhere = _marker(open_table, pit_boss, None)
    with transaction.atomic():
        fill = issue_slip(kind="fill", requested_by=pit_boss, table=open_table, amount=1_000)
    url = f"/api/v1/drop-boxes/{removed.pk}/count"
    client = login(counter)

    for wrong in ([elsewhere.pk], [fill.pk], [inside.pk, inside.pk], [987_654]):
        refused = client.post(url, {"currency": {"10000": 3}, "markers": wrong}, format="json")
        assert refused.status_code == 400, (wrong, refused.content)
        assert "markers" in refused.json()["error"]["fields"]
    assert DropBox.objects.get(pk=removed.pk).status == "removed"

    counted = client.post(url, {"currency": {"10000": 3}, "markers": [inside.pk]}, format="json")
    assert counted.status_code == 200, counted.content
    assert inside.number in counted.json()["reason"]


def test_a_marker_not_ticked_is_named_on_the_drop_slip(
    removed: DropBox, open_table: Table, pit_boss: User, counter: User
) -> None:
    missing = _marker(open_table, pit_boss, removed)

    slip = count_box(actor=counter, box_id=removed.pk, currency={"10000": 3}, markers=[])

    assert f"Not found: {missing.number}" in slip.reason


def test_a_slip_stays_in_the_box_it_went_into(
    removed: DropBox, open_table: Table, pit_boss: User, box: DropBox
) -> None:
    marker = _marker(open_table, pit_boss, removed)
    other = DropBox.objects.get(table=open_table, status="at_table")

    marker.drop_box = other
    with pytest.raises(IntegrityError), transaction.atomic():
        marker.save(update_fields=["drop_box"])


def test_the_database_keeps_one_box_at_a_table(open_table: Table, box: DropBox) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        DropBox.objects.create(table=open_table, sequence=9, number="BOX-X-9", gaming_day=box.gaming_day)


def test_a_counted_box_says_what_it_said(removed: DropBox, counter: User) -> None:
    count_box(actor=counter, box_id=removed.pk, currency={"10000": 3})

    with pytest.raises(IntegrityError), transaction.atomic():
        DropBox.objects.filter(pk=removed.pk).update(counted=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        DropBox.objects.filter(pk=removed.pk).delete()


@pytest.mark.parametrize("role", [Role.ADMIN, Role.PIT_BOSS, Role.DEALER, Role.CASHIER, Role.AUDITOR])
def test_only_the_count_team_removes_and_counts(
    removed: DropBox, box: DropBox, login: Any, role: str
) -> None:
    client = login(factories.staff(role))
    following = DropBox.objects.get(table=box.table, status="at_table")

    remove = client.post(f"/api/v1/drop-boxes/{following.pk}/remove", {"seal": "S-3"}, format="json")
    count = client.post(f"/api/v1/drop-boxes/{removed.pk}/count", {"currency": {"10000": 3}}, format="json")

    assert (remove.status_code, count.status_code) == (403, 403)


def test_an_unknown_box_is_404(counter: User, login: Any) -> None:
    client = login(counter)

    assert client.post("/api/v1/drop-boxes/987654/remove", {"seal": "S"}, format="json").status_code == 404
    assert client.post("/api/v1/drop-boxes/987654/count", {"currency": {}}, format="json").status_code == 404


def test_the_list_filters_by_day_table_and_status(
    removed: DropBox, counter: User, pit_boss: User, auditor: User, dealer: User, login: Any
) -> None:
    following = DropBox.objects.get(table=removed.table, status="at_table")
    other_table = factories.TableFactory(actor=pit_boss, dealer=dealer)
    factories.open_table_for(other_table, inventory=10_000)
    player = factories.PlayerFactory(actor=factories.staff(Role.CASHIER))
    elsewhere = cash_buy_in(actor=dealer, table_id=other_table.pk, player_id=player.pk, amount=1_000).box
    day = removed.gaming_day.isoformat()

    for user in (counter, pit_boss, auditor):
        client = login(user)
        every = client.get("/api/v1/drop-boxes").json()
        assert [b["id"] for b in every["results"]] == [elsewhere.pk, following.pk, removed.pk]
        assert every["next"] is None
        by_table = client.get(f"/api/v1/drop-boxes?table={removed.table_id}").json()["results"]
        assert [b["id"] for b in by_table] == [following.pk, removed.pk]
        waiting = client.get("/api/v1/drop-boxes?status=removed").json()["results"]
        assert [b["id"] for b in waiting] == [removed.pk]
        assert len(client.get(f"/api/v1/drop-boxes?day={day}").json()["results"]) == 3
        day_before = (removed.gaming_day - dt.timedelta(days=1)).isoformat()
        assert client.get(f"/api/v1/drop-boxes?day={day_before}").json()["results"] == []
    row = login(counter).get("/api/v1/drop-boxes?status=removed").json()["results"][0]
    assert set(row) >= {
        "id",
        "number",
        "table",
        "gaming_day",
        "status",
        "recorded",
        "counted",
        "variance",
        "seal",
    }
    assert login(counter).get("/api/v1/drop-boxes?status=lost").status_code == 400
    assert login(dealer).get("/api/v1/drop-boxes").status_code == 403
