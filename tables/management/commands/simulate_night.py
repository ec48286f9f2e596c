"""Simulate a gaming day through the real services; the demo uses it to fill the floor.

It refuses a database that holds real play (``tables.simulation.sandbox``) unless given
``--allow-real-play``. The detection bench's night with cheats (``bench/cheats/night.py``) is this
command with its cheats plugged in (``night_hooks``, ``report``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from tables.simulation.floor import NightHooks
from tables.simulation.night import NightConfig, NightSummary, available_games, simulate_night
from tables.simulation.sandbox import RealPlayFound, make_room_for_made_up_play


class Command(BaseCommand):
    help = "Drive a realistic gaming day (cage, seats, rounds, fills, counts) deterministically from --seed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tables", type=int, default=12)
        parser.add_argument("--players", type=int, default=60)
        parser.add_argument("--rounds", type=int, default=12, help="rounds per table")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--count-errors", type=float, default=0.0, help="chance a closing count is off")
        parser.add_argument("--games", default="", help=f"comma list of {', '.join(available_games())}")
        parser.add_argument(
            "--stakes-rounds", type=int, default=1, help="rounds a card-room table deals per pass"
        )
        parser.add_argument(
            "--allow-real-play",
            action="store_true",
            help="add the night to a database that holds real play (ledger transfers or rounds "
            "that the demo or a simulated night did not make)",
        )

    def night_hooks(self, options: dict[str, Any]) -> NightHooks | None:
        """What plugs into the night (``NightHooks``): nothing here; refuse bad options with CommandError."""
        return None

    def handle(self, *args: Any, **options: Any) -> None:
        hooks = self.night_hooks(options)
        games = tuple(g for g in options["games"].split(",") if g) or None
        config = NightConfig(
            tables=options["tables"],
            players=options["players"],
            rounds=options["rounds"],
            seed=options["seed"],
            count_error_rate=options["count_errors"],
            games=games,
            stakes_rounds=max(1, options["stakes_rounds"]),
        )
        try:
            make_room_for_made_up_play(command="simulate_night", allow_real_play=options["allow_real_play"])
        except RealPlayFound as error:
            raise CommandError(str(error)) from error
        with tqdm(
            total=config.tables * config.rounds,
            unit="round",
            desc="Simulating",
            disable=options["verbosity"] == 0,
        ) as bar:
            summary = simulate_night(config, progress=bar.update, hooks=hooks)
        self.report(summary, options)

    def report(self, summary: NightSummary, options: dict[str, Any]) -> None:
        self.stdout.write(self.style.SUCCESS(f"Night done in {summary.seconds:.1f} s"))
        for label, value in (
            ("tables", summary.tables),
            ("rounds", summary.rounds),
            ("actions", summary.actions),
            ("refused actions", summary.refused),
            ("buy-ins", summary.buy_ins),
            ("cash-outs", summary.cash_outs),
            ("fills", summary.fills),
            ("credits", summary.credits),
            ("cash buy-ins at tables", summary.cash_buy_ins),
            ("drop boxes counted", summary.boxes_counted),
            ("dealer changes", summary.dealer_changes),
            ("count errors injected", len(summary.count_errors)),
            ("transfers", summary.transfers),
        ):
            self.stdout.write(f"  {label:22} {value}")
        for kind, n in summary.transfers_by_kind.items():
            self.stdout.write(f"    {kind:20} {n}")
