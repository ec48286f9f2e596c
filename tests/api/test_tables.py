"""Tables over HTTP: creation, listing, limits, dealers, counts, fills and credits, seats.

Money is checked on the table's own accounts and transfers (``meta.table``), never on the
cage's or over/short's running balance, which every table (and any other test session on
the same database) moves too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import QuerySet
from rest_framework.test import APIClient

from casino.models import ActionLog, Player, User
from casino.services import buy_in
from ledger.models import Account, Entry, Transfer
from ledger.services import Leg, post_transfer
from tables.accounts import OVER_SHORT, layout_code, open_layout, tray_code
from tables.models import LimitChange, Round, Seat, Table, TableSession
from tests.factories import PASSWORD, RUN, PlayerFactory, TableFactory, open_table_for

Login = Callable[[Any], APIClient]


def _url(table: Table, tail: str = "") -> str:
    return f"/api/v1/tables/{table.pk}{tail}"


def _tray(table: Table) -> int:
    return Account.objects.get(code=tray_code(table.pk)).balance


def _transfers(table: Table, kind: str | None = None) -> QuerySet[Transfer]:
    transfers = Transfer.objects.filter(meta__table=table.pk)
    return transfers if kind is None else transfers.filter(kind=kind)


def _moved(code: str, table: Table) -> int:
    """The net change to account ``code`` made by this table's transfers."""
    entries = Entry.objects.filter(account__code=code, transfer__meta__table=table.pk)
    return sum(entries.values_list("amount", flat=True))


def _audit(table: Table, action: str) -> ActionLog:
    return ActionLog.objects.get(action=action, object_id=str(table.pk))


# --- create, list, detail ---------------------------------------------------------------------


@pytest.mark.django_db
def test_pit_boss_creates_a_table(login: Login, pit_boss: User) -> None:
    name = f"Faro 1 {RUN}"
    body = {"name": name, "game": "faro", "min_bet": 500, "max_bet": 50_000, "rules": {"call_turn_pays": 3}}

    response = login(pit_boss).post("/api/v1/tables", body, format="json")

    assert response.status_code == 201
    table = Table.objects.get(name=name)
    assert response.json() == {
        "id": table.pk,
        "name": name,
        "game": "faro",
        "status": "closed",
        "min_bet": 500,
        "max_bet": 50_000,
        "ante": 0,
        "rules": {
            "chip": 100,
            "max_player_action": None,
            "call_turn_pays": 3,
            "cat_hop_pays": 2,
            "rake": None,
        },
        "dealer": None,
        "seats": [],
        "tray_balance": 0,
        "session": None,
    }
    assert table.tray.code == tray_code(table.pk)
    log = _audit(table, "table.created")
    assert (log.actor, log.object_type) == (pit_boss, "table")


@pytest.mark.parametrize("game", ["faro", "farmer", "fan_tan", "newmarket", "tonk", "stakes"])
@pytest.mark.django_db
def test_every_game_takes_its_default_rules(login: Login, admin: User, game: str) -> None:
    body = {"name": f"{game} {RUN}", "game": game, "min_bet": 100, "max_bet": 10_000, "ante": 100}

    response = login(admin).post("/api/v1/tables", body, format="json")

    assert response.status_code == 201, response.content
    assert response.json()["game"] == game
    assert response.json()["rules"]["chip"] == 100


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"rules": {"wild_jokers": True}}, "rules"),
        ({"rules": {"rake": 5}}, "rules"),  # Faro is house-banked
        ({"min_bet": 10_000, "max_bet": 5_000}, "max_bet"),
        ({"game": "poker"}, "game"),
    ],
    ids=["unknown rule", "rule the game forbids", "min above max", "unknown game"],
)
@pytest.mark.django_db
def test_table_creation_is_validated(
    login: Login, pit_boss: User, change: dict[str, Any], field: str
) -> None:
    body = {"name": f"Faro 9 {RUN}", "game": "faro", "min_bet": 500, "max_bet": 50_000, **change}
    trays = Account.objects.filter(code__startswith="tray:").count()

    response = login(pit_boss).post("/api/v1/tables", body, format="json")

    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not Table.objects.filter(name=body["name"]).exists()
    assert Account.objects.filter(code__startswith="tray:").count() == trays  # no orphan tray


