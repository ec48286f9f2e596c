"""factory_boy factories for people and accounts; they go through the services where money is involved."""

from __future__ import annotations

import secrets
from typing import Any

import factory
from django.conf import settings

from casino.models import Player, Role, User
from ledger.models import AccountKind, AccountPurpose
from ledger.services import open_account

PASSWORD = "correct-horse-battery-42"
# Usernames carry this run's tag: a test database another session commits to at the same
# time (a transactional test) must not make "user7" of this run collide with "user7" of that one.
RUN = secrets.token_hex(3)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}-{RUN}")
    name = factory.Faker("name")
    role = Role.DEALER
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @classmethod
    def _after_postgeneration(cls, instance: User, create: bool, results: Any = None) -> None:
        if create:
            instance.save()


def staff(role: str, **kwargs: Any) -> User:
    return UserFactory(role=role, **kwargs)


def wallet_account(code: str, **kwargs: Any) -> Any:
    return open_account(code=code, kind=AccountKind.LIABILITY, purpose=AccountPurpose.WALLET, **kwargs)


def token_for(user: User) -> str:
    from casino.services import issue_token

    return issue_token(user=user)


class PlayerFactory(factory.django.DjangoModelFactory):
    """A player and their wallet, made by ``casino.services.create_player`` (as the cage would).

    ``funded`` buys chips in through ``casino.services.buy_in`` at a cashier's hand.
    """

    class Meta:
        model = Player

    username = factory.Sequence(lambda n: f"player{n}-{RUN}")
    password = PASSWORD
    name = factory.Faker("name")
    actor = None
    funded = 0

    @classmethod
    def _create(cls, model_class: type[Player], *args: Any, **kwargs: Any) -> Player:
        from casino.services import buy_in, create_player

        funded = kwargs.pop("funded", 0)
        actor = kwargs.pop("actor", None)
        player = create_player(actor=actor, **kwargs)
        if funded:
            cashier = actor if actor is not None and actor.role == Role.CASHIER else staff(Role.CASHIER)
            if funded > settings.CTR_THRESHOLD:  # the cage asks for ID first (casino.cash)
                identified(player, by=cashier)
            buy_in(actor=cashier, player=player, amount=funded)
            player.wallet.refresh_from_db()
        return player


def identified(player: Player, *, by: User | None = None) -> Any:
    """An identification on file for ``player`` (``casino.cash``): their cash may pass the CTR line."""
    import datetime as dt

    from casino.cash.services import record_identification

    return record_identification(
        actor=by or staff(Role.CASHIER),
        player=player,
        kind="drivers_license",
        number=f"D{player.pk:07d}",
        issued_by="NV",
        name=player.name,
        birth_date=dt.date(1979, 5, 17),
        address="100 Fremont Street, Las Vegas NV 89101",
    )


class TableFactory(factory.django.DjangoModelFactory):
    """A table made by ``tables.services.create_table`` (so it gets its tray account).

    ``dealer`` assigns a dealer through ``assign_dealer`` (by a pit boss).
    """

    class Meta:
        model = "tables.Table"

    actor = factory.SubFactory(UserFactory, role=Role.PIT_BOSS)
    name = factory.Sequence(lambda n: f"Table {n} {RUN}")
    game = "faro"
    min_bet = 500
    max_bet = 50_000
    ante = 0
    rules = factory.LazyFunction(dict)
    dealer = None

    @classmethod
    def _create(cls, model_class: type[Any], *args: Any, **kwargs: Any) -> Any:
        from tables.services import assign_dealer, create_table

        dealer = kwargs.pop("dealer", None)
        actor = kwargs.pop("actor")
        table = create_table(actor=actor, **kwargs)
        if dealer is not None:
            boss = actor if actor.role == Role.PIT_BOSS else staff(Role.PIT_BOSS)
            table = assign_dealer(actor=boss, table_id=table.pk, dealer_id=dealer.pk)
        return table


