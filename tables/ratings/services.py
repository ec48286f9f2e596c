"""Write the ratings: one settled round at a time (the Celery task), or all of them again."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from tables.locks import lock_round
from tables.models import Round, RoundSettlement, RoundStatus, Seat
from tables.ratings.compute import RoundFigures, figures_for, hour_of
from tables.ratings.models import RoundPlayerStat, RoundStat


def sittings_for(round_: Round, player_ids: list[int]) -> dict[int, int]:
    """Player → the sitting the round belongs to, in one query.

    The sitting open when the round was dealt; for a Faro punter who sat down during the deal,
    the first sitting that began before the round ended (or, for a deal still being dealt,
    before now). (A punter who gets up and sits down again within one deal has the whole round
    on the first of those sittings.)
    """
    if not player_ids:
        return {}
    candidates = (
        Seat.objects.filter(
            table_id=round_.table_id,
            player_id__in=player_ids,
            seated_at__lte=round_.ended_at or timezone.now(),
        )
        .filter(Q(left_at__isnull=True) | Q(left_at__gte=round_.started_at))
        .order_by("player_id", "seated_at", "pk")
        .values_list("player_id", "pk", "seated_at")
    )
    chosen: dict[int, int] = {}
    for player_id, seat_id, seated_at in candidates:
        if seated_at <= round_.started_at or player_id not in chosen:
            chosen[player_id] = seat_id  # open at the deal: it wins over any that began later
    return chosen


def round_figures(round_: Round) -> RoundFigures:
    """A round's figures from its live settlements and actions: all of them once it has settled,
    what was decided so far while it is dealt."""
    settlements = list(RoundSettlement.objects.filter(round=round_).select_related("action").order_by("pk"))
    return figures_for(round_, settlements)


@transaction.atomic
def rate_round(*, round_id: int) -> RoundStat | None:
    """(Re)write one settled round's figures; running it twice gives the same rows.

    Locks as a round action does (table, then round), so the two never deadlock; an action
    sent while this runs waits, then finds the round settled (409 ``round_over``).
    """
    round_ = lock_round(round_id=round_id)
    if round_ is None or round_.status != RoundStatus.SETTLED or round_.ended_at is None:
        return None
    figures = round_figures(round_)
    RoundPlayerStat.objects.filter(round=round_).delete()
    RoundStat.objects.filter(round=round_).delete()
    stat = RoundStat.objects.create(
        round=round_,
        table_id=round_.table_id,
        game=round_.game,
        dealer_id=round_.started_by_id,
        started_at=round_.started_at,
        ended_at=round_.ended_at,
        hour=hour_of(round_.ended_at),
        handle=figures.handle,
        win=figures.win,
        decisions=figures.decisions,
        theo_milli=figures.theo_milli,
        theo_variance=figures.theo_variance,
    )
    sittings = sittings_for(round_, sorted(figures.players))
    RoundPlayerStat.objects.bulk_create(
        [
            RoundPlayerStat(
                round=round_,
                player_id=player,
                seat_id=sittings.get(player),
                table_id=round_.table_id,
                handle=f.handle,
                result=f.result,
                bets=f.bets,
                decisions=f.decisions,
                theo_milli=f.theo_milli,
            )
            for player, f in sorted(figures.players.items())
        ]
    )
    return stat


def rate_unrated_rounds(
    *,
    grace: timedelta | None = None,
    ended_from: datetime | None = None,
    ended_before: datetime | None = None,
) -> int:
    """Rate settled rounds that have no stats yet; returns how many it rated.

    The sweep (no window): the on-commit task of a round settled while the broker was down was
    never sent (the send gives up at once, casino.task_sending), and a lost task is never
    redelivered; this beat task (``RATINGS_SWEEP_SECONDS``) finds the round by its missing
    stats instead. Rounds settled within ``grace`` are left to their own task, and only the
    last ``RATINGS_SWEEP_LOOKBACK_HOURS`` are looked at, at most a batch per run, so a run
    reads a bounded slice of the partial index ``tables_round_settled_ended``; older gaps are
    ``rebuild_ratings``'s.

    A window (``ended_from`` ≤ ended < ``ended_before``): every unrated round in it, no grace,
    no batch. The readers of the rows that need them complete (the detectors' run, the audit)
    call this first, so they read figures and never compute them.
    Rating is idempotent, so a round its task rates at the same moment is only rated twice.
    """
    rounds = Round.objects.filter(status=RoundStatus.SETTLED, stat__isnull=True)
    if ended_from is None and ended_before is None:
        now = timezone.now()
        grace = timedelta(seconds=settings.RATINGS_SWEEP_GRACE_SECONDS) if grace is None else grace
        rounds = rounds.filter(
            ended_at__gte=now - timedelta(hours=settings.RATINGS_SWEEP_LOOKBACK_HOURS),
            ended_at__lte=now - grace,
        )
        unrated = rounds.order_by("ended_at").values_list("pk", flat=True)[: settings.RATINGS_SWEEP_BATCH]
    else:
        if ended_from is not None:
            rounds = rounds.filter(ended_at__gte=ended_from)
        if ended_before is not None:
            rounds = rounds.filter(ended_at__lt=ended_before)
        unrated = rounds.order_by("ended_at").values_list("pk", flat=True)
    rated = 0
    for round_id in list(unrated):
        rated += rate_round(round_id=round_id) is not None
    return rated


def rebuild_ratings() -> int:
    """Recompute every settled round from the ledger's settlements and the actions."""
    count = 0
    for round_id in (
        Round.objects.filter(status=RoundStatus.SETTLED).order_by("pk").values_list("pk", flat=True)
    ):
        rate_round(round_id=round_id)
        count += 1
    return count
