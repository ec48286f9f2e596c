"""The end-of-night audit through the API and a real Celery worker (Redis broker, PostgreSQL).

A simulated night (tables.simulation.night) is force-closed through
``POST /api/v1/gaming-days/{today}/close``; the worker runs ``run_audit_task``. The report's
numbers are checked against sums taken straight from the ledger here (``Entry`` and
``Transfer``), never from the audit's own code; then a night with count errors, a tampered
round and a tampered ledger entry must show each of them as a finding.
"""

from __future__ import annotations

import io
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.db.models import Sum

from casino.models import Player, User
from ledger.gaming_day import gaming_day_for
from ledger.models import ClosedGamingDay, Entry, Transfer
from tables.audit.models import AuditReport
from tables.models import Round, RoundAction, RoundSettlement, Seat, Table
from tables.ratings.models import RoundStat
from tables.simulation.night import NightConfig, NightSummary, simulate_night
from tests.audit.conftest import TaskStates

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fast_commits")]

NON_PLAY = ("fill", "credit", "table_issue", "count_variance", "cash_buy_in")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "audit"


def _night(**overrides: Any) -> NightSummary:
    config = NightConfig(tables=3, players=9, rounds=2, seed=7, games=("faro",))
    for key, value in overrides.items():
        setattr(config, key, value)
    return simulate_night(config)


def _close(client: Any, day: str, task_states: TaskStates, wait: Callable[[str], Any]) -> dict[str, Any]:
    response = client.post(f"/api/v1/gaming-days/{day}/close", {"force": True}, format="json")
    assert response.status_code == 202, response.content
    task_id = response.json()["task_id"]
    outcome = wait(task_id)
    assert outcome["status"] == "done"
    progress = [s["result"] for s in task_states.of(task_id) if s["status"] == "PROGRESS"]
    assert progress, "the task never reported PROGRESS"
    assert progress[-1]["done"] == progress[-1]["total"] > 0
    assert all(p["done"] <= p["total"] for p in progress)
    report = client.get(f"/api/v1/gaming-days/{day}/report")
    assert report.status_code == 200
    body = report.json()
    assert body["status"] == "done"
    assert body["task_id"] == task_id
    return body


# --------------------------------------------------------------------------- the ledger, directly


def _entries(day: Any, **filters: Any) -> int:
    return Entry.objects.filter(transfer__gaming_day=day, **filters).aggregate(s=Sum("amount"))["s"] or 0


def ledger_table(day: Any, table: Table) -> dict[str, int]:
    """One table's numbers summed from the ledger's entries (not from sessions or the audit)."""
    tray = {"account": table.tray}
    play = _entries(day, **tray) - sum(_entries(day, transfer__kind=kind, **tray) for kind in NON_PLAY)
    fills = _entries(day, transfer__kind="fill", **tray)
    credits = -_entries(day, transfer__kind="credit", **tray)
    opener = _entries(day, transfer__kind="table_issue", **tray)  # a fresh table's first count
    closer = Entry.objects.filter(account=table.tray).aggregate(s=Sum("amount"))["s"]
    return {
        "ledger_win": play,
        "fills": fills,
        "credits": credits,
        "opener": opener,
        "closer": closer,
        "win": closer + credits - opener - fills,
    }


def ledger_player(day: Any, player: Player) -> dict[str, int]:
    wallet = {"account": player.wallet}
    return {
        # cash in: chips bought with cash at the cage or at a table (casino.cash's one definition)
        "cash_in": _entries(day, transfer__kind__in=["buy_in", "cash_buy_in"], **wallet),
        "cash_out": -_entries(day, transfer__kind="cash_out", **wallet),
        "result": Entry.objects.filter(transfer__gaming_day=day, account=player.wallet)
        .filter(transfer__meta__has_key="table")
        .exclude(transfer__kind="cash_buy_in")  # chips bought with cash at a table: not play
        .aggregate(s=Sum("amount"))["s"]
        or 0,
    }


# --------------------------------------------------------------------------- tests


