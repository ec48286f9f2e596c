"""The rest of API.md for the role matrix: rounds, ratings and analytics, gaming days, alerts.

``build_floor_extras`` adds to a built ``World`` (inside the same rolled-back transaction):
a Faro table dealt by ``dealer_assigned`` with a live electronic deal, a card-room table whose
round has settled (so ``verify`` answers), a queued audit report, an open alert, and two slips
waiting for signatures: a spot count of the open table and a fill.
``FLOOR_ENDPOINTS`` lists each endpoint with a request that succeeds for an allowed role.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction

from ledger.gaming_day import gaming_day_for
from ledger.models import Transfer
from tables.audit.models import AuditReport
from tables.corrections import request_correction
from tables.detection.models import Alert, AlertSeverity
from tables.drop.models import DropBox, DropBoxStatus
from tables.drop.services import cash_buy_in, remove_box
from tables.evidence.checkpoint import make_checkpoint
from tables.models import Round
from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
from tables.slips.counts import take_count
from tables.slips.models import SlipKind
from tables.slips.services import issue_slip
from tests import factories
from tests.api.world import Endpoint, World
from tests.factories import RUN


@dataclass
class FloorExtras:
    live_round: Round
    correction_id: int
    settled_round: Round
    deal_table_id: int
    report_day: dt.date
    close_day: dt.date
    alert: Alert
    count_slip_id: int
    fill_slip_id: int
    evidence_day: dt.date
    evidence_record: str
    removed_box_id: int
    box_at_table_id: int


def build_floor_extras(world: World) -> FloorExtras:
    dealer, boss = world.users["dealer_assigned"], world.users["pit_boss"]
    punters = [factories.PlayerFactory(actor=world.users["cashier"], funded=20_000) for _ in range(4)]
    deal = factories.TableFactory(actor=boss, name=f"Deal Faro {RUN}", dealer=dealer)
    factories.open_table_for(deal, inventory=100_000)
    seat_player(actor=dealer, table_id=deal.pk, player_id=punters[0].pk, seat=1)
    live = start_round(actor=dealer, table_id=deal.pk, shoe="electronic")

    room = factories.TableFactory(
        actor=boss,
        name=f"Card room {RUN}",
        game="stakes",
        min_bet=100,
        max_bet=5_000,
        ante=200,
        rules={"variant": "gops"},
        dealer=dealer,
    )
    factories.open_table_for(room, inventory=50_000)
    for number, punter in enumerate(punters[1:3], start=1):
        seat_player(actor=dealer, table_id=room.pk, player_id=punter.pk, seat=number)
    settled = start_round(actor=dealer, table_id=room.pk, shoe="electronic")
    settled = apply_round_action(
        actor=dealer,
        round_id=settled.pk,
        action={"type": "result", "scores": {str(punters[1].pk): 12, str(punters[2].pk): 7}},
    )

    misdealt = factories.TableFactory(actor=boss, name=f"Misdeal Faro {RUN}", dealer=dealer)
    factories.open_table_for(misdealt, inventory=100_000)
    seat_player(actor=dealer, table_id=misdealt.pk, player_id=punters[3].pk, seat=1)
    misdeal = start_round(actor=dealer, table_id=misdealt.pk, shoe="electronic")
    correction = request_correction(actor=dealer, round_id=misdeal.pk, void="round", reason="misdeal")

    today = gaming_day_for()
    report_day = today - dt.timedelta(days=3)
    AuditReport.objects.create(
        gaming_day=report_day, requested_at=dt.datetime.now(tz=dt.UTC), requested_by=world.users["auditor"]
    )
    alert = Alert.objects.create(
        kind="hold_outlier",
        detector="hold",
        severity=AlertSeverity.LOW,
        table=deal,
        gaming_day=today,
        summary="Hold far from theoretical",
        dedup_key=f"matrix-{RUN}",
    )
    count = take_count(actor=dealer, table_id=world.open_table.pk, count={"10000": 10}, reason="spot_check")
    with transaction.atomic():
        fill = issue_slip(kind=SlipKind.FILL, requested_by=dealer, table=world.open_table, amount=10_000)
    bought = cash_buy_in(
        actor=dealer, table_id=world.open_table.pk, player_id=world.player_self.pk, amount=3_000
    )
    removed = remove_box(actor=world.users["count_team"], box_id=bought.box.pk, seal="M-1")
    at_table = DropBox.objects.get(table=world.open_table, status=DropBoxStatus.AT_TABLE)
    make_checkpoint(day=today)
    first_transfer = Transfer.objects.filter(gaming_day=today).order_by("pk").first()
    assert first_transfer is not None
    return FloorExtras(
        live_round=live,
        correction_id=correction.pk,
        settled_round=settled,
        deal_table_id=deal.pk,
        report_day=report_day,
        close_day=today - dt.timedelta(days=1),
        alert=alert,
        count_slip_id=count.pk,
        fill_slip_id=fill.pk,
        evidence_day=today,
        evidence_record=f"transfer:{first_transfer.pk}",
        removed_box_id=removed.pk,
        box_at_table_id=at_table.pk,
    )


EXTRAS: dict[int, FloorExtras] = {}
"""The extras of each built world (by ``id(world)``), for the endpoints' path functions."""