def open_table_for(table: Any, *, inventory: int = 100_000) -> Any:
    """Open ``table`` with a counted tray, as its assigned dealer does at the start of a shift."""
    from tables.services import open_table

    return open_table(actor=table.dealer, table_id=table.pk, opening_inventory=inventory)


class ApiFloor:
    """A casino floor driven only through the HTTP API, as a cage, a pit and a dealer would.

    Staff are made by ``staff`` and sign in with ``token_for``; everything after that (tables,
    players, buy-ins, seats, rounds, actions, reads) is a request through DRF's APIClient.
    Helpers check the documented status code and return the JSON body, so a test reads as
    the sequence of calls a client makes. Used by tests/tables/test_rounds_*_http.py.
    """

    def __init__(self) -> None:
        self.pit_boss = staff(Role.PIT_BOSS)
        self.dealer = staff(Role.DEALER)
        self.cashier = staff(Role.CASHIER)
        self._clients: dict[int, Any] = {}
        self._made = 0
        self.table_ids: list[int] = []  # the tables this floor opened, for checks scoped to them

    def client(self, user: User) -> Any:
        from rest_framework.test import APIClient

        if user.pk not in self._clients:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
            self._clients[user.pk] = client
        return self._clients[user.pk]

    @staticmethod
    def expect(response: Any, status: int) -> Any:
        body = response.json() if response.content else None
        assert response.status_code == status, f"expected {status}, got {response.status_code}: {body}"
        return body

    def post(self, user: User, path: str, body: Any, status: int, **headers: Any) -> Any:
        return self.expect(self.client(user).post(f"/api/v1/{path}", body, format="json", **headers), status)

    def get(self, user: User, path: str) -> Any:
        return self.expect(self.client(user).get(f"/api/v1/{path}"), 200)

    def _serial(self) -> int:
        self._made += 1
        return self._made

    def open_table(
        self, *, game: str, min_bet: int, max_bet: int, ante: int = 0, rules: Any = None, inventory: int
    ) -> dict[str, Any]:
        """Create (pit boss), assign the dealer (pit boss), open with a counted tray (dealer)."""
        body = {"name": f"{game} {id(self)}-{self._serial()}", "game": game, "min_bet": min_bet}
        body.update(max_bet=max_bet, ante=ante, rules=rules or {})
        table = self.post(self.pit_boss, "tables", body, 201)
        self.table_ids.append(int(table["id"]))
        self.post(self.pit_boss, f"tables/{table['id']}/assign", {"dealer": self.dealer.pk}, 200)
        self.post(self.dealer, f"tables/{table['id']}/open", {"opening_inventory": inventory}, 201)
        return self.table(table["id"])

    def table(self, table_id: int) -> dict[str, Any]:
        return self.get(self.pit_boss, f"tables/{table_id}")

    def tray(self, table_id: int) -> int:
        return int(self.table(table_id)["tray_balance"])

    def new_player(self, *, buy_in: int) -> int:
        """A player created and bought in at the cage; returns the player id."""
        n = self._serial()
        body = {"username": f"punter{id(self)}x{n}", "password": PASSWORD, "name": f"Punter {n}"}
        player = self.post(self.cashier, "players", body, 201)
        if buy_in:
            self.post(self.cashier, "cage/buy-ins", {"player": player["id"], "amount": buy_in}, 201)
        return int(player["id"])

    def seat(self, table_id: int, player_id: int, seat: int | None = None) -> None:
        body: dict[str, Any] = {"player": player_id} if seat is None else {"player": player_id, "seat": seat}
        self.post(self.dealer, f"tables/{table_id}/seats", body, 201)

    def start_round(self, table_id: int, shoe: str) -> dict[str, Any]:
        return self.post(self.dealer, f"tables/{table_id}/rounds", {"shoe": shoe}, 201)

    def round(self, round_id: int) -> dict[str, Any]:
        return self.get(self.pit_boss, f"rounds/{round_id}")

    def act(self, round_id: int, action: dict[str, Any], *, status: int = 200, key: str | None = None) -> Any:
        """One round action by the assigned dealer; returns the round (or the error body)."""
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
        return self.post(self.dealer, f"rounds/{round_id}/actions", action, status, **headers)

    def balance(self, player_id: int) -> dict[str, Any]:
        return self.get(self.cashier, f"players/{player_id}/balance")

    def close_table(self, table_id: int, closing_inventory: int) -> dict[str, Any]:
        body = {"closing_inventory": closing_inventory}
        return self.post(self.dealer, f"tables/{table_id}/close", body, 200)

    def assert_rounds_replay(self) -> None:
        """Every round at this floor's tables replays exactly: ``check_round`` on each, then the
        ``replay_round`` command (``--all`` when the database holds no other rounds, as in a
        normal run; by id when another process is committing rounds to the same database)."""
        from io import StringIO

        from django.core.management import call_command

        from tables.models import Round
        from tables.replay import check_round

        rounds = list(Round.objects.filter(table_id__in=self.table_ids).order_by("pk"))
        for round_ in rounds:
            result = check_round(round_)
            assert result.ok, f"round {round_.pk}: {result.problems}"
        out = StringIO()
        if not Round.objects.exclude(table_id__in=self.table_ids).exists():
            call_command("replay_round", "--all", stdout=out)
        elif rounds:
            call_command("replay_round", *[r.pk for r in rounds], stdout=out)
        else:
            return
        assert "All rounds replay exactly." in out.getvalue()


