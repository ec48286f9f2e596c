"""The end-of-night audit and corrections (issue 20, item 9): replay, ledger, figures, report.

A day with a voided Faro bet, a misdeal voided whole and a correction left pending is audited
by the real service (``run_audit``): the replay folds only the actions that stand (seqs with
gaps), the reversals are checked as the mirrors of what they reverse, voided rows count in no
handle, and the report lists every correction with who asked, who decided and why, in the
JSON, the page, the PDF and the CSV. Then the corrections' records are tampered with, and
each tampering must be a finding.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from typing import Any

import pytest
from django.db import connection
from django.db.models import Sum
from django.test import Client

from casino.models import User
from ledger.gaming_day import gaming_day_for
from ledger.models import Entry, Transfer
from tables.api.audit_views import ReportOutputSerializer, report_envelope
from tables.audit.models import AuditReport
from tables.audit.render_pdf import render_pdf
from tables.audit.services import run_audit
from tables.models import Correction, Round, RoundAction, RoundSettlement
from tests.factories import ApiFloor

pytestmark = pytest.mark.django_db

TRAY = 1_000_000
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@pytest.fixture
def floor(system_accounts: None) -> ApiFloor:
    return ApiFloor()


def _table(floor: ApiFloor, game: str, players: int, ante: int = 0) -> tuple[int, list[int]]:
    table = floor.open_table(game=game, min_bet=100, max_bet=10_000, ante=ante, inventory=TRAY)
    ids = [floor.new_player(buy_in=50_000) for _ in range(players)]
    for seat, player in enumerate(ids, start=1):
        floor.seat(int(table["id"]), player, seat)
    return int(table["id"]), ids


def _correct(floor: ApiFloor, round_id: int, void: Any, reason: str, *, approve: bool = True) -> int:
    asked = floor.post(floor.dealer, f"rounds/{round_id}/corrections", {"void": void, "reason": reason}, 201)
    if approve:
        floor.post(floor.pit_boss, f"corrections/{asked['id']}/approve", {}, 200)
    return int(asked["id"])


def _fan_tan_plays(floor: ApiFloor, round_id: int, count: int) -> None:
    from tables.games.registry import engine_for
    from tables.round_state import fold

    stored = Round.objects.get(pk=round_id)
    engine = engine_for(stored.game)
    state = fold(stored)
    for _ in range(count):
        legal = [a for a in engine.legal_actions(state) if "needs" not in a]
        action = next(a for kind in ("deal", "play", "pass") for a in legal if a["type"] == kind)
        floor.act(round_id, action)
        state, _ = engine.apply(state, action)


def _handle(round_ids: list[int]) -> int:
    """A pot game's handle (README): every chip paid out of a wallet by the rows that stand."""
    rows = RoundSettlement.objects.filter(round_id__in=round_ids, from_account__startswith="wallet:")
    return sum(r.amount for r in rows)


def _finish_faro(floor: ApiFloor, round_id: int) -> None:
    """Key the rest of a manual Faro deck, two cards a turn, then the last three."""
    state = floor.round(round_id)["state"]
    out = {state["soda"]} | {t[k] for t in state["turns"] for k in ("banker", "player")}
    rest = [rank + suit for suit in "SHDC" for rank in RANKS if rank + suit not in out]
    for i in range(0, len(rest) - 3, 2):
        floor.act(round_id, {"type": "turn", "cards": rest[i : i + 2]})
    floor.act(round_id, {"type": "last_turn", "cards": rest[-3:]})


def _finish_fan_tan(floor: ApiFloor, round_id: int) -> None:
    while floor.round(round_id)["status"] != "settled":
        _fan_tan_plays(floor, round_id, 1)


def _audit(auditor: User) -> dict[str, Any]:
    report = AuditReport.objects.create(
        gaming_day=gaming_day_for(), requested_at=dt.datetime.now(tz=dt.UTC), requested_by=auditor
    )
    done = run_audit(report_id=report.pk)
    envelope = report_envelope(done)
    shape = ReportOutputSerializer(data=envelope)
    assert shape.is_valid(), shape.errors
    return envelope


