"""Issue 48: credit lines and markers at the table, through the API as the floor uses it.

An admin sets a line, a pit boss (never the one who set it) issues a marker at an open table, the
table's dealer signs it, the cage redeems it in parts, in cash or chips. At every step the line's
``outstanding`` is the ledger's markers receivable and the trial balance balances.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.cash.models import CashTransaction
from casino.models import Player, Role, User
from ledger.models import Account, Transfer
from tables.accounts import CAGE, MARKER_CREDIT, receivable_code, tray_code
from tables.credit.models import Marker
from tables.drop.models import DropBox
from tables.models import Table
from tests.factories import PASSWORD, PlayerFactory, TableFactory, open_table_for, staff

pytestmark = pytest.mark.django_db

TRAY = 200_000


def _balance(code: str) -> int:
    return int(Account.objects.get(code=code).balance)


class Credit:
    """One floor with a player on credit: the people, the table, and the calls they make."""

    def __init__(self, login: Any, table: Table, player: Player, **people: User) -> None:
        self.login, self.table, self.player = login, table, player
        self.admin, self.boss, self.dealer = people["admin"], people["boss"], people["dealer"]
        self.cashier, self.auditor = people["cashier"], people["auditor"]

    def set_line(self, limit: Any, *, by: User | None = None) -> Any:
        return self.login(by or self.admin).put(
            f"/api/v1/players/{self.player.pk}/credit-line", {"limit": limit}, format="json"
        )

    def line(self, *, by: User | None = None) -> Any:
        return self.login(by or self.cashier).get(f"/api/v1/players/{self.player.pk}/credit-line")

    def issue(self, amount: Any, *, by: User | None = None, headers: dict[str, str] | None = None) -> Any:
        return self.login(by or self.boss).post(
            f"/api/v1/tables/{self.table.pk}/markers",
            {"player": self.player.pk, "amount": amount},
            format="json",
            **({"headers": headers} if headers else {}),
        )

    def redeem(self, marker_id: int, amount: Any, method: str, *, by: User | None = None) -> Any:
        return self.login(by or self.cashier).post(
            f"/api/v1/markers/{marker_id}/redeem", {"amount": amount, "method": method}, format="json"
        )

    def trial_balance_balances(self) -> bool:
        answer = self.login(self.auditor).get("/api/v1/ledger/trial-balance").json()
        return bool(answer["total_debits"] == answer["total_credits"])


@pytest.fixture
def credit(
    login: Any, table: Table, admin: User, pit_boss: User, dealer: User, cashier: User, auditor: User
) -> Credit:
    open_table_for(table, inventory=TRAY)
    player = PlayerFactory(actor=cashier, name="Wyatt Earp", funded=30_000)
    return Credit(
        login, table, player, admin=admin, boss=pit_boss, dealer=dealer, cashier=cashier, auditor=auditor
    )


def test_an_admin_sets_a_line_and_staff_read_it_off_the_ledger(credit: Credit) -> None:
    answer = credit.set_line(500_000)

    assert answer.status_code == 200, answer.content
    assert answer.json() == {
        "player": credit.player.pk,
        "limit": 500_000,
        "outstanding": 0,
        "available": 500_000,
    }
    for reader in (credit.boss, credit.cashier, credit.auditor):
        assert credit.line(by=reader).json()["limit"] == 500_000
    own = credit.login(credit.player.user).get("/api/v1/players/me/credit-line")
    assert own.status_code == 200
    assert own.json()["available"] == 500_000
    other = PlayerFactory(actor=credit.cashier)
    assert credit.login(other.user).get(f"/api/v1/players/{credit.player.pk}/credit-line").status_code == 404
    assert credit.line(by=credit.dealer).status_code == 403
    assert credit.set_line(1_000, by=credit.boss).status_code == 403


def test_a_player_without_a_line_has_nothing_available(credit: Credit) -> None:
    assert credit.line().json() == {"player": credit.player.pk, "limit": 0, "outstanding": 0, "available": 0}

    refused = credit.issue(1_000)

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "credit_limit"
    assert "Wyatt Earp has no credit line" in refused.json()["error"]["message"]


@pytest.mark.parametrize("limit", [-1, 1.5, "100", None, True])
def test_a_limit_is_whole_cents_from_zero(credit: Credit, limit: Any) -> None:
    answer = credit.set_line(limit)

    assert answer.status_code == 400, answer.content
    assert set(answer.json()["error"]) == {"code", "message", "fields"}


def test_a_marker_moves_chips_and_debt_in_one_balanced_transfer(credit: Credit) -> None:
    credit.set_line(100_000)
    wallet, cage = _balance(credit.player.wallet.code), _balance(CAGE)

    answer = credit.issue(25_000)

    assert answer.status_code == 201, answer.content
    marker = answer.json()
    assert marker["kind"] == "marker"
    assert marker["number"].startswith("M-")
    assert marker["outstanding"] == 25_000
    assert marker["player"] == credit.player.pk
    assert marker["needs"] == ["dealer"]
    assert marker["status"] == "pending"
    assert _balance(tray_code(credit.table.pk)) == TRAY - 25_000
    assert _balance(credit.player.wallet.code) == wallet + 25_000
    assert _balance(receivable_code(credit.player.pk)) == 25_000
    assert _balance(MARKER_CREDIT) == -25_000
    assert _balance(CAGE) == cage
    box = DropBox.objects.get(table=credit.table, status="at_table")
    assert marker["drop_box"] == box.pk
    transfer = Transfer.objects.get(pk=Marker.objects.get(slip_id=marker["id"]).transfer_id)
    assert transfer.kind == "marker"
    assert transfer.entries.count() == 4
    assert credit.line().json() == {
        "player": credit.player.pk,
        "limit": 100_000,
        "outstanding": 25_000,
        "available": 75_000,
    }
    assert credit.trial_balance_balances()


def test_a_marker_beyond_the_available_credit_is_refused_in_words(credit: Credit) -> None:
    credit.set_line(100_000)
    assert credit.issue(80_000).status_code == 201
    transfers = Transfer.objects.count()

    refused = credit.issue(30_000)

    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "credit_limit"
    assert "Wyatt Earp has $200.00 of credit available" in error["message"]
    assert "over it by $100.00" in error["message"]
    assert Transfer.objects.count() == transfers
    assert Marker.objects.count() == 1


def test_whoever_set_the_line_never_issues_on_it(credit: Credit) -> None:
    """25 CFR 543.15: the admin who set a line, made a pit boss since, cannot issue a marker on it."""
    credit.set_line(50_000)
    credit.admin.role = Role.PIT_BOSS
    credit.admin.save()
    transfers = Transfer.objects.count()

    refused = credit.issue(1_000, by=credit.admin)

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "separation_of_duties"
    assert "another pit boss" in refused.json()["error"]["message"]
    assert Transfer.objects.count() == transfers
    assert credit.issue(1_000).status_code == 201


def test_the_dealer_of_the_table_signs_the_marker(credit: Credit) -> None:
    credit.set_line(100_000)
    marker = credit.issue(10_000).json()
    other = staff(Role.DEALER)

    wrong = credit.login(other).post(
        f"/api/v1/slips/{marker['id']}/sign", {"password": PASSWORD}, format="json"
    )
    signed = credit.login(credit.dealer).post(
        f"/api/v1/slips/{marker['id']}/sign", {"password": PASSWORD}, format="json"
    )

    assert wrong.status_code == 403
    assert signed.status_code == 200, signed.content
    assert signed.json()["status"] == "final"
    assert signed.json()["needs"] == []


def test_an_idempotency_key_issues_one_marker(credit: Credit) -> None:
    credit.set_line(100_000)
    key = {"Idempotency-Key": "marker-once"}

    first = credit.issue(10_000, headers=key)
    again = credit.issue(10_000, headers=key)

    assert first.status_code == again.status_code == 201
    assert again.json()["id"] == first.json()["id"]
    assert Marker.objects.count() == 1
    assert _balance(receivable_code(credit.player.pk)) == 10_000


def test_markers_only_at_an_open_table(credit: Credit, pit_boss: User, dealer: User) -> None:
    closed = TableFactory(actor=pit_boss, dealer=dealer)
    credit.set_line(100_000)

    refused = credit.login(credit.boss).post(
        f"/api/v1/tables/{closed.pk}/markers", {"player": credit.player.pk, "amount": 1_000}, format="json"
    )

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "table_closed"


def test_partial_redemptions_in_chips_and_cash(credit: Credit) -> None:
    credit.set_line(100_000)
    marker = credit.issue(40_000).json()
    cage, wallet = _balance(CAGE), _balance(credit.player.wallet.code)

    chips = credit.redeem(marker["id"], 15_000, "chips")
    cash = credit.redeem(marker["id"], 5_000, "cash")

    assert chips.status_code == 200, chips.content
    assert chips.json()["outstanding"] == 25_000
    assert cash.json()["outstanding"] == 20_000
    assert cash.json()["marker"]["redeemed"] == 20_000
    assert cash.json()["credit_line"]["outstanding"] == 20_000
    assert _balance(CAGE) == cage + 15_000
    assert _balance(credit.player.wallet.code) == wallet - 15_000
    assert _balance(receivable_code(credit.player.pk)) == 20_000
    assert credit.line().json()["available"] == 80_000
    assert credit.trial_balance_balances()


def test_a_payment_over_the_outstanding_is_refused(credit: Credit) -> None:
    credit.set_line(100_000)
    marker = credit.issue(10_000).json()
    credit.redeem(marker["id"], 4_000, "cash")

    over = credit.redeem(marker["id"], 7_000, "cash")

    assert over.status_code == 409
    assert over.json()["error"]["code"] == "over_outstanding"
    assert "$60.00 outstanding" in over.json()["error"]["message"]
    paid = credit.redeem(marker["id"], 6_000, "cash")
    assert paid.json()["outstanding"] == 0
    again = credit.redeem(marker["id"], 1, "cash")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "marker_paid"


def test_chips_the_player_does_not_have_are_refused_in_words(credit: Credit) -> None:
    credit.set_line(100_000)
    marker = credit.issue(50_000).json()  # the wallet: $300.00 bought in + $500.00 on the marker
    cashed = credit.login(credit.cashier).post(
        "/api/v1/cage/cash-outs", {"player": credit.player.pk, "amount": 79_000}, format="json"
    )
    assert cashed.status_code == 201, cashed.content

    refused = credit.redeem(marker["id"], 50_000, "chips")

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "insufficient_funds"
    assert "Wyatt Earp has $10.00 in chips" in refused.json()["error"]["message"]
    assert _balance(receivable_code(credit.player.pk)) == 50_000
    assert credit.redeem(marker["id"], 50_000, "cash").json()["outstanding"] == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [({"amount": 100, "method": "cheque"}, "method"), ({"amount": 0, "method": "cash"}, "amount")],
)
def test_a_redemption_needs_an_amount_and_cash_or_chips(
    credit: Credit, body: dict[str, Any], field: str
) -> None:
    credit.set_line(100_000)
    marker = credit.issue(10_000).json()

    answer = credit.login(credit.cashier).post(f"/api/v1/markers/{marker['id']}/redeem", body, format="json")

    assert answer.status_code == 400
    assert field in answer.json()["error"]["fields"]


def test_the_list_shows_what_is_owed_and_filters(credit: Credit) -> None:
    credit.set_line(100_000)
    first = credit.issue(10_000).json()
    second = credit.issue(20_000).json()
    credit.redeem(first["id"], 10_000, "cash")

    everything = credit.login(credit.auditor).get(f"/api/v1/markers?player={credit.player.pk}").json()
    owed = credit.login(credit.boss).get("/api/v1/markers?status=outstanding").json()
    paid = credit.login(credit.cashier).get("/api/v1/markers?status=redeemed").json()
    bad = credit.login(credit.cashier).get("/api/v1/markers?status=lost")

    assert [m["id"] for m in everything["results"]] == [second["id"], first["id"]]
    row = everything["results"][0]
    assert row["outstanding"] == 20_000
    assert row["days_outstanding"] == 0
    assert row["past_deadline"] is False
    assert [m["id"] for m in owed["results"]] == [second["id"]]
    assert [m["id"] for m in paid["results"]] == [first["id"]]
    assert bad.status_code == 400


def test_a_marker_past_the_collection_deadline_is_flagged(credit: Credit, settings: Any) -> None:
    credit.set_line(100_000)
    marker = credit.issue(10_000).json()
    settings.MARKER_COLLECTION_DAYS = -1  # its gaming day is already a day past the deadline

    row = credit.login(credit.auditor).get("/api/v1/markers").json()["results"][0]

    assert row["id"] == marker["id"]
    assert row["past_deadline"] is True


def test_cash_paid_on_a_marker_is_the_players_cash_in_for_title_31(
    login: Any, pit_boss: User, dealer: User, cashier: User, admin: User
) -> None:
    """$4,000.00 in cash is an MTL line of kind marker_redemption; $8,000.00 more, past the
    $10,000.00 line without identification on file, is refused and nothing moves."""
    table = TableFactory(actor=pit_boss, dealer=dealer)
    open_table_for(table, inventory=2_000_000)
    player = PlayerFactory(actor=cashier, name="Bat Masterson")
    login(admin).put(f"/api/v1/players/{player.pk}/credit-line", {"limit": 2_000_000}, format="json")
    marker = login(pit_boss).post(
        f"/api/v1/tables/{table.pk}/markers", {"player": player.pk, "amount": 1_500_000}, format="json"
    )
    assert marker.status_code == 201, marker.content
    url = f"/api/v1/markers/{marker.json()['id']}/redeem"

    paid = login(cashier).post(url, {"amount": 400_000, "method": "cash"}, format="json")
    refused = login(cashier).post(url, {"amount": 800_000, "method": "cash"}, format="json")

    assert paid.status_code == 200, paid.content
    line = CashTransaction.objects.get(player=player)
    assert (line.kind, line.direction, line.amount, line.mtl) == ("marker_redemption", "in", 400_000, True)
    assert line.transfer_id is not None
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "identification_required"
    assert _balance(receivable_code(player.pk)) == 1_100_000
    assert CashTransaction.objects.filter(player=player).count() == 1
