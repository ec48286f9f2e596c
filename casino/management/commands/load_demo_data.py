"""Demo staff (printed passwords), players with chips, and a table of every game."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from casino.models import Player, Role, User
from casino.services import buy_in, create_player
from tables.models import Table
from tables.services import assign_dealer, create_table

DEMO_PASSWORD = "casekeeper-demo-2026"
STAFF = [
    ("admin", "Ada Admin", Role.ADMIN),
    ("pitboss", "Pat Pitboss", Role.PIT_BOSS),
    ("dealer", "Dana Dealer", Role.DEALER),
    ("dealer2", "Dion Dealer", Role.DEALER),
    ("cashier", "Cass Cashier", Role.CASHIER),
    ("auditor", "Audrey Auditor", Role.AUDITOR),
]
PLAYERS = ["Wyatt Earp", "Doc Holliday", "Kate Elder", "Bat Masterson", "Lottie Deno", "Poker Alice"]
TABLES: list[dict[str, Any]] = [
    {"name": "Faro 1", "game": "faro", "min_bet": 500, "max_bet": 50000},
    {"name": "Faro 2", "game": "faro", "min_bet": 1000, "max_bet": 100000},
    {"name": "Farmer 1", "game": "farmer", "min_bet": 100, "max_bet": 5000, "ante": 500},
    {"name": "Fan Tan 1", "game": "fan_tan", "min_bet": 100, "max_bet": 5000, "ante": 100},
    {"name": "Newmarket 1", "game": "newmarket", "min_bet": 100, "max_bet": 5000, "ante": 100},
    {"name": "Tonk 1", "game": "tonk", "min_bet": 100, "max_bet": 10000, "ante": 500},
    {
        "name": "Card room 1",
        "game": "stakes",
        "min_bet": 100,
        "max_bet": 5000,
        "ante": 200,
        "rules": {"variant": "gops"},
    },
]


class Command(BaseCommand):
    help = "Create demo staff, players and tables (idempotent). Prints the demo passwords."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        users: dict[str, User] = {}
        for username, name, role in STAFF:
            user = User.objects.filter(username=username).first() or User(username=username)
            user.name, user.role = name, role
            user.is_staff = role in {Role.ADMIN, Role.PIT_BOSS}
            user.is_superuser = role == Role.ADMIN
            user.set_password(DEMO_PASSWORD)
            user.save()
            users[username] = user
        for index, name in enumerate(PLAYERS):
            username = name.lower().replace(" ", ".")
            player = Player.objects.filter(user__username=username).first()
            if player is None:
                player = create_player(
                    actor=users["cashier"], username=username, password=DEMO_PASSWORD, name=name
                )
                buy_in(actor=users["cashier"], player=player, amount=200_000 + 50_000 * index)
        skipped = []
        for spec in TABLES:
            if Table.objects.filter(name=spec["name"]).exists():
                continue
            try:
                table = create_table(actor=users["pitboss"], **spec)
            except ImportError:
                skipped.append(spec["name"])
                continue
            dealer = (
                users["dealer"]
                if spec["game"] == "faro" or spec["name"].startswith("F")
                else users["dealer2"]
            )
            assign_dealer(actor=users["pitboss"], table_id=table.pk, dealer_id=dealer.pk)
        self.stdout.write(self.style.SUCCESS("Demo data ready. Sign in with these (password for all):"))
        self.stdout.write(f"  password: {DEMO_PASSWORD}")
        for username, _, role in STAFF:
            self.stdout.write(f"  {role:9} {username}")
        self.stdout.write(f"  players   {', '.join(p.lower().replace(' ', '.') for p in PLAYERS)}")
        if skipped:
            self.stdout.write(self.style.WARNING(f"Skipped (engine not installed): {', '.join(skipped)}"))