def _x(w: World) -> FloorExtras:
    return EXTRAS[id(w)]


def _evidence(w: World) -> str:
    return f"/api/v1/evidence/{_x(w).evidence_day.isoformat()}"


def _bet(w: World) -> dict[str, object]:
    punter = _x(w).live_round.players[0]
    return {"type": "bet", "player": punter, "ranks": ["K"], "amount": 500}


FLOOR_ENDPOINTS: dict[str, Endpoint] = {
    endpoint.name: endpoint
    for endpoint in [
        Endpoint(
            "POST /tables/{id}/rounds",
            "post",
            lambda w: f"/api/v1/tables/{w.open_table.pk}/rounds",
            lambda w: {"shoe": "electronic"},
        ),
        Endpoint("GET /rounds/{id}", "get", lambda w: f"/api/v1/rounds/{_x(w).live_round.pk}"),
        Endpoint(
            "POST /rounds/{id}/actions",
            "post",
            lambda w: f"/api/v1/rounds/{_x(w).live_round.pk}/actions",
            _bet,
        ),
        Endpoint(
            "POST /rounds/{id}/corrections",
            "post",
            lambda w: f"/api/v1/rounds/{_x(w).live_round.pk}/corrections",
            lambda w: {"void": "round", "reason": "the shoe was not shuffled"},
        ),
        Endpoint(
            "POST /corrections/{id}/approve",
            "post",
            lambda w: f"/api/v1/corrections/{_x(w).correction_id}/approve",
            lambda w: {},
        ),
        Endpoint(
            "POST /corrections/{id}/refuse",
            "post",
            lambda w: f"/api/v1/corrections/{_x(w).correction_id}/refuse",
            lambda w: {"note": "the cards were right"},
        ),
        Endpoint(
            "GET /rounds/{id}/verify", "get", lambda w: f"/api/v1/rounds/{_x(w).settled_round.pk}/verify"
        ),
        Endpoint("GET /players/{id}/ratings", "get", lambda w: f"/api/v1/players/{w.player_self.pk}/ratings"),
        Endpoint("GET /tables/{id}/hourly", "get", lambda w: f"/api/v1/tables/{_x(w).deal_table_id}/hourly"),
        Endpoint(
            "GET /dealers/{id}/performance",
            "get",
            lambda w: f"/api/v1/dealers/{w.users['dealer_assigned'].pk}/performance",
        ),
        Endpoint(
            "POST /gaming-days/{date}/close",
            "post",
            lambda w: f"/api/v1/gaming-days/{_x(w).close_day.isoformat()}/close",
            lambda w: {},
        ),
        Endpoint(
            "GET /evidence/{date}", "get", lambda w: f"/api/v1/evidence/{_x(w).evidence_day.isoformat()}"
        ),
        Endpoint(
            "GET /evidence/{date}/export",
            "get",
            lambda w: f"/api/v1/evidence/{_x(w).evidence_day.isoformat()}/export",
        ),
        Endpoint(
            "GET /evidence/{date}/proof",
            "get",
            lambda w: f"{_evidence(w)}/proof?record={_x(w).evidence_record}",
        ),
        Endpoint("GET /exceptions", "get", lambda w: f"/api/v1/exceptions?day={_x(w).evidence_day}"),
        Endpoint("GET /staff/access-review", "get", lambda w: "/api/v1/staff/access-review"),
        Endpoint(
            "GET /gaming-days/{date}/report",
            "get",
            lambda w: f"/api/v1/gaming-days/{_x(w).report_day.isoformat()}/report",
        ),
        Endpoint("GET /drop-boxes", "get", lambda w: "/api/v1/drop-boxes"),
        Endpoint(
            "POST /drop-boxes/{id}/remove",
            "post",
            lambda w: f"/api/v1/drop-boxes/{_x(w).box_at_table_id}/remove",
            lambda w: {"seal": "M-2"},
        ),
        Endpoint(
            "POST /drop-boxes/{id}/count",
            "post",
            lambda w: f"/api/v1/drop-boxes/{_x(w).removed_box_id}/count",
            lambda w: {"currency": {"2000": 1, "1000": 1}, "markers": []},
        ),
        Endpoint("GET /ledger/trial-balance", "get", lambda w: "/api/v1/ledger/trial-balance"),
        Endpoint("GET /alerts", "get", lambda w: "/api/v1/alerts"),
        Endpoint(
            "POST /tables/{id}/counts",
            "post",
            lambda w: f"/api/v1/tables/{w.open_table.pk}/counts",
            lambda w: {"count": {"2500": 40, "500": 12}, "reason": "spot_check"},
        ),
        Endpoint(
            "POST /slips/{count}/void",
            "post",
            lambda w: f"/api/v1/slips/{_x(w).count_slip_id}/void",
            lambda w: {"reason": "counted the wrong rack"},
        ),
        Endpoint(
            "POST /slips/{fill}/void",
            "post",
            lambda w: f"/api/v1/slips/{_x(w).fill_slip_id}/void",
            lambda w: {"reason": "asked for twice"},
        ),
        Endpoint(
            "POST /alerts/{id}/resolve",
            "post",
            lambda w: f"/api/v1/alerts/{_x(w).alert.pk}/resolve",
            lambda w: {"note": "checked the shoe; a good night for the players"},
        ),
    ]
}