@pytest.mark.django_db
def test_list_and_detail(login: Login, auditor: User, pit_boss: User, dealer: User) -> None:
    b = TableFactory(actor=pit_boss, name=f"B table {RUN}", dealer=dealer)
    a = TableFactory(actor=pit_boss, name=f"A table {RUN}", game="tonk", ante=100)
    client = login(auditor)

    listing = client.get("/api/v1/tables")
    detail = client.get(_url(b))

    assert listing.status_code == 200
    assert set(listing.json()) == {"results", "next"}
    mine = [row for row in listing.json()["results"] if row["id"] in {a.pk, b.pk}]
    assert [row["name"] for row in mine] == [a.name, b.name]  # by name
    assert mine[0] == client.get(_url(a)).json()
    assert (detail.json()["id"], detail.json()["dealer"], detail.json()["game"]) == (b.pk, dealer.pk, "faro")


@pytest.mark.django_db
def test_the_table_list_pages_by_name(login: Login, auditor: User, pit_boss: User) -> None:
    made = [TableFactory(actor=pit_boss, name=f"Page {RUN} {n}") for n in range(3)]
    client = login(auditor)

    seen: list[int] = []
    url: str | None = "/api/v1/tables?limit=2"
    while url:
        page = client.get(url).json()
        assert len(page["results"]) <= 2
        seen += [row["id"] for row in page["results"]]
        url = page["next"]

    assert len(seen) == len(set(seen))  # no table twice
    assert [pk for pk in seen if pk in {t.pk for t in made}] == [t.pk for t in made]


# --- limits and dealers -----------------------------------------------------------------------


@pytest.mark.django_db
def test_pit_boss_changes_limits_and_the_change_is_recorded(
    login: Login, pit_boss: User, table: Table
) -> None:
    response = login(pit_boss).patch(
        _url(table, "/limits"), {"min_bet": 1_000, "max_bet": 100_000}, format="json"
    )

    assert response.status_code == 200
    assert (response.json()["min_bet"], response.json()["max_bet"]) == (1_000, 100_000)
    change = LimitChange.objects.get(table=table)
    assert (
        change.changed_by,
        change.old_min_bet,
        change.old_max_bet,
        change.new_min_bet,
        change.new_max_bet,
    ) == (
        pit_boss,
        500,
        50_000,
        1_000,
        100_000,
    )
    assert _audit(table, "table.limits_changed").data == {
        "old": {"min_bet": 500, "max_bet": 50_000},
        "new": {"min_bet": 1_000, "max_bet": 100_000},
    }


@pytest.mark.django_db
def test_an_admin_changes_limits_dealers_may_not(
    login: Login, dealer: User, other_dealer: User, admin: User, table: Table
) -> None:
    """Limits are the pit's (API.md: pit_boss, admin); even the table's own dealer gets 403."""
    allowed = login(admin).patch(_url(table, "/limits"), {"min_bet": 200, "max_bet": 20_000}, format="json")
    assert allowed.status_code == 200
    for outsider in (dealer, other_dealer):
        refused = login(outsider).patch(
            _url(table, "/limits"), {"min_bet": 100, "max_bet": 100}, format="json"
        )
        assert refused.status_code == 403

    table.refresh_from_db()
    assert (table.min_bet, table.max_bet) == (200, 20_000)
    assert list(LimitChange.objects.filter(table=table).values_list("changed_by", flat=True)) == [admin.pk]


