"""The injection scenarios' parsing and the stacked deck; the cheats live in the bench
(``bench.cheats``), not in the installed product, and plug into its night from there
(``bench/run-night``, the product's ``simulate_night`` with ``--inject`` and ``--truth``)."""

from __future__ import annotations

import hashlib
import io
import json
import tomllib
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bench.cheats import inject, night
from bench.cheats.inject import SCENARIOS, STACK_MIN_SPLITS, Injector, deal_splits, parse_inject
from tables.management.commands import simulate_night
from tables.models import Table
from tables.simulation import night as product_night
from tables.simulation.floor import NightHooks
from tables.simulation.night import Night, NightConfig

ROOT = Path(__file__).resolve().parents[2]


def test_scenarios_parse_with_rates() -> None:
    assert parse_inject("split_stacker:0.5, colluders:1,dumper") == {
        "split_stacker": 0.5,
        "colluders": 1.0,
        "dumper": 1.0,
    }
    assert parse_inject("") == {}
    assert set(SCENARIOS) >= {
        "split_stacker",
        "colluders",
        "dumper",
        "structurer",
        "fill_abuser",
        "short_count",
    }


@pytest.mark.parametrize("text", ["tarot:1", "colluders:0", "colluders:1.5", "colluders:x"])
def test_bad_scenarios_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_inject(text)


def test_a_clean_night_plugs_in_nothing_and_the_cheats_plug_in_as_its_hooks() -> None:
    assert type(Night(NightConfig()).hooks) is NightHooks
    cheats = Injector({"dumper": 1.0})
    cheating = Night(NightConfig(seed=4), hooks=cheats)
    assert cheating.hooks is cheats
    assert cheats.night is cheating


def test_the_cheats_are_not_installed_with_the_product() -> None:
    """pyproject.toml installs the packages its ``packages.find`` names (as setuptools matches
    them): the night, whose bots the demo deals with, and not the cheats."""
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    include = found["include"]

    def installed(module_name: str) -> bool:
        package = module_name.rpartition(".")[0]
        return any(fnmatchcase(package, pattern) for pattern in include)

    assert installed(product_night.__name__)
    assert not installed(inject.__name__)
    assert not installed(night.__name__)
    assert not hasattr(product_night, "Injector")


def test_the_products_night_has_no_cheat_options_and_the_benchs_has() -> None:
    product = simulate_night.Command().create_parser("manage.py", "simulate_night")
    with pytest.raises(CommandError, match="unrecognized arguments: --inject"):
        product.parse_args(["--inject", "dumper:1"])
    bench = night.Command().create_parser("bench/run-night", "night")
    assert vars(bench.parse_args(["--inject", "dumper:1", "--truth", "t.json"]))["inject"] == "dumper:1"


def test_fair_decks_average_the_textbook_splits_and_stacked_candidates_exist() -> None:
    seeds = [hashlib.sha256(f"fair:{i}".encode()).hexdigest() for i in range(2000)]
    splits = [deal_splits(seed) for seed in seeds]
    assert sum(splits) / len(splits) == pytest.approx(25 / 17, abs=0.08)
    assert any(s >= STACK_MIN_SPLITS for s in splits)  # a stacker finds one among 2000 candidates


@pytest.mark.parametrize(
    ("options", "message"),
    [({"inject": "tarot:1"}, "Unknown scenario"), ({"truth": "truth.json"}, "--truth needs --inject")],
)
def test_the_bench_night_refuses_bad_injection_options(options: dict[str, str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command(night.Command(), verbosity=0, **options)


@pytest.mark.django_db
@pytest.mark.usefixtures("system_accounts")
def test_the_bench_night_plays_the_cheats_and_writes_their_truth(tmp_path: Path) -> None:
    truth = tmp_path / "truth.json"
    out = io.StringIO()
    call_command(
        night.Command(),
        tables=1,
        players=6,
        rounds=1,
        games="faro",
        inject="colluders:1",
        truth=str(truth),
        stdout=out,
        verbosity=0,
    )
    written = json.loads(truth.read_text())
    assert [item["scenario"] for item in written["scenarios"]] == ["colluders"]
    colluders = written["scenarios"][0]
    assert colluders["expected"] == [{"kind": "chip_flow", "pair": colluders["subjects"]["players"]}]
    assert "injected colluders at 1.0: expect chip_flow" in out.getvalue()
    assert f"ground truth written to {truth}" in out.getvalue()
    # The table the colluders sit at, added after the night's own.
    assert Table.objects.get(pk=colluders["subjects"]["table"]).name == "Sim Card room 2"
