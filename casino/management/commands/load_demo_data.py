"""Demo staff and players, and a floor where every game can run at once (tables.management.demo).

A fresh database gets last night first, with the clock set back to it (``time_machine``):
the cast is created and buys in at the cage, every table opens with its counted tray, deals
a few rounds and closes on its count. Then, back in the present, that gaming day is closed and
audited, and tonight's tables open on last night's counts with players seated. A second run
finds all of it there and changes nothing.

It refuses a database that holds real play (``tables.simulation.sandbox``: ledger transfers or
rounds the demo or a simulated night did not make) unless given ``--allow-real-play``.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import time_machine
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher, check_password, get_hasher
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.test.utils import override_settings

from casino.models import Player, Role, User
from casino.money import format_dollars
from casino.services import buy_in, create_player
from tables.management import demo
from tables.models import Table
from tables.simulation.sandbox import RealPlayFound, make_room_for_made_up_play

DEMO_PASSWORD = "casekeeper-demo-2026"
STAFF = [
    ("admin", "Ada Admin", Role.ADMIN),
    ("pitboss", "Pat Pitboss", Role.PIT_BOSS),
    ("dealer", "Dana Dealer", Role.DEALER),
    ("dealer2", "Dion Dealer", Role.DEALER),
    ("dealer3", "Della Dealer", Role.DEALER),
    ("dealer4", "Dexter Dealer", Role.DEALER),
    ("dealer5", "Dolly Dealer", Role.DEALER),
    ("dealer6", "Duke Dealer", Role.DEALER),
    ("dealer7", "Daisy Dealer", Role.DEALER),
    ("dealer8", "Drew Dealer", Role.DEALER),
    ("cashier", "Cass Cashier", Role.CASHIER),
    ("auditor", "Audrey Auditor", Role.AUDITOR),
    ("count", "Cora Count", Role.COUNT_TEAM),
    ("count2", "Cole Count", Role.COUNT_TEAM),
]
PLAYERS = [
    *("Wyatt Earp", "Doc Holliday", "Kate Elder", "Bat Masterson", "Lottie Deno", "Poker Alice"),
    *("Calamity Jane", "Wild Bill Hickok", "Annie Oakley", "Butch Cassidy", "Etta Place", "Pat Garrett"),
    *("Josie Marcus", "Virgil Earp", "Morgan Earp", "Luke Short", "Ben Thompson", "Eleanor Dumont"),
    *("Kitty LeRoy", "Canada Bill Jones", "George Devol", "Johnny Ringo", "Ike Clanton", "Buffalo Bill"),
    *("Charlie Siringo", "Bass Reeves", "Heck Thomas", "Bill Tilghman", "Mattie Silks", "Seth Bullock"),
    *("Charlie Utter", "Sam Bass", "Tom Horn", "Pearl Hart", "Laura Bullion", "Fannie Porter"),
    *("Dave Mather", "Clay Allison", "Jim Courtright", "Texas Jack", "Rowdy Kate", "Dora Hand"),
]
# Each demo table's dealer, in tables.management.demo.TABLES' order: Faro 1 is ``dealer``'s.
TABLE_DEALERS = ("dealer", "dealer3", "dealer4", "dealer5", "dealer6", "dealer7", "dealer8")
RELIEF_DEALER = "dealer2"  # holds no table: the pit boss assigns them to give a dealer a break
# A player's first buy-in, by their index. $3,500 is past the $3,000.00 MTL line (casino.cash): every
# fifth player's buy-in is a line of the day's multiple-transaction log, shown at the cage and in
# GET /api/v1/mtl.
BUY_INS = (50_000, 100_000, 150_000, 200_000, 350_000)


def username_of(name: str) -> str:
    return name.lower().replace(" ", ".")


class QuickDemoHasher(PBKDF2PasswordHasher):
    """PBKDF2 at 1,000 rounds, for demo accounts only; see ``quick_demo_hashes``."""

    iterations = 1_000


@contextmanager
def quick_demo_hashes() -> Iterator[None]:
    """Hash the demo password at 1,000 PBKDF2 rounds instead of Django's 1.2 million.

    Why: 54 accounts at half a second each would be most of the load time, for a password the
    command prints anyway. Django's own PBKDF2 hasher reads the rounds from the hash, so these
    verify as usual, and are re-hashed at full strength at each account's first sign-in.
    Settings with another default hasher (the tests' MD5) are left alone.
    """
    if get_hasher().algorithm != QuickDemoHasher.algorithm:
        yield
        return
    hashers = [f"{__name__}.QuickDemoHasher", *settings.PASSWORD_HASHERS]
    with override_settings(PASSWORD_HASHERS=hashers):
        yield


def ensure_staff() -> dict[str, User]:
    """The demo staff, with the demo password (set again only if it no longer matches)."""
    users: dict[str, User] = {}
    for username, name, role in STAFF:
        user = User.objects.filter(username=username).first() or User(username=username)
        user.name, user.role = name, role
        user.is_staff = role in {Role.ADMIN, Role.PIT_BOSS}
        user.is_superuser = role == Role.ADMIN
        if not check_password(DEMO_PASSWORD, user.password):
            user.set_password(DEMO_PASSWORD)
        user.save()
        users[username] = user
    return users


def ensure_tables(staff: dict[str, User]) -> list[Table]:
    """The demo tables, each with its own dealer (``TABLE_DEALERS``), created by the pit boss."""
    dealers = [staff[username] for username in TABLE_DEALERS]
    return demo.ensure_tables(pit_boss=staff["pitboss"], dealers=dealers)


def ensure_players(cashier: User) -> list[Player]:
    """Every demo player; one created now buys in at the cage at once."""
    players = []
    for index, name in enumerate(PLAYERS):
        username = username_of(name)
        player = Player.objects.select_related("wallet", "user").filter(user__username=username).first()
        if player is None:
            player = create_player(actor=cashier, username=username, password=DEMO_PASSWORD, name=name)
            buy_in(actor=cashier, player=player, amount=BUY_INS[index % len(BUY_INS)])
        players.append(player)
    return players


class Command(BaseCommand):
    help = "Load the demo floor (staff, players, tables, last night audited, tonight seated). Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--allow-real-play",
            action="store_true",
            help="load the demo into a database that holds real play (ledger transfers or rounds "
            "that the demo or a simulated night did not make)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        try:
            make_room_for_made_up_play(command="load_demo_data", allow_real_play=options["allow_real_play"])
        except RealPlayFound as error:
            raise CommandError(str(error)) from error
        with quick_demo_hashes():
            with transaction.atomic():
                staff = ensure_staff()
                fresh = not demo.has_history()
            if fresh:
                try:
                    moment = demo.last_night_moment()
                except RuntimeError as error:
                    raise CommandError(str(error)) from error
                with time_machine.travel(moment, tick=True) as clock, transaction.atomic():
                    rounds = self._last_night(staff, advance=clock.shift)
                self.stdout.write(f"Last night: {rounds} rounds dealt at {len(demo.TABLES)} tables.")
            with transaction.atomic():
                players = ensure_players(staff["cashier"])
                tables = ensure_tables(staff)
        report = demo.audit_last_day(tables=tables, auditor=staff["auditor"])
        if report is not None:
            self.stdout.write(f"Gaming day {report.gaming_day} closed and audited ({report.status}).")
        with transaction.atomic():
            demo.open_tonight(tables=tables, players=players, cashier=staff["cashier"])
            marker = demo.open_credit(tables=tables, admin=staff["admin"], pit_boss=staff["pitboss"])
        if marker is not None:
            self.stdout.write(
                f"Credit: {marker.player.name} has a {format_dollars(marker.credit_line.limit)} line "
                f"and owes {format_dollars(marker.outstanding)} on marker {marker.slip.number}."
            )
        self._print_accounts(time.monotonic() - started)

    def _last_night(self, staff: dict[str, User], advance: Callable[[dt.timedelta], Any]) -> int:
        players = ensure_players(staff["cashier"])
        return demo.deal_last_night(
            tables=ensure_tables(staff),
            players=players,
            advance=advance,
            count_team=(staff["count"], staff["count2"]),
            cashier=staff["cashier"],
        )

    def _print_accounts(self, seconds: float) -> None:
        self.stdout.write(self.style.SUCCESS(f"Demo data ready ({seconds:.0f} s). Sign in with these:"))
        self.stdout.write(f"  password for every account: {DEMO_PASSWORD}")
        deals = {username: spec.name for username, spec in zip(TABLE_DEALERS, demo.TABLES, strict=True)}
        deals[RELIEF_DEALER] = "relief: no table until the pit boss assigns one"
        for username, _, role in STAFF:
            what = f" ({deals[username]})" if username in deals else ""
            self.stdout.write(f"  {role:9} {username}{what}")
        names = [username_of(name) for name in PLAYERS]
        self.stdout.write(f"  players   {', '.join(names[:6])} and {len(names) - 6} more")
        self.stdout.write("  `dealer` deals Faro 1: open http://127.0.0.1:8000/console/")
