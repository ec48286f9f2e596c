"""Celery entry points for tables; each calls one service."""

from __future__ import annotations

from celery import shared_task

from ledger.services import expire_holds
from tables.drop.overdue import alert_drop_boxes_overdue
from tables.rake import charge_time_rake
from tables.ratings.services import rate_round, rate_unrated_rounds
from tables.rounds import RATE_ROUND_TASK
from tables.slips.transit_alerts import alert_slips_in_transit


@shared_task(acks_late=True)
def charge_time_rake_task() -> int:
    return charge_time_rake()


@shared_task(acks_late=True)
def expire_holds_task() -> int:
    return expire_holds()


@shared_task(acks_late=True, name=RATE_ROUND_TASK)
def rate_round_task(round_id: int) -> bool:
    """Ratings are refreshed per settled round, so reads are sums of small rows.

    Sent by name from ``tables.rounds`` when a round settles.
    """
    return rate_round(round_id=round_id) is not None


@shared_task(acks_late=True)
def rate_unrated_rounds_task() -> int:
    """Beat: rate what ``rate_round_task`` never got to (a send lost in a broker outage)."""
    return rate_unrated_rounds()


@shared_task(acks_late=True)
def alert_slips_in_transit_task() -> int:
    """Beat, every minute: a fill or credit in transit past ``SLIP_TRANSIT_MINUTES`` raises an
    alert (once per slip)."""
    return alert_slips_in_transit()


@shared_task(acks_late=True)
def alert_drop_boxes_overdue_task() -> int:
    """Beat, every hour: a drop box still at its table ``DROP_BOX_OVERDUE_DAYS`` gaming days
    after it went there raises an alert (once per box)."""
    return alert_drop_boxes_overdue()