@pytest.mark.django_db
def test_limits_min_above_max_is_400(login: Login, pit_boss: User, table: Table) -> None:
    response = login(pit_boss).patch(
        _url(table, "/limits"), {"min_bet": 5_000, "max_bet": 1_000}, format="json"
    )

    assert response.status_code == 400
    assert not LimitChange.objects.filter(table=table).exists()


@pytest.mark.django_db
def test_pit_boss_assigns_a_dealer(login: Login, pit_boss: User, table: Table, other_dealer: User) -> None:
    response = login(pit_boss).post(_url(table, "/assign"), {"dealer": other_dealer.pk}, format="json")

    assert response.status_code == 200
    assert response.json()["dealer"] == other_dealer.pk
    log = ActionLog.objects.filter(action="table.dealer_assigned", object_id=str(table.pk)).latest("pk")
    assert (log.actor, log.data["to"]) == (pit_boss, other_dealer.pk)


@pytest.mark.django_db
def test_assigning_a_non_dealer_is_404(
    login: Login, pit_boss: User, table: Table, cashier: User, player: Player, other_dealer: User
) -> None:
    other_dealer.is_active = False
    other_dealer.save(update_fields=["is_active"])
    client = login(pit_boss)

    for not_a_dealer in (cashier.pk, player.user_id, other_dealer.pk, 10**12):
        response = client.post(_url(table, "/assign"), {"dealer": not_a_dealer}, format="json")
        assert response.status_code == 404, not_a_dealer

    table.refresh_from_db()
    assert table.dealer_id != other_dealer.pk


# --- open and close ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_first_opening_issues_the_bankroll_from_the_cage(login: Login, dealer: User, table: Table) -> None:
    response = login(dealer).post(_url(table, "/open"), {"opening_inventory": 250_000}, format="json")

    assert response.status_code == 201
    session = TableSession.objects.get(table=table)
    body = response.json()
    assert (body["id"], body["opening_inventory"], body["opening_ledger"], body["opening_variance"]) == (
        session.pk,
        250_000,
        0,
        0,
    )
    assert body["closed_at"] is None
    issue = _transfers(table, "table_issue").get()
    assert issue.meta == {"table": table.pk, "session": session.pk}
    assert _tray(table) == 250_000
    assert _moved("cage", table) == -250_000
    assert not _transfers(table, "count_variance").exists()
    detail = login(dealer).get(_url(table)).json()
    assert (detail["status"], detail["tray_balance"], detail["session"]["id"]) == (
        "open",
        250_000,
        session.pk,
    )
    log = ActionLog.objects.get(action="table.opened", object_id=str(session.pk))
    assert (log.actor, log.object_type) == (dealer, "tablesession")