@pytest.fixture
def corrected_day(floor: ApiFloor) -> dict[str, Any]:
    """Faro: bet voided then a new bet and a turn; Fan Tan: a misdeal, then a new round;
    a second Faro table: a correction still pending."""
    faro, (punter,) = _table(floor, "faro", 1)
    faro_round = floor.start_round(faro, "manual")["id"]
    floor.act(faro_round, {"type": "soda", "card": "3D"})
    floor.act(faro_round, {"type": "bet", "player": punter, "ranks": ["K"], "amount": 2_000})
    bet_void = _correct(floor, faro_round, "last", "bet keyed for the wrong player")
    floor.act(faro_round, {"type": "bet", "player": punter, "ranks": ["9"], "amount": 1_000})
    floor.act(faro_round, {"type": "turn", "cards": ["9S", "KH"]})  # the 9 loses: 1,000 to the tray
    seqs = list(
        RoundAction.all_objects.filter(round_id=faro_round).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == [1, 2, 4, 5]  # the correction took version 3: the seqs that stand have gaps

    fan_tan, _players = _table(floor, "fan_tan", 3, ante=100)
    misdeal = floor.start_round(fan_tan, "electronic")["id"]
    _fan_tan_plays(floor, misdeal, 4)
    misdeal_moved = Entry.objects.filter(transfer__meta__round=misdeal, amount__gt=0).aggregate(
        s=Sum("amount")
    )["s"]
    round_void = _correct(floor, misdeal, "round", "misdeal: two cards dealt face up")
    redeal = floor.start_round(fan_tan, "electronic")["id"]
    _fan_tan_plays(floor, redeal, 2)

    other, (second,) = _table(floor, "faro", 1)
    pending_round = floor.start_round(other, "manual")["id"]
    floor.act(pending_round, {"type": "bet", "player": second, "ranks": ["Q"], "amount": 500})
    pending = _correct(floor, pending_round, "last", '=HYPERLINK("x") wrong rank', approve=False)
    return {
        "faro": faro,
        "faro_round": faro_round,
        "punter": punter,
        "bet_void": bet_void,
        "fan_tan": fan_tan,
        "misdeal": misdeal,
        "misdeal_moved": misdeal_moved,
        "redeal": redeal,
        "round_void": round_void,
        "other": other,
        "pending_round": pending_round,
        "pending": pending,
    }


def test_the_audit_replays_rounds_as_corrected_and_counts_no_voided_handle(
    floor: ApiFloor, auditor: User, corrected_day: dict[str, Any]
) -> None:
    day = corrected_day
    # Handle is a settled round's figure (RoundStat): finish the corrected deals so they have one.
    _finish_faro(floor, day["faro_round"])
    _finish_fan_tan(floor, day["redeal"])
    report = _audit(auditor)

    failed = {c["name"] for c in report["checks"] if not c["passed"]}
    assert failed == {"rounds_finished"}, report["findings"]  # the pending deal is still live, by design
    kinds = {f["kind"] for f in report["findings"]}
    assert kinds <= {"table_open", "round_live", "correction_pending"}, report["findings"]
    assert report["summary"]["critical"] == 0
    pending = [f for f in report["findings"] if f["kind"] == "correction_pending"]
    assert [(f["severity"], f["round"]) for f in pending] == [("warning", day["pending_round"])]
    assert "correction still pending" in pending[0]["message"].lower()
    # The reversals were checked, not skipped: the day's check counts them.
    vs_ledger = next(c for c in report["checks"] if c["name"] == "settlements_vs_ledger")
    reversals = Transfer.objects.filter(kind="reversal").count()
    assert reversals >= 2
    assert vs_ledger["checked"] >= reversals

    tables = {t["id"]: t for t in report["tables"]}
    faro = tables[day["faro"]]
    assert faro["handle"] == 1_000  # the voided 2,000 bet is no handle
    assert faro["ledger_win"] == 1_000  # the reversal nets the voided bet out of the tray
    assert faro["bets"] == 1  # theo counts only the bet that stands
    players = {p["id"]: p for p in report["players"]}
    assert players[day["punter"]]["handle"] == 1_000
    assert players[day["punter"]]["result"] == -1_000
    fan_tan = tables[day["fan_tan"]]
    assert fan_tan["handle"] == _handle([day["redeal"]]) > 0
    assert fan_tan["rounds"] == 1  # the misdeal was never played
    assert report["summary"]["rounds_voided"] == 1
    assert report["summary"]["rounds"] == Round.objects.count() - 1
    assert sum(d["handle"] for d in report["dealers"]) == report["summary"]["handle"]


def test_the_report_lists_every_correction_who_asked_who_approved_and_why(
    floor: ApiFloor, auditor: User, corrected_day: dict[str, Any]
) -> None:
    day = corrected_day
    report = _audit(auditor)
    rows = {c["id"]: c for c in report["corrections"]}
    assert list(rows) == [day["bet_void"], day["round_void"], day["pending"]]
    assert report["summary"]["corrections"] == 3
    assert report["summary"]["corrections_pending"] == 1
    dealer = floor.dealer.name or floor.dealer.username
    boss = floor.pit_boss.name or floor.pit_boss.username

    bet = rows[day["bet_void"]]
    bet_correction = Correction.objects.get(pk=day["bet_void"])
    assert (bet["table"], bet["round"], bet["round_number"]) == (day["faro"], day["faro_round"], 1)
    assert (bet["whole_round"], bet["actions"], bet["voided"]) == (False, [2], "action 2")
    assert (bet["reason"], bet["status"]) == ("bet keyed for the wrong player", "approved")
    assert (bet["requested_by"], bet["requested_by_name"]) == (floor.dealer.pk, dealer)
    assert (bet["decided_by"], bet["decided_by_name"]) == (floor.pit_boss.pk, boss)
    assert bet["requested_at"]
    assert bet["decided_at"]
    assert bet["reversals"] == bet_correction.reversals
    assert len(bet["reversals"]) == 1
    assert bet["amount_reversed"] == 2_000

    whole = rows[day["round_void"]]
    assert (whole["whole_round"], whole["voided"], whole["round"]) == (True, "whole round", day["misdeal"])
    assert whole["actions"] == [1, 2, 3, 4]
    assert whole["amount_reversed"] == day["misdeal_moved"] > 0
    assert set(whole["reversals"]) == set(
        Transfer.objects.filter(reverses__meta__round=day["misdeal"]).values_list("pk", flat=True)
    )

    pending = rows[day["pending"]]
    assert (pending["status"], pending["decided_by"], pending["decided_by_name"]) == ("pending", None, None)
    assert (pending["actions"], pending["reversals"], pending["amount_reversed"]) == ([1], [], 0)

    # The page and the PDF show the section; the CSV archive has it as a file of its own.
    client = Client()
    client.force_login(auditor)
    page = client.get(f"/audit/{report['gaming_day']}/").content.decode()
    assert "Corrections (3)" in page
    for text in ("bet keyed for the wrong player", "misdeal: two cards dealt face up", "whole round", boss):
        assert text in page
    assert render_pdf(report).startswith(b"%PDF-")
    archive = client.get(f"/api/v1/gaming-days/{report['gaming_day']}/report", {"format": "csv"})
    with zipfile.ZipFile(io.BytesIO(archive.content)) as files:
        text = files.read(f"audit-{report['gaming_day']}/corrections.csv").decode()
    lines = list(csv.DictReader(io.StringIO(text)))
    assert [int(r["id"]) for r in lines] == list(rows)
    assert lines[0]["requested_by_name"] == dealer
    assert lines[0]["decided_by_name"] == boss
    assert lines[1]["voided"] == "whole round"
    assert lines[2]["reason"] == '\'=HYPERLINK("x") wrong rank'  # never a formula in a spreadsheet


def test_a_correction_tampered_with_behind_the_ledger_is_a_finding(
    floor: ApiFloor, auditor: User, corrected_day: dict[str, Any]
) -> None:
    day = corrected_day
    bet_correction = Correction.objects.get(pk=day["bet_void"])
    (reversal_id,) = bet_correction.reversals
    # (a) The standing bet's settlement row marked voided, with no reversal: chips never went back.
    standing = RoundSettlement.objects.get(round_id=day["faro_round"], action__seq=4)
    RoundSettlement.objects.filter(pk=standing.pk).update(voided_by=bet_correction)
    # (b) The reversal's entries changed (triggers off for the session): no longer the exact mirror.
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        try:
            cursor.execute(
                "UPDATE ledger_entry SET amount = amount + SIGN(amount) * 100 WHERE transfer_id = %s",
                [reversal_id],
            )
        finally:
            cursor.execute("SET session_replication_role = DEFAULT")

    report = _audit(auditor)

    mismatches = [f for f in report["findings"] if f["kind"] == "reversal_mismatch"]
    assert {f["transfer"] for f in mismatches} == {reversal_id, standing.transfer_id}
    assert all(f["severity"] == "critical" for f in mismatches)
    mirror = next(f for f in mismatches if f["transfer"] == reversal_id)
    assert "mirror" in mirror["message"]
    replay = [f for f in report["findings"] if f["kind"] == "round_replay_mismatch"]
    assert [f["round"] for f in replay] == [day["faro_round"]]
    failed = {c["name"] for c in report["checks"] if not c["passed"]}
    assert {"settlements_vs_ledger", "round_replay"} <= failed


def test_a_misdeal_whose_transfer_was_not_reversed_fails_the_replay(
    floor: ApiFloor, auditor: User, corrected_day: dict[str, Any]
) -> None:
    """The whole-round check is tables.replay.void_problems's: every row voided, every transfer reversed."""
    day = corrected_day
    first = RoundSettlement.all_objects.filter(round_id=day["misdeal"]).order_by("pk").first()
    assert first is not None
    RoundSettlement.all_objects.filter(pk=first.pk).update(voided_by=None)

    report = _audit(auditor)

    replay = [f for f in report["findings"] if f["kind"] == "round_replay_mismatch"]
    assert [f["round"] for f in replay] == [day["misdeal"]]
    assert "not" in replay[0]["message"]
    mismatch = [f for f in report["findings"] if f["kind"] == "reversal_mismatch"]
    # The transfer was reversed, yet one of its rows stands: the reversal is reported against it.
    assert [f["evidence"]["reverses"] for f in mismatch] == [first.transfer_id]
    assert "not voided" in mismatch[0]["message"]
