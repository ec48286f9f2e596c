"""Simulate a gaming day through the real services; the demo uses it to fill the floor."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from tables.simulation.inject import SCENARIOS, parse_inject
from tables.simulation.night import NightConfig, available_games, simulate_night


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
            "--inject",
            default="",
            help=f"cheats to inject, scenario:rate comma list ({', '.join(SCENARIOS)}); "
            "see tables/simulation/inject.py for what each rate means",
        )
        parser.add_argument(
            "--truth", default="", help="write the injected scenarios' ground truth (JSON) here"
        )
        parser.add_argument(
            "--stakes-rounds", type=int, default=1, help="rounds a card-room table deals per pass"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        games = tuple(g for g in options["games"].split(",") if g) or None
        try:
            inject = parse_inject(options["inject"])
        except ValueError as error:
            raise CommandError(str(error)) from error
        if options["truth"] and not inject:
            raise CommandError("--truth needs --inject: a clean night has nothing to record.")
        config = NightConfig(
            tables=options["tables"],
            players=options["players"],
            rounds=options["rounds"],
            seed=options["seed"],
            count_error_rate=options["count_errors"],
            games=games,
            inject=inject,
            truth_path=options["truth"] or None,
            stakes_rounds=max(1, options["stakes_rounds"]),
        )
        with tqdm(
            total=config.tables * config.rounds,
            unit="round",
            desc="Simulating",
            disable=options["verbosity"] == 0,
        ) as bar:
            summary = simulate_night(config, progress=bar.update)
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
            ("dealer changes", summary.dealer_changes),
            ("count errors injected", len(summary.count_errors)),
            ("transfers", summary.transfers),
            ("scenarios injected", len(inject)),
        ):
            self.stdout.write(f"  {label:22} {value}")
        for kind, n in summary.transfers_by_kind.items():
            self.stdout.write(f"    {kind:20} {n}")
        if summary.truth is not None:
            for item in summary.truth["scenarios"]:
                kinds = ", ".join(spec["kind"] for spec in item["expected"]) or "nothing"
                self.stdout.write(f"  injected {item['scenario']} at {item['rate']}: expect {kinds}")
            if options["truth"]:
                self.stdout.write(f"  ground truth written to {options['truth']}")
