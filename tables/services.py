"""Writes for tables: creation, limits, dealers, sessions, seats (fills and credits: tables.slips).

Every service runs in one transaction, locks the table first (then its rows, then ledger
accounts through ``post_transfer``), and writes an action-log row beside the change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, cast

from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict, NotFound, ValidationFailed
from casino.integrity import unique_or_conflict
from casino.models import Player, Role, User
from casino.money import format_dollars
from casino.permissions import require
from ledger.models import Account, AccountKind, AccountPurpose, Entry, Transfer
from ledger.services import Leg, open_account, post_transfer
from tables import sql
from tables.accounts import CAGE, OVER_SHORT, RAKE, layout_code, open_over_short, tray_code
from tables.amounts import check_cents
from tables.drop.services import CASH_BUY_IN
from tables.games.errors import IllegalAction
from tables.games.input_checks import is_int
from tables.games.registry import is_house_banked, validate_rules
from tables.locks import lock_table
from tables.models import (
    LIVE_ROUND_STATUSES,
    DealerShift,
    LimitChange,
    Round,
    Seat,
    Table,
    TableSession,
    TableStatus,
    table_win,
)
from tables.pots import split_unwon_pots
from tables.selectors import approved_total, get_live_round, get_open_session, last_closing_count
from tables.slips.chips import count_amount, parse_count
from tables.slips.counts import write_count_slip
from tables.slips.models import Slip, SlipKind
from tables.slips.transit import approve_transit_slip, refuse_transit_slip, request_transit_slip

MAX_SEATS = 12


def _check_limits(min_bet: int, max_bet: int) -> None:
    check_cents(min_bet, field="min_bet")
    check_cents(max_bet, field="max_bet")
    if max_bet < min_bet:
        raise ValidationFailed(
            f"The maximum bet ({format_dollars(max_bet)}) must be at least the minimum bet "
            f"({format_dollars(min_bet)}).",
            fields={"max_bet": "below min_bet"},
        )


def _rules_for(game: str, rules: Any) -> dict[str, Any]:
    try:
        return validate_rules(game, rules)
    except IllegalAction as error:
        raise ValidationFailed(error.message, fields={"rules": error.message}, code=error.code) from error


def _next_table_id() -> int:
    """Reserve the table's id first so its tray account is named after it (``tray:<id>``)."""
    with connection.cursor() as cursor:
        cursor.execute(sql.NEXT_TABLE_ID)
        return int(cursor.fetchone()[0])


def _name_taken(name: str) -> Conflict:
    return Conflict(f"A table named {name!r} already exists.", code="name_taken", fields={"name": "taken"})


@transaction.atomic
def create_table(
    *, actor: User, name: str, game: str, min_bet: int, max_bet: int, ante: int = 0, rules: Any = None
) -> Table:
    require(actor, "table.create")
    name = (name or "").strip()
    if not name:
        raise ValidationFailed("A table needs a name.", fields={"name": "required"})
    if Table.objects.filter(name__iexact=name).exists():
        raise _name_taken(name)
    _check_limits(min_bet, max_bet)
    check_cents(ante, field="ante", allow_zero=True)
    full_rules = _rules_for(game, rules)
    chip = int(full_rules.get("chip", 100))
    for field, value in (("min_bet", min_bet), ("max_bet", max_bet), ("ante", ante)):
        if value % chip:
            raise ValidationFailed(
                f"{field} must be a multiple of the chip ({chip} cents).",
                fields={field: "not a chip multiple"},
            )
    table_id = _next_table_id()
    tray = open_account(
        code=tray_code(table_id), kind=AccountKind.ASSET, purpose=AccountPurpose.TRAY, name=f"Tray of {name}"
    )
    with unique_or_conflict({"tables_table_name_key": lambda: _name_taken(name)}):  # two at once
        table = Table.objects.create(
            id=table_id,
            name=name,
            game=game,
            min_bet=min_bet,
            max_bet=max_bet,
            ante=ante,
            rules=full_rules,
            tray=tray,
        )
    record_action(actor=actor, action="table.created", obj=table, data={"game": game, "rules": full_rules})
    return table


