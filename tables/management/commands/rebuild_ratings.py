"""Recompute all ratings from the ledger's settlements and the rounds' actions."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tables.ratings.services import rebuild_ratings


class Command(BaseCommand):
    help = "Rebuild every round's ratings figures; gives the same numbers as the incremental task."

    def handle(self, *args: Any, **options: Any) -> None:
        count = rebuild_ratings()
        self.stdout.write(self.style.SUCCESS(f"Rebuilt ratings for {count} settled rounds."))