def test_a_simulated_night_closes_and_matches_the_ledger(
    auditor: User, login: Any, audit_worker: Any, task_states: TaskStates, wait_for_task: Callable[[str], Any]
) -> None:
    summary = _night()
    assert summary.rounds > 0
    assert summary.actions > 0
    day = gaming_day_for()
    client = login(auditor)
    early = client.post(f"/api/v1/gaming-days/{day}/close", {}, format="json")
    assert early.status_code == 409
    assert early.json()["error"]["code"] == "gaming_day_open"

    report = _close(client, day.isoformat(), task_states, wait_for_task)

    assert ClosedGamingDay.objects.filter(day=day).exists()
    assert report["findings"] == [], report["findings"]
    assert all(check["passed"] for check in report["checks"]), report["checks"]
    tables = {row["id"]: row for row in report["tables"]}
    assert set(tables) == set(summary.table_ids)
    regulator = {row["key"]: row for row in report["win"]["by_table"]}
    assert summary.cash_buy_ins > 0
    assert summary.boxes_counted > 0
    for table in Table.objects.filter(pk__in=summary.table_ids):
        expected = ledger_table(day, table)
        row = tables[table.pk]
        for key, value in expected.items():
            assert row[key] == value, (table.name, key, row[key], value)
        assert row["variance"] == 0
        assert not row["variance_flagged"]
        # Handle and house win are the ratings' (README "Handle, win, theo, decisions"): chips on
        # decided bets, so a Faro stack handed back undecided after the hock is not handle. With
        # no count variance and Faro's no rake, the rounds' win is the count's and the ledger's.
        rated = RoundStat.objects.filter(table=table).aggregate(handle=Sum("handle"), win=Sum("win"))
        assert (row["handle"], row["house_win"]) == (rated["handle"] or 0, rated["win"] or 0)
        # Chips sold for cash at the table left the tray for the drop box: the count's win misses
        # them, the regulator's win (drop − fills + credits + closer − opener) has them back.
        sold = -_entries(day, transfer__kind="cash_buy_in", account=table.tray)
        assert row["house_win"] == row["ledger_win"] == row["win"] + sold
        drop_row = regulator[str(table.pk)]
        assert (drop_row["win"], drop_row["electronic_win"], drop_row["difference"]) == (
            row["ledger_win"],
            row["ledger_win"],
            0,
        )
        assert row["hold_pct"] == (
            round(100 * row["house_win"] / row["handle"], 2) if row["handle"] else None
        )
        if row["handle"]:
            # theo may be negative: the odd bet favours the player early in a deal (faro_edge)
            band = row["theo_band"]
            assert row["theo"] is not None
            assert row["bets"] > 0
            assert band["low_pct"] < row["theo_hold_pct"] < band["high_pct"]
    assert report["summary"]["handle"] == sum(t["handle"] for t in tables.values())
    assert report["summary"]["rounds"] == Round.objects.count()

    players = {row["id"]: row for row in report["players"]}
    for player in Player.objects.all():
        expected = ledger_player(day, player)
        for key, value in expected.items():
            assert players[player.pk][key] == value, (player.pk, key)
    for player_id, row in players.items():
        seconds = sum(
            ((seat.left_at or seat.seated_at) - seat.seated_at).total_seconds()
            for seat in Seat.objects.filter(player_id=player_id)
        )
        assert row["minutes"] == round(seconds / 60)
        assert bool(row["tables"]) == Seat.objects.filter(player_id=player_id).exists() or row["handle"] > 0
    assert report["dealers"]
    assert all(d["minutes"] >= 0 for d in report["dealers"])
    assert sum(d["handle"] for d in report["dealers"]) == report["summary"]["handle"]

    debits = -(Entry.objects.filter(amount__lt=0).aggregate(s=Sum("amount"))["s"] or 0)
    credits = Entry.objects.filter(amount__gt=0).aggregate(s=Sum("amount"))["s"] or 0
    trial = report["trial_balance"]
    assert trial["balanced"]
    assert trial["total_debits"] == debits == credits == trial["total_credits"]
    # cash in at the cage and at the tables: casino.cash's one definition (Title 31's day totals)
    cash_in = _entries(day, transfer__kind__in=["buy_in", "cash_buy_in"], account__purpose="wallet")
    assert report["cage"]["cash_in"] == cash_in

    # A rerun replaces the report on the same row and moves no chips.
    transfers = Transfer.objects.count()
    again = _close(client, day.isoformat(), task_states, wait_for_task)
    assert Transfer.objects.count() == transfers
    assert AuditReport.objects.count() == 1
    assert again["runs"] == 2
    assert ClosedGamingDay.objects.filter(day=day).count() == 1
    assert again["tables"] == report["tables"]
    assert again["summary"] == report["summary"]