@transaction.atomic
def change_limits(*, actor: User, table_id: int, min_bet: int, max_bet: int) -> Table:
    """New limits apply to bets placed from now on; bets on the layout are untouched."""
    table = lock_table(table_id=table_id)
    require(actor, "table.limits", table=table)
    _check_limits(min_bet, max_bet)
    chip = int(table.rules.get("chip", 100))
    if min_bet % chip or max_bet % chip:
        raise ValidationFailed(f"Limits must be multiples of the chip ({chip} cents).")
    LimitChange.objects.create(
        table=table,
        changed_by=actor,
        old_min_bet=table.min_bet,
        old_max_bet=table.max_bet,
        new_min_bet=min_bet,
        new_max_bet=max_bet,
    )
    old = {"min_bet": table.min_bet, "max_bet": table.max_bet}
    table.min_bet, table.max_bet = min_bet, max_bet
    table.save(update_fields=["min_bet", "max_bet"])
    record_action(
        actor=actor,
        action="table.limits_changed",
        obj=table,
        data={"old": old, "new": {"min_bet": min_bet, "max_bet": max_bet}},
    )
    return table


@transaction.atomic
def assign_dealer(*, actor: User, table_id: int, dealer_id: Any) -> Table:
    require(actor, "table.assign")
    table = lock_table(table_id=table_id)
    if not is_int(dealer_id):
        raise ValidationFailed("dealer must be a staff id.", fields={"dealer": "must be an integer"})
    dealer = User.objects.filter(pk=dealer_id, role=Role.DEALER, is_active=True).first()
    if dealer is None:
        raise NotFound("No active dealer with that id.", fields={"dealer": dealer_id})
    previous = table.dealer_id
    now = timezone.now()
    DealerShift.objects.filter(table=table, ended_at__isnull=True).update(ended_at=now)
    DealerShift.objects.create(table=table, dealer=dealer, assigned_by=actor)
    table.dealer = dealer
    table.save(update_fields=["dealer"])
    record_action(
        actor=actor, action="table.dealer_assigned", obj=table, data={"from": previous, "to": dealer.pk}
    )
    return table


def _adjust_tray_to_count(
    *, table: Table, count: int, expected: int, key: str, stage: str
) -> tuple[int, Transfer | None]:
    """Post the difference between a count and the ledger's tray (``expected``, as its slip says)
    to over/short; returns the variance and the adjustment's transfer (None: the count matched)."""
    variance = count - expected
    if not variance:
        return 0, None
    open_over_short()
    leg = (
        Leg(debit=OVER_SHORT, credit=table.tray.code, amount=variance)
        if variance > 0
        else Leg(debit=table.tray.code, credit=OVER_SHORT, amount=-variance)
    )
    transfer = post_transfer(
        key=key,
        kind="count_variance",
        legs=[leg],
        memo=f"{stage} count variance at {table.name}",
        meta={"table": table.pk, "stage": stage},
    )
    return variance, transfer


@dataclass(frozen=True, slots=True)
class TrayCount:
    """A tray's count as the dealer gave it: by denomination (``pieces``), or in cents only
    (``pieces`` None, the older form API.md still accepts)."""

    amount: int
    pieces: dict[str, int] | None


def read_tray_count(*, stage: str, inventory: Any, count: Any) -> TrayCount:
    """``{<stage>_count}`` (pieces by chip value) or ``{<stage>_inventory}`` (cents): one of them."""
    count_field, inventory_field = f"{stage}_count", f"{stage}_inventory"
    if count is not None and inventory is not None:
        raise ValidationFailed(
            f"Give the {stage} count by chip ({count_field}) or in cents ({inventory_field}), not both.",
            fields={count_field: "one of the two", inventory_field: "one of the two"},
        )
    if count is not None:
        pieces = parse_count(count, field=count_field)
        return TrayCount(count_amount(pieces), pieces)
    if inventory is None:
        raise ValidationFailed(
            f"Give the {stage} count: {count_field} (pieces by chip value) or {inventory_field} (cents).",
            fields={count_field: "required"},
        )
    return TrayCount(check_cents(inventory, field=inventory_field, allow_zero=True), None)


