"""The cash compliance endpoints of API.md: identification, cash activity, the MTL, the CTRs."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.cash.models import CashRefusal, Identification
from casino.models import Player, User
from casino.services import buy_in, cash_out
from ledger.gaming_day import gaming_day_for
from tests import factories

Login = Callable[[Any], APIClient]
pytestmark = [pytest.mark.django_db]

ID = {
    "kind": "passport",
    "number": "X1234567",
    "issued_by": "United States",
    "name": "Calamity Jane",
    "birth_date": "1956-05-01",
    "address": "1 Deadwood Gulch, Deadwood SD 57732",
}


def test_a_refused_buy_in_answers_409_and_is_written_down(
    login: Login, cashier: User, player: Player
) -> None:
    client = login(cashier)

    refused = client.post("/api/v1/cage/buy-ins", {"player": player.pk, "amount": 1_200_000}, format="json")

    assert refused.status_code == 409, refused.content
    error = refused.json()["error"]
    assert error["code"] == "identification_required"
    assert player.name in error["message"]
    assert "$12,000.00" in error["message"]
    assert error["fields"]["would_be"] == 1_200_000
    (refusal,) = CashRefusal.objects.filter(player=player)
    assert (refusal.kind, refusal.amount, refusal.day_total, refusal.where, refusal.by) == (
        "cage_buy_in", 1_200_000, 0, "Cage", cashier,
    )  # fmt: skip

    made = client.post(f"/api/v1/players/{player.pk}/identification", ID, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert {k: body[k] for k in ID} == ID
    assert body["player"] == player.pk
    assert body["recorded_by"] == cashier.name

    done = client.post("/api/v1/cage/buy-ins", {"player": player.pk, "amount": 1_200_000}, format="json")
    assert done.status_code == 201, done.content
    assert CashRefusal.objects.filter(player=player).count() == 1


def test_identification_refuses_bad_input(login: Login, pit_boss: User, player: Player) -> None:
    client = login(pit_boss)
    for change in ({"kind": "library_card"}, {"number": ""}, {"birth_date": "2999-01-01"}, {"address": "  "}):
        response = client.post(f"/api/v1/players/{player.pk}/identification", {**ID, **change}, format="json")
        assert response.status_code == 400, (change, response.content)
        assert set(response.json()["error"]) == {"code", "message", "fields"}
    assert not Identification.objects.exists()


def test_cash_activity_lists_the_days_entries(
    login: Login, cashier: User, auditor: User, player: Player
) -> None:
    buy_in(actor=cashier, player=player, amount=250_000)
    buy_in(actor=cashier, player=player, amount=100_000)
    cash_out(actor=cashier, player=player, amount=50_000)

    body = login(auditor).get(f"/api/v1/players/{player.pk}/cash-activity").json()

    assert body["player"] == player.pk
    assert body["gaming_day"] == gaming_day_for().isoformat()
    assert (body["cash_in"], body["cash_out"]) == (350_000, 50_000)
    assert [(e["kind"], e["amount"], e["where"], e["by"], e["mtl"]) for e in body["entries"]] == [
        ("cage_buy_in", 250_000, "Cage", cashier.name, False),
        ("cage_buy_in", 100_000, "Cage", cashier.name, True),
        ("cage_cash_out", 50_000, "Cage", cashier.name, False),
    ]
    earlier = login(auditor).get(f"/api/v1/players/{player.pk}/cash-activity?day=2026-01-02").json()
    assert (earlier["cash_in"], earlier["cash_out"], earlier["entries"]) == (0, 0, [])
    bad = login(auditor).get(f"/api/v1/players/{player.pk}/cash-activity?day=yesterday")
    assert bad.status_code == 400


def test_the_mtl_lists_the_days_lines_newest_first_a_page_at_a_time(
    login: Login, cashier: User, player: Player, other_player: Player
) -> None:
    buy_in(actor=cashier, player=player, amount=300_000)
    buy_in(actor=cashier, player=other_player, amount=10_000)
    buy_in(actor=cashier, player=other_player, amount=350_000)
    cash_out(actor=cashier, player=other_player, amount=50_000)

    first = login(cashier).get("/api/v1/mtl?limit=1").json()
    rest = login(cashier).get(first["next"]).json()

    rows = first["results"] + rest["results"]
    assert [(r["player"], r["kind"], r["amount"], r["where"], r["by"]) for r in rows] == [
        (other_player.pk, "cage_buy_in", 350_000, "Cage", cashier.name),
        (player.pk, "cage_buy_in", 300_000, "Cage", cashier.name),
    ]
    assert rest["next"] is None
    assert login(cashier).get("/api/v1/mtl?day=2026-01-02").json()["results"] == []


def test_the_ctrs_give_form_112s_fields_as_json_and_csv(login: Login, cashier: User, auditor: User) -> None:
    player = factories.PlayerFactory(actor=cashier, name="Calamity Jane")
    small = factories.PlayerFactory(actor=cashier)
    login(cashier).post(f"/api/v1/players/{player.pk}/identification", ID, format="json")
    buy_in(actor=cashier, player=player, amount=800_000)
    buy_in(actor=cashier, player=player, amount=700_000)
    buy_in(actor=cashier, player=small, amount=900_000)

    (report,) = login(auditor).get("/api/v1/ctrs").json()

    assert report["player"] == player.pk
    assert report["name"] == "Calamity Jane"
    assert report["identification"] == ID
    assert (report["cash_in"], report["cash_out"], report["directions"]) == (1_500_000, 0, ["cash_in"])
    assert [t["amount"] for t in report["transactions"]] == [800_000, 700_000]
    response = login(auditor).get("/api/v1/ctrs?format=csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 1
    assert rows[0]["id_number"] == "X1234567"
    assert rows[0]["birth_date"] == "1956-05-01"
    assert (rows[0]["cash_in"], rows[0]["transactions"]) == ("1500000", "2")
    assert login(auditor).get("/api/v1/ctrs?format=xml").status_code == 400
