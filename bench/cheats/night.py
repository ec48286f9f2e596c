"""A simulated night with cheats on top: the product's ``simulate_night`` plus ``--inject``/``--truth``.

    bench/run-night --inject split_stacker:0.5,colluders:1 --truth truth.json [simulate_night's options]
    .venv/bin/python -m bench.cheats [...]

Development only, like the cheats it plugs in (``bench.cheats.inject``): the installed product's
``simulate_night`` has no such options. Everything else is that command's: the same night from
the same seed, its summary, and its refusal of a database that holds real play
(``--allow-real-play``). Without ``--inject`` the night is the clean one.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from bench.cheats.inject import SCENARIOS, Injector, parse_inject
from tables.management.commands import simulate_night
from tables.simulation.night import NightSummary


class Command(simulate_night.Command):
    help = "A simulated night with cheats injected (--inject) and their ground truth (--truth)."

    injector: Injector | None = None

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--inject",
            default="",
            help=f"cheats to inject, scenario:rate comma list ({', '.join(SCENARIOS)}); "
            "see bench/cheats/inject.py for what each rate means",
        )
        parser.add_argument(
            "--truth", default="", help="write the injected scenarios' ground truth (JSON) here"
        )

    def night_hooks(self, options: dict[str, Any]) -> Injector | None:
        try:
            rates = parse_inject(options["inject"])
        except ValueError as error:
            raise CommandError(str(error)) from error
        if options["truth"] and not rates:
            raise CommandError("--truth needs --inject: a clean night has nothing to record.")
        self.injector = Injector(rates) if rates else None
        return self.injector

    def report(self, summary: NightSummary, options: dict[str, Any]) -> None:
        super().report(summary, options)
        if self.injector is None:
            return
        truth = self.injector.truth(options["truth"] or None)
        self.stdout.write(f"  {'scenarios injected':22} {len(truth['scenarios'])}")
        for item in truth["scenarios"]:
            kinds = ", ".join(spec["kind"] for spec in item["expected"]) or "nothing"
            self.stdout.write(f"  injected {item['scenario']} at {item['rate']}: expect {kinds}")
        if options["truth"]:
            self.stdout.write(f"  ground truth written to {options['truth']}")