@dataclass(frozen=True, slots=True)
class OpeningPlan:
    """What opening ``table`` with ``count`` in the tray posts, worked out before anything moves.

    ``ledger`` is the tray's balance: the last closing count (a close posts its variance), plus
    any fill or credit since. A first opening issues the count above it from the cage as the
    bankroll (``issue``); any other difference goes to over/short as a count ``variance``.
    """

    count: int
    ledger: int
    last_closer: int | None
    issue: int
    variance: int


def opening_plan(*, table: Table, count: int) -> OpeningPlan:
    """The opening's postings, for the dealer's confirm step and for ``open_table`` alike."""
    first_opening = not TableSession.objects.filter(table=table).exists()
    ledger = table.tray.balance
    issue = count - ledger if first_opening and count > ledger else 0
    return OpeningPlan(count, ledger, last_closing_count(table), issue, count - ledger - issue)


@transaction.atomic
def open_table(
    *, actor: User, table_id: int, opening_inventory: Any = None, opening_count: Any = None
) -> TableSession:
    """Open with the counted tray, by chip or in cents, and write its opener slip. A table's
    first opening issues its bankroll from the cage."""
    table = lock_table(table_id=table_id)
    require(actor, "table.open_close", table=table)
    counted = read_tray_count(stage="opening", inventory=opening_inventory, count=opening_count)
    count = counted.amount
    if table.status == TableStatus.OPEN:
        raise Conflict(f"{table.name} is already open.", code="table_open")
    plan = opening_plan(table=table, count=count)
    session = TableSession.objects.create(
        table=table, opened_by=actor, opening_inventory=count, opening_ledger=plan.ledger
    )
    # The slip expects the tray as the ledger holds it once a first opening's bankroll is in:
    # its variance is the one posted to over/short below.
    opener = write_count_slip(
        kind=SlipKind.OPENER,
        actor=actor,
        table=table,
        session=session,
        amount=count,
        count=counted.pieces,
        expected=plan.ledger + plan.issue,
    )
    if plan.issue:
        opener.receipt_transfer = post_transfer(
            key=f"table_issue:{session.pk}",
            kind="table_issue",
            legs=[Leg(debit=CAGE, credit=table.tray.code, amount=plan.issue)],
            memo=f"Opening bankroll for {table.name}",
            meta={"table": table.pk, "session": session.pk},
        )
        table.tray.refresh_from_db()
    session.opening_variance, opener.issue_transfer = _adjust_tray_to_count(
        table=table,
        count=count,
        expected=plan.ledger + plan.issue,
        key=f"opening_variance:{session.pk}",
        stage="opening",
    )
    if opener.issue_transfer is not None or opener.receipt_transfer is not None:
        opener.save(update_fields=["issue_transfer", "receipt_transfer"])
    session.save(update_fields=["opening_variance"])
    table.status = TableStatus.OPEN
    table.save(update_fields=["status"])
    record_action(
        actor=actor, action="table.opened", obj=session, data={"count": count, "ledger": plan.ledger}
    )
    return session


def session_drop(*, table: Table, since: Any) -> int:
    """The cash recorded into the table's drop box since ``since`` (API.md: a session's ``drop``),
    whichever box was at the table then: the count reads the boxes later, the regulator's win
    from that count (tables.audit.compute.win)."""
    total = Entry.objects.filter(
        account__purpose=AccountPurpose.DROP,
        amount__gt=0,
        transfer__kind=CASH_BUY_IN,
        transfer__meta__table=table.pk,
        created_at__gte=since,
    ).aggregate(total=Sum("amount"))["total"]
    return total or 0