def test_count_errors_and_tampering_are_all_findings(
    auditor: User, login: Any, audit_worker: Any, task_states: TaskStates, wait_for_task: Callable[[str], Any]
) -> None:
    summary = _night(count_error_rate=1.0, seed=11)
    day = gaming_day_for()
    errors = {e["table"]: e["error"] for e in summary.count_errors}
    assert len(errors) == summary.tables

    # A round's stored settlement changed behind the application's back (no trigger on tables rows).
    settlement = RoundSettlement.objects.filter(kind="loss").order_by("pk").first()
    assert settlement is not None
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tables_roundsettlement SET amount = amount + 100 WHERE id = %s", [settlement.pk]
        )
    # Another round's recorded action rewritten: a bet that was never placed that way.
    bet = (
        RoundAction.objects.filter(payload__type="bet")
        .exclude(round_id=settlement.round_id)
        .order_by("pk")
        .first()
    )
    assert bet is not None
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tables_roundaction"
            " SET payload = jsonb_set(payload, '{amount}', to_jsonb((payload->>'amount')::bigint + 500))"
            " WHERE id = %s",
            [bet.pk],
        )
    # A ledger entry changed with the append-only and zero-sum triggers switched off for the session.
    entry = Entry.objects.filter(transfer__kind="buy_in", account__code="cage").order_by("pk").first()
    assert entry is not None
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        try:
            cursor.execute("UPDATE ledger_entry SET amount = amount - 100 WHERE id = %s", [entry.pk])
        finally:
            cursor.execute("SET session_replication_role = DEFAULT")

    report = _close(login(auditor), day.isoformat(), task_states, wait_for_task)

    kinds: dict[str, list[dict[str, Any]]] = {}
    for item in report["findings"]:
        kinds.setdefault(item["kind"], []).append(item)
    flagged = {f["table"]: f["amount"] for f in kinds.get("count_variance", [])}
    assert flagged == {table: error for table, error in errors.items() if abs(error) > 2500}
    for row in report["tables"]:
        assert row["variance"] == errors[row["id"]] == row["recorded_variance"]
        assert row["variance_flagged"] == (abs(errors[row["id"]]) > 2500)
    assert {v["table"]: v["amount"] for v in report["variances"] if v["stage"] == "closing"} == errors

    replayed = {f["round"] for f in kinds["round_replay_mismatch"]}
    assert replayed == {settlement.round_id, bet.round_id}
    assert [f["transfer"] for f in kinds["settlement_ledger_mismatch"]] == [settlement.transfer_id]
    assert [f["transfer"] for f in kinds["transfer_not_zero_sum"]] == [entry.transfer_id]
    assert kinds["transfer_not_zero_sum"][0]["amount"] == -100
    assert kinds["transfer_not_zero_sum"][0]["message"].endswith("entries summing to −$1.00, not $0.00.")
    assert [f["evidence"]["account"] for f in kinds["account_balance_mismatch"]] == ["cage"]
    assert "cents" not in kinds["account_balance_mismatch"][0]["message"]  # dollars, as people read them
    failed = {c["name"] for c in report["checks"] if not c["passed"]}
    assert failed == {
        "zero_sum",
        "account_balances",
        "settlements_vs_ledger",
        "round_replay",
        "trial_balance",
    }
    assert not report["trial_balance"]["balanced"]
    assert (
        report["summary"]["critical"]
        == len([f for f in report["findings"] if f["severity"] == "critical"])
        >= 6
    )

    # The files: a real PDF (rendered to PNG for a person to look at) and the CSV archive.
    client = login(auditor)
    pdf = client.get(f"/api/v1/gaming-days/{day.isoformat()}/report", {"format": "pdf"})
    assert pdf.status_code == 200
    assert pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / "report.pdf"
    target.write_bytes(pdf.content)
    for old in SCREENSHOTS.glob("report-page-*.png"):
        old.unlink()
    subprocess.run(
        ["pdftoppm", "-r", "70", "-png", str(target), str(SCREENSHOTS / "report-page")], check=True
    )
    pages = sorted(SCREENSHOTS.glob("report-page-*.png"))
    assert len(pages) >= 4
    assert all(page.stat().st_size > 10_000 for page in pages)

    archive = client.get(f"/api/v1/gaming-days/{day.isoformat()}/report", {"format": "csv"})
    assert archive.status_code == 200
    assert archive["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(archive.content)) as files:
        names = {name.split("/", 1)[1] for name in files.namelist()}
        assert {"summary.csv", "tables.csv", "findings.csv", "variances.csv", "trial_balance.csv"} <= names
        findings_csv = files.read(f"audit-{day.isoformat()}/findings.csv").decode()
        assert findings_csv.startswith("severity,kind,message")
        assert findings_csv.count("\n") == len(report["findings"]) + 1
        tables_csv = files.read(f"audit-{day.isoformat()}/tables.csv").decode().splitlines()
        assert len(tables_csv) == len(report["tables"]) + 1