@pytest.mark.django_db
def test_opening_an_open_table_is_409(login: Login, dealer: User, table: Table) -> None:
    open_table_for(table)

    response = login(dealer).post(_url(table, "/open"), {"opening_inventory": 100_000}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "table_open"
    assert TableSession.objects.filter(table=table).count() == 1


def _open_and_close(client: APIClient, table: Table, *, opening: int, closing: int) -> dict[str, Any]:
    assert client.post(_url(table, "/open"), {"opening_inventory": opening}, format="json").status_code == 201
    closed = client.post(_url(table, "/close"), {"closing_inventory": closing}, format="json")
    assert closed.status_code == 200, closed.content
    return closed.json()


@pytest.mark.django_db
def test_close_summary_with_fills_credits_drop_and_a_short_count(
    login: Login, dealer: User, pit_boss: User, cashier: User, table: Table
) -> None:
    client = login(dealer)
    assert client.post(_url(table, "/open"), {"opening_inventory": 100_000}, format="json").status_code == 201
    fill = client.post(_url(table, "/fills"), {"amount": 20_000}, format="json").json()
    on_its_way = client.post(_url(table, "/fills"), {"amount": 7_000}, format="json").json()
    credit = client.post(_url(table, "/credits"), {"amount": 5_000}, format="json").json()
    for slip in (fill, on_its_way):
        assert login(cashier).post(_url(table, f"/fills/{slip['id']}/approve")).status_code == 200
    for signer in (dealer, pit_boss):  # the first fill reaches the tray; the second is still in transit
        signed = login(signer).post(f"/api/v1/slips/{fill['id']}/sign", {"password": PASSWORD}, format="json")
        assert signed.status_code == 200, signed.content
    # The pit releases the credit: it counts from then, though the cage has not signed for it yet.
    assert login(pit_boss).post(_url(table, f"/credits/{credit['id']}/approve")).status_code == 200
    # A player buys $25.00 of chips with cash at the table: the cash into the box is the drop.
    gambler = PlayerFactory()
    bought = client.post(_url(table, "/cash-buy-ins"), {"player": gambler.pk, "amount": 2_500}, format="json")
    assert bought.status_code == 201, bought.content
    assert _tray(table) == 112_500

    response = client.post(_url(table, "/close"), {"closing_inventory": 109_500}, format="json")

    assert response.status_code == 200
    summary = response.json()
    assert {k: summary[k] for k in ("drop", "fills", "credits", "win", "variance")} == {
        "drop": 2_500,
        "fills": 20_000,
        "credits": 5_000,
        "win": 109_500 + 5_000 - 100_000 - 20_000,
        "variance": -3_000,
    }
    assert summary["closing_ledger"] == 112_500
    assert _tray(table) == 109_500
    assert _moved(OVER_SHORT, table) == 3_000
    assert _transfers(table, "count_variance").get().meta == {"table": table.pk, "stage": "closing"}
    table.refresh_from_db()
    assert table.status == "closed"
    session = TableSession.objects.get(table=table)
    assert ActionLog.objects.get(action="table.closed", object_id=str(session.pk)).data == {
        "count": 109_500,
        "win": -5_500,
        "variance": -3_000,
    }


@pytest.mark.parametrize("count", [90_000, 130_000], ids=["short", "over"])
@pytest.mark.django_db
def test_later_opening_records_the_variance_and_issues_nothing(
    login: Login, dealer: User, table: Table, count: int
) -> None:
    client = login(dealer)
    _open_and_close(client, table, opening=100_000, closing=100_000)

    response = client.post(_url(table, "/open"), {"opening_inventory": count}, format="json")

    assert response.status_code == 201
    assert (response.json()["opening_ledger"], response.json()["opening_variance"]) == (
        100_000,
        count - 100_000,
    )
    assert _transfers(table, "table_issue").count() == 1
    assert _moved("cage", table) == -100_000  # the first opening's bankroll only
    assert _tray(table) == count
    variance = _transfers(table, "count_variance").get()
    assert variance.meta == {"table": table.pk, "stage": "opening"}
    assert sorted(variance.entries.values_list("account__code", "amount")) == sorted(
        [(OVER_SHORT, 100_000 - count), (tray_code(table.pk), count - 100_000)]
    )


@pytest.mark.django_db
def test_exact_counts_make_no_variance_and_zero_win(login: Login, dealer: User, table: Table) -> None:
    summary = _open_and_close(login(dealer), table, opening=100_000, closing=100_000)

    assert (summary["drop"], summary["fills"], summary["credits"], summary["win"], summary["variance"]) == (
        0,
        0,
        0,
        0,
        0,
    )
    assert not _transfers(table, "count_variance").exists()


@pytest.mark.django_db
def test_close_is_refused_while_a_round_is_live(login: Login, dealer: User, table: Table) -> None:
    session = open_table_for(table)
    Round.objects.create(
        table=table, game=table.game, number=1, shoe="manual", started_by=dealer, session=session
    )

    response = login(dealer).post(_url(table, "/close"), {"closing_inventory": 100_000}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "round_live"
    session.refresh_from_db()
    assert session.closed_at is None


@pytest.mark.django_db
def test_closing_a_closed_table_is_409(login: Login, dealer: User, table: Table) -> None:
    response = login(dealer).post(_url(table, "/close"), {"closing_inventory": 0}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "table_closed"


# --- fills and credits: tests/slips/test_fills_and_credits.py -----------------------------------


# --- seats ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_seating_and_unseating(
    login: Login, dealer: User, table: Table, player: Player, other_player: Player
) -> None:
    open_table_for(table)
    client = login(dealer)

    first = client.post(_url(table, "/seats"), {"player": player.pk}, format="json")
    second = client.post(_url(table, "/seats"), {"player": other_player.pk, "seat": 7}, format="json")

    assert first.status_code == 201
    assert (first.json()["seat"], first.json()["player"], first.json()["name"]) == (1, player.pk, player.name)
    assert second.json()["seat"] == 7
    seats = client.get(_url(table)).json()["seats"]
    assert [(s["seat"], s["player"]) for s in seats] == [(1, player.pk), (7, other_player.pk)]

    left = client.delete(_url(table, f"/seats/{player.pk}"))

    assert left.status_code == 204
    seating = Seat.objects.get(player=player)
    assert seating.left_at is not None
    assert [s["player"] for s in client.get(_url(table)).json()["seats"]] == [other_player.pk]
    trail = ActionLog.objects.filter(action__startswith="seat.", object_id=str(seating.pk)).order_by("pk")
    assert list(trail.values_list("action", "actor")) == [("seat.taken", dealer.pk), ("seat.left", dealer.pk)]


@pytest.mark.django_db
def test_seat_taken_is_409(
    login: Login, dealer: User, table: Table, player: Player, other_player: Player
) -> None:
    open_table_for(table)
    client = login(dealer)
    client.post(_url(table, "/seats"), {"player": player.pk, "seat": 4}, format="json")

    response = client.post(_url(table, "/seats"), {"player": other_player.pk, "seat": 4}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "seat_taken"
    assert not Seat.objects.filter(player=other_player).exists()


@pytest.mark.django_db
def test_already_seated_elsewhere_is_409(
    login: Login, dealer: User, pit_boss: User, table: Table, player: Player
) -> None:
    elsewhere = TableFactory(actor=pit_boss, dealer=dealer)
    open_table_for(table)
    open_table_for(elsewhere)
    client = login(dealer)
    assert client.post(_url(elsewhere, "/seats"), {"player": player.pk}, format="json").status_code == 201

    response = client.post(_url(table, "/seats"), {"player": player.pk}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "already_seated"
    assert Seat.objects.filter(player=player, left_at__isnull=True).get().table == elsewhere


@pytest.mark.django_db
def test_unseat_with_chips_on_the_layout_is_409(
    login: Login, dealer: User, cashier: User, table: Table, player: Player
) -> None:
    open_table_for(table)
    client = login(dealer)
    client.post(_url(table, "/seats"), {"player": player.pk}, format="json")
    buy_in(actor=cashier, player=player, amount=5_000)
    open_layout(table_id=table.pk, player_id=player.pk, holder=f"user:{player.user_id}")
    post_transfer(
        key=f"bet:{player.pk}",
        kind="bet",
        legs=[Leg(debit=player.wallet.code, credit=layout_code(table.pk, player.pk), amount=1_000)],
    )

    response = client.delete(_url(table, f"/seats/{player.pk}"))

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "chips_in_play"
    assert Seat.objects.get(player=player).left_at is None


@pytest.mark.django_db
def test_closing_the_table_unseats_everyone(login: Login, dealer: User, table: Table, player: Player) -> None:
    open_table_for(table)
    client = login(dealer)
    client.post(_url(table, "/seats"), {"player": player.pk}, format="json")

    client.post(_url(table, "/close"), {"closing_inventory": 100_000}, format="json")

    assert Seat.objects.get(player=player).left_at is not None
    assert client.get(_url(table)).json()["seats"] == []
