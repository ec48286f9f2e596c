"""Replay rounds from their actions and check state and settlements against what was stored."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.models import Round, RoundStatus
from tables.replay import check_round


class Command(BaseCommand):
    help = "Replay one round (or --all settled rounds) and report any mismatch. Exits 1 on a mismatch."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("round_ids", nargs="*", type=int)
        parser.add_argument("--all", action="store_true", help="every settled round")

    def handle(self, *args: Any, **options: Any) -> None:
        rounds = Round.objects.filter(pk__in=options["round_ids"])
        if options["all"]:
            rounds = Round.objects.filter(status=RoundStatus.SETTLED)
        if not options["all"] and not options["round_ids"]:
            raise CommandError("Name round ids or pass --all.")
        failures = 0
        for round_ in rounds.order_by("pk").iterator():
            result = check_round(round_)
            if result.ok:
                self.stdout.write(f"round {round_.pk}: ok")
            else:
                failures += 1
                self.stdout.write(self.style.ERROR(f"round {round_.pk}: {'; '.join(result.problems)}"))
        if failures:
            raise CommandError(f"{failures} round(s) do not replay.")
        self.stdout.write(self.style.SUCCESS("All rounds replay exactly."))