def session_rake(*, table: Table, since: Any) -> int:
    """Rake the house took at the table (percent of pots won, time charges)."""
    total = Entry.objects.filter(
        account__code=RAKE, amount__gt=0, transfer__meta__table=table.pk, created_at__gte=since
    ).aggregate(total=Sum("amount"))["total"]
    return total or 0


@transaction.atomic
def close_table(
    *, actor: User, table_id: int, closing_inventory: Any = None, closing_count: Any = None
) -> TableSession:
    """Close with the count, by chip or in cents, and write its closer slip; the summary gives
    drop, fills, credits, win and the variance."""
    table = lock_table(table_id=table_id)
    require(actor, "table.open_close", table=table)
    counted = read_tray_count(stage="closing", inventory=closing_inventory, count=closing_count)
    count = counted.amount
    session = get_open_session(table)
    if table.status != TableStatus.OPEN or session is None:
        raise Conflict(f"{table.name} is not open.", code="table_closed")
    if get_live_round(table) is not None:
        raise Conflict("Finish or void the live round before closing the table.", code="round_live")
    # The closer's number is taken before any ledger account is locked (tables.locks' order);
    # the unwon pots split below go to the players' wallets, so the tray it expects stands.
    table.tray.refresh_from_db()
    expected = table.tray.balance
    closer = write_count_slip(
        kind=SlipKind.CLOSER,
        actor=actor,
        table=table,
        session=session,
        amount=count,
        count=counted.pieces,
        expected=expected,
    )
    session.pot_splits = split_unwon_pots(table=table, actor=actor, session=session)
    session.closing_ledger = expected
    session.closing_inventory = count
    session.closing_variance, closer.issue_transfer = _adjust_tray_to_count(
        table=table, count=count, expected=expected, key=f"closing_variance:{session.pk}", stage="closing"
    )
    if closer.issue_transfer is not None:
        closer.save(update_fields=["issue_transfer"])
    session.fills = approved_total(table.pk, SlipKind.FILL, session.opened_at)
    session.credits = approved_total(table.pk, SlipKind.CREDIT, session.opened_at)
    session.drop = session_drop(table=table, since=session.opened_at)
    session.rake = session_rake(table=table, since=session.opened_at)
    session.win = table_win(
        opener=session.opening_inventory, closer=count, fills=session.fills, credits=session.credits
    )
    session.closed_by = actor
    session.closed_at = timezone.now()
    session.save()
    table.status = TableStatus.CLOSED
    table.save(update_fields=["status"])
    for seat in Seat.objects.filter(table=table, left_at__isnull=True):
        seat.left_at = session.closed_at
        seat.save(update_fields=["left_at"])
    record_action(
        actor=actor,
        action="table.closed",
        obj=session,
        data={"count": count, "win": session.win, "variance": session.closing_variance},
    )
    return session


# The one-step fill and credit approval is gone: a fill or credit is a slip whose chips travel
# through transit (tables.slips.transit). These keep its callers' shapes (the pit's and the
# cage's screens, the simulated night) on the new flow.


class TrayChange(Protocol):
    """A fill or credit slip as those callers read it: it always has its table."""

    pk: int
    kind: str
    amount: int
    number: str
    table: Table


def request_tray_change(*, actor: User, table_id: int, kind: str, amount: Any) -> TrayChange:
    """A fill or credit slip for ``amount`` cents, pending its approval."""
    slip = request_transit_slip(actor=actor, table_id=table_id, kind=kind, amount=amount)
    return cast(TrayChange, slip)


def approve_tray_request(*, actor: User, table_id: int, request_id: int, kind: str) -> Slip:
    """The cage issues the fill (or the pit releases the credit) ``request_id``: its chips go into
    transit. The signature is the signed-in approver's, without their password typed again."""
    return approve_transit_slip(
        actor=actor, table_id=table_id, slip_id=request_id, kind=kind, password_confirmed=False
    )