# --- pot and stakes games through the API (tests/tables/test_rounds_{fan_tan,newmarket,tonk,stakes}_http.py)


def without_settlements(round_: dict[str, Any]) -> dict[str, Any]:
    """A round minus its settlement list, to compare an action's answer (which lists only what
    that action moved, API.md) with a GET (which lists them all); ``settlements_count`` stays."""
    return {key: value for key, value in round_.items() if key != "settlements"}


def table_money(table_id: int, players: Any) -> dict[str, int]:
    """Every balance a round at this table can move: the players' wallets, the table's pots,
    its tray and the rake taken at it (the ``rake`` account is shared, so only its entries
    for this table count). The values sum to a constant across any round (chips conserved).
    """
    from django.db.models import Sum

    from ledger.models import Account, AccountPurpose, Entry

    wallets = Player.objects.filter(pk__in=list(players)).values_list("pk", "wallet__balance")
    money = {f"wallet:{pk}": balance for pk, balance in wallets}
    prefix = f"pot:{table_id}:"
    pots = Account.objects.filter(code__startswith=prefix, purpose=AccountPurpose.POT).values_list(
        "code", "balance"
    )
    money.update({f"pot:{code[len(prefix) :]}": balance for code, balance in pots})
    money["tray"] = Account.objects.get(code=f"tray:{table_id}").balance
    rake = Entry.objects.filter(account__code="rake", transfer__meta__table=table_id).aggregate(
        total=Sum("amount")
    )
    money["rake"] = rake["total"] or 0
    return money


def play_out(floor: ApiFloor, round_id: int, prefer: Any, *, limit: int = 600) -> dict[str, Any]:
    """Drive a live round to its end through the API, as a console offering legal moves only.

    Each step sends the first concrete legal action (``Engine.legal_actions``) of the first
    type in ``prefer`` that has one. The engine state is replayed from the stored round once,
    then stepped alongside the API (engines are pure, so the two must stay equal).
    """
    from tables.games.registry import engine_for
    from tables.models import Round
    from tables.round_state import fold

    stored = Round.objects.get(pk=round_id)
    engine = engine_for(stored.game)
    state = fold(stored)
    current = floor.round(round_id)
    for _ in range(limit):
        if current["status"] not in ("betting", "in_play"):
            return current
        legal = [a for a in engine.legal_actions(state) if "needs" not in a]
        action = next(a for kind in prefer for a in legal if a["type"] == kind)
        current = floor.act(round_id, action)
        state, _ = engine.apply(state, action)
        assert current["state"] == engine.public_state(state)
    raise AssertionError(f"round {round_id} did not finish in {limit} actions")