def refuse_tray_request(*, actor: User, table_id: int, request_id: int, kind: str, note: str = "") -> Slip:
    return refuse_transit_slip(actor=actor, table_id=table_id, slip_id=request_id, kind=kind, note=note)


@transaction.atomic
def seat_player(*, actor: User, table_id: int, player_id: Any, seat: Any = None) -> Seat:
    table = lock_table(table_id=table_id)
    require(actor, "table.seat", table=table)
    if not is_int(player_id):
        raise ValidationFailed("player must be a player id.", fields={"player": "must be an integer"})
    player = Player.objects.select_related("user").filter(pk=player_id).first()
    if player is None:
        raise NotFound("No such player.", fields={"player": player_id})
    if table.status != TableStatus.OPEN:
        raise Conflict(f"{table.name} is closed; open it before seating players.", code="table_closed")
    taken = set(Seat.objects.filter(table=table, left_at__isnull=True).values_list("number", flat=True))
    if seat is None:
        free = [n for n in range(1, MAX_SEATS + 1) if n not in taken]
        if not free:
            raise Conflict(f"{table.name} is full.", code="table_full")
        seat = free[0]
    if not is_int(seat) or not 1 <= seat <= MAX_SEATS:
        raise ValidationFailed(f"seat must be 1 to {MAX_SEATS}.", fields={"seat": "out of range"})
    if seat in taken:
        raise Conflict(f"Seat {seat} is taken.", code="seat_taken", fields={"seat": seat})
    current = Seat.objects.filter(player=player, left_at__isnull=True).select_related("table").first()
    if current is not None:
        raise _already_seated(player, current.table.name)
    # Another table's lock does not serialise with this one: a racing seating of the same
    # player elsewhere is stopped by the constraint, and answers as the check above would.
    with unique_or_conflict({"tables_player_in_one_seat": lambda: _already_seated(player, "another table")}):
        seating = Seat.objects.create(table=table, player=player, number=seat, seated_by=actor)
    record_action(actor=actor, action="seat.taken", obj=seating, data={"player": player.pk, "seat": seat})
    return seating


def _already_seated(player: Player, where: str) -> Conflict:
    return Conflict(f"{player.name} is already seated at {where}.", code="already_seated")


def chips_in_play_at(*, table: Table, player: Player) -> int:
    code = layout_code(table.pk, player.pk)
    return Account.objects.filter(code=code).values_list("balance", flat=True).first() or 0


@transaction.atomic
def unseat_player(*, actor: User, table_id: int, player_id: int) -> Seat:
    table = lock_table(table_id=table_id)
    require(actor, "table.seat", table=table)
    seating = (
        Seat.objects.filter(table=table, player_id=player_id, left_at__isnull=True)
        .select_related("player")
        .first()
    )
    if seating is None:
        raise NotFound("That player is not seated at this table.")
    # GAMES.md "Leaving": at a house-banked table only chips on the layout keep a player seated;
    # in a pot or stakes game a player dealt into the round stays until it settles.
    dealt_in = not is_house_banked(table.game) and player_in_live_round(table, seating.player)
    if chips_in_play_at(table=table, player=seating.player) > 0 or dealt_in:
        name = seating.player.name
        reason = (
            f"{name} is dealt into the live deal and stays until it settles."
            if dealt_in
            else f"{name} has chips on the layout; settle or take down their bets first."
        )
        raise Conflict(reason, code="chips_in_play")
    seating.left_at = timezone.now()
    seating.save(update_fields=["left_at"])
    record_action(actor=actor, action="seat.left", obj=seating, data={"player": player_id})
    return seating


def player_in_live_round(table: Table, player: Player) -> bool:
    return Round.objects.filter(
        table=table,
        status__in=LIVE_ROUND_STATUSES,
        players__contains=[player.pk],
    ).exists()
