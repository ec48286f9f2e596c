"""tables.services called directly: tables, limits, dealers, sessions, fills and credits, seats."""

from __future__ import annotations

from typing import Any

import pytest

from casino.errors import Conflict, Forbidden, NotFound, SeparationOfDuties, ValidationFailed
from casino.models import ActionLog, Player, Role, User
from ledger.errors import InsufficientFunds
from ledger.models import Account, AccountKind, AccountPurpose, Entry, Transfer
from ledger.services import Leg, post_transfer
from tables import services
from tables.accounts import OVER_SHORT, layout_code, open_layout, open_pot, pot_code, tray_code
from tables.models import LimitChange, Round, RoundStatus, Seat, Table, TableStatus
from tables.slips.models import Slip, SlipSignature
from tables.slips.services import sign_slip
from tests.factories import RUN, PlayerFactory, TableFactory, open_table_for, staff


def _balance(code: str) -> int:
    return Account.objects.get(code=code).balance


def _over_short(table: Table) -> int:
    """Over/short as this table moved it (the account is shared by every table)."""
    entries = Entry.objects.filter(account__code=OVER_SHORT, transfer__meta__table=table.pk)
    return sum(entries.values_list("amount", flat=True))


# --- tables, limits, dealers ------------------------------------------------------------------


@pytest.mark.django_db
def test_create_table_gives_it_a_tray_named_after_it(pit_boss: User) -> None:
    table = services.create_table(
        actor=pit_boss, name="  Tonk 3 ", game="tonk", min_bet=100, max_bet=1_000, ante=100
    )

    assert table.name == "Tonk 3"
    assert (table.tray.code, table.tray.kind, table.tray.purpose) == (
        tray_code(table.pk),
        AccountKind.ASSET,
        "tray",
    )
    assert table.rules["deal_tonk"] == "50_or_11"
    assert table.status == TableStatus.CLOSED


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"name": ""}, ValidationFailed),
        ({"min_bet": 0}, ValidationFailed),
        ({"min_bet": 1.5}, ValidationFailed),
        ({"max_bet": True}, ValidationFailed),
        ({"ante": -100}, ValidationFailed),
        ({"min_bet": 150}, ValidationFailed),  # not a multiple of the $1 chip
        ({"rules": {"chip": 25}, "min_bet": 125, "max_bet": 2_500}, None),  # a 25¢ chip allows it
        ({"rules": {"no_such_rule": 1}}, ValidationFailed),
        ({"rules": "chip=25"}, ValidationFailed),
        ({"game": "roulette"}, ValidationFailed),
    ],
)
@pytest.mark.django_db
def test_create_table_validates(
    pit_boss: User, kwargs: dict[str, Any], error: type[Exception] | None
) -> None:
    args = {"name": f"Faro 7 {RUN}", "game": "faro", "min_bet": 500, "max_bet": 5_000, **kwargs}
    trays = Account.objects.filter(purpose=AccountPurpose.TRAY).count()
    if error is None:
        assert services.create_table(actor=pit_boss, **args).pk
        return
    with pytest.raises(error):
        services.create_table(actor=pit_boss, **args)
    assert not Table.objects.filter(name=args["name"]).exists()
    assert Account.objects.filter(purpose=AccountPurpose.TRAY).count() == trays


@pytest.mark.parametrize("role", ["dealer", "cashier", "auditor"])
@pytest.mark.django_db
def test_only_admins_and_pit_bosses_create_tables(role: str, request: pytest.FixtureRequest) -> None:
    actor = request.getfixturevalue(role)

    with pytest.raises(Forbidden):
        services.create_table(actor=actor, name="T", game="faro", min_bet=100, max_bet=100)


@pytest.mark.django_db
def test_table_names_are_unique_ignoring_case(pit_boss: User, table: Table) -> None:
    with pytest.raises(Conflict):
        services.create_table(actor=pit_boss, name=table.name.upper(), game="faro", min_bet=100, max_bet=100)


@pytest.mark.django_db
def test_change_limits_records_who_and_what(
    pit_boss: User, admin: User, dealer: User, other_dealer: User, table: Table
) -> None:
    """Limits are the pit's (API.md): a pit boss or an admin, never a dealer, not even the table's."""
    services.change_limits(actor=admin, table_id=table.pk, min_bet=1_000, max_bet=10_000)
    services.change_limits(actor=pit_boss, table_id=table.pk, min_bet=2_000, max_bet=20_000)
    for outsider in (dealer, other_dealer):
        with pytest.raises(Forbidden):
            services.change_limits(actor=outsider, table_id=table.pk, min_bet=100, max_bet=100)
    with pytest.raises(ValidationFailed):
        services.change_limits(actor=pit_boss, table_id=table.pk, min_bet=3_000, max_bet=2_000)

    history = list(
        LimitChange.objects.order_by("pk").values_list(
            "changed_by", "old_min_bet", "old_max_bet", "new_min_bet", "new_max_bet"
        )
    )
    assert history == [(admin.pk, 500, 50_000, 1_000, 10_000), (pit_boss.pk, 1_000, 10_000, 2_000, 20_000)]


@pytest.mark.django_db
def test_assign_dealer_takes_only_active_dealers(
    pit_boss: User, table: Table, other_dealer: User, cashier: User, dealer: User
) -> None:
    assert (
        services.assign_dealer(actor=pit_boss, table_id=table.pk, dealer_id=other_dealer.pk).dealer
        == other_dealer
    )
    for not_a_dealer in (cashier.pk, pit_boss.pk, 10**9):
        with pytest.raises(NotFound):
            services.assign_dealer(actor=pit_boss, table_id=table.pk, dealer_id=not_a_dealer)
    with pytest.raises(ValidationFailed):
        services.assign_dealer(actor=pit_boss, table_id=table.pk, dealer_id=str(dealer.pk))
    with pytest.raises(Forbidden):
        services.assign_dealer(actor=dealer, table_id=table.pk, dealer_id=dealer.pk)
    table.refresh_from_db()
    assert table.dealer == other_dealer


# --- sessions ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_only_the_assigned_dealer_opens_and_closes(
    table: Table, other_dealer: User, pit_boss: User, dealer: User
) -> None:
    for outsider in (other_dealer, pit_boss):
        with pytest.raises(Forbidden):
            services.open_table(actor=outsider, table_id=table.pk, opening_inventory=100)
    services.open_table(actor=dealer, table_id=table.pk, opening_inventory=100)
    for outsider in (other_dealer, pit_boss):
        with pytest.raises(Forbidden):
            services.close_table(actor=outsider, table_id=table.pk, closing_inventory=100)


@pytest.mark.django_db
def test_an_empty_first_count_issues_nothing(table: Table, dealer: User) -> None:
    session = services.open_table(actor=dealer, table_id=table.pk, opening_inventory=0)

    assert (session.opening_inventory, session.opening_variance) == (0, 0)
    assert not Transfer.objects.filter(kind__in=["table_issue", "count_variance"]).exists()


@pytest.mark.parametrize("count", [1.0, "100", True, None, -1, 10**13])
@pytest.mark.django_db
def test_counts_are_whole_cents(table: Table, dealer: User, count: Any) -> None:
    with pytest.raises(ValidationFailed):
        services.open_table(actor=dealer, table_id=table.pk, opening_inventory=count)

    table.refresh_from_db()
    assert table.status == TableStatus.CLOSED


@pytest.mark.django_db
def test_a_shift_of_counts_fills_and_credits(
    table: Table, dealer: User, cashier: User, pit_boss: User
) -> None:
    """Two sessions: the bankroll is issued once; every later difference goes through over/short."""
    first = services.open_table(actor=dealer, table_id=table.pk, opening_inventory=200_000)
    fill = services.request_tray_change(actor=dealer, table_id=table.pk, kind="fill", amount=50_000)
    services.approve_tray_request(actor=cashier, table_id=table.pk, request_id=fill.pk, kind="fill")
    for signer in (dealer, pit_boss):  # the fill reaches the tray
        sign_slip(actor=signer, slip_id=fill.pk)
    credit = services.request_tray_change(actor=pit_boss, table_id=table.pk, kind="credit", amount=30_000)
    releaser = staff(Role.PIT_BOSS)  # never the pit boss who asked
    services.approve_tray_request(actor=releaser, table_id=table.pk, request_id=credit.pk, kind="credit")
    sign_slip(actor=cashier, slip_id=credit.pk)
    closed = services.close_table(actor=dealer, table_id=table.pk, closing_inventory=221_000)

    assert (closed.pk, closed.closing_ledger, closed.closing_variance) == (first.pk, 220_000, 1_000)
    assert (closed.fills, closed.credits, closed.win) == (50_000, 30_000, 221_000 + 30_000 - 200_000 - 50_000)
    assert _balance(tray_code(table.pk)) == 221_000
    assert _over_short(table) == -1_000

    second = services.open_table(actor=dealer, table_id=table.pk, opening_inventory=220_500)

    assert (second.opening_ledger, second.opening_variance) == (221_000, -500)
    assert _over_short(table) == -500
    assert Transfer.objects.filter(kind="table_issue", meta__table=table.pk).count() == 1
    assert Transfer.objects.filter(kind="count_variance", meta__table=table.pk).count() == 2
    # The second session's summary counts only its own fills and credits.
    summary = services.close_table(actor=dealer, table_id=table.pk, closing_inventory=220_500)
    assert (summary.fills, summary.credits, summary.win, summary.closing_variance) == (0, 0, 0, 0)


@pytest.mark.django_db
def test_close_splits_an_unwon_pot_among_the_last_rounds_players(table: Table, dealer: User) -> None:
    session = open_table_for(table)
    first, second = PlayerFactory(funded=1_000), PlayerFactory(funded=1_000)
    open_pot(table_id=table.pk, name="main")
    post_transfer(
        key=f"antes:{table.pk}",
        kind="ante",
        legs=[
            Leg(debit=first.wallet.code, credit=pot_code(table.pk, "main"), amount=250),
            Leg(debit=second.wallet.code, credit=pot_code(table.pk, "main"), amount=251),
        ],
    )
    Round.objects.create(
        table=table,
        game=table.game,
        number=1,
        shoe="manual",
        status=RoundStatus.SETTLED,
        started_by=dealer,
        session=session,
        players=[second.pk, first.pk],
    )

    services.close_table(actor=dealer, table_id=table.pk, closing_inventory=100_000)

    assert _balance(pot_code(table.pk, "main")) == 0
    # 501 cents split two ways, the odd cent to the first in deal order.
    assert (_balance(first.wallet.code), _balance(second.wallet.code)) == (
        1_000 - 250 + 250,
        1_000 - 251 + 251,
    )
    assert (
        ActionLog.objects.filter(
            action="pot.split", actor=dealer, data__pot=pot_code(table.pk, "main")
        ).count()
        == 1
    )


# --- fills and credits ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_fill_is_issued_by_the_cage_never_by_its_requester(
    table: Table, dealer: User, pit_boss: User, cashier: User
) -> None:
    fill = services.request_tray_change(actor=pit_boss, table_id=table.pk, kind="fill", amount=1_000)

    for not_the_cage in (pit_boss, dealer):
        with pytest.raises(Forbidden):
            services.approve_tray_request(
                actor=not_the_cage, table_id=table.pk, request_id=fill.pk, kind="fill"
            )
    with pytest.raises(NotFound):
        services.approve_tray_request(actor=cashier, table_id=table.pk, request_id=fill.pk, kind="credit")

    issued = services.approve_tray_request(actor=cashier, table_id=table.pk, request_id=fill.pk, kind="fill")
    assert (issued.status, issued.issue_transfer.kind, issued.needs) == (
        "issued",
        "fill_issue",
        ["dealer", "pit_boss"],
    )
    signature = SlipSignature.objects.get(slip=fill.pk)
    assert (signature.user, signature.role, signature.password_confirmed) == (cashier, "cashier", False)
    with pytest.raises(Conflict):
        services.approve_tray_request(actor=cashier, table_id=table.pk, request_id=fill.pk, kind="fill")
    with pytest.raises(Conflict):
        services.refuse_tray_request(actor=cashier, table_id=table.pk, request_id=fill.pk, kind="fill")


@pytest.mark.django_db
def test_a_credit_is_released_by_a_pit_boss_who_did_not_ask(
    table: Table, pit_boss: User, cashier: User
) -> None:
    open_table_for(table)
    credit = services.request_tray_change(actor=pit_boss, table_id=table.pk, kind="credit", amount=1_000)

    with pytest.raises(SeparationOfDuties):
        services.approve_tray_request(actor=pit_boss, table_id=table.pk, request_id=credit.pk, kind="credit")
    with pytest.raises(Forbidden):
        services.approve_tray_request(actor=cashier, table_id=table.pk, request_id=credit.pk, kind="credit")

    released = services.approve_tray_request(
        actor=staff(Role.PIT_BOSS), table_id=table.pk, request_id=credit.pk, kind="credit"
    )
    assert (released.status, released.issue_transfer.kind, released.needs) == (
        "issued",
        "credit",
        ["cashier"],
    )


@pytest.mark.django_db
def test_only_the_tables_dealer_or_a_pit_boss_asks(table: Table, other_dealer: User, cashier: User) -> None:
    for outsider in (other_dealer, cashier):
        with pytest.raises(Forbidden):
            services.request_tray_change(actor=outsider, table_id=table.pk, kind="fill", amount=1_000)
    assert not Slip.objects.filter(table=table).exists()


@pytest.mark.django_db
def test_a_credit_cannot_take_more_than_the_tray_holds(table: Table, dealer: User, pit_boss: User) -> None:
    open_table_for(table, inventory=5_000)
    credit = services.request_tray_change(actor=dealer, table_id=table.pk, kind="credit", amount=5_001)

    with pytest.raises(InsufficientFunds):
        services.approve_tray_request(actor=pit_boss, table_id=table.pk, request_id=credit.pk, kind="credit")

    slip = Slip.objects.get(pk=credit.pk)
    assert (slip.status, slip.issue_transfer, slip.needs) == ("pending", None, ["pit_boss"])
    assert not slip.signatures.exists()


# --- seats ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_seats_fill_from_one_and_the_table_fills_up(table: Table, dealer: User, cashier: User) -> None:
    open_table_for(table)
    players = [PlayerFactory(actor=cashier) for _ in range(services.MAX_SEATS + 1)]
    services.seat_player(actor=dealer, table_id=table.pk, player_id=players[0].pk, seat=3)

    numbers = [
        services.seat_player(actor=dealer, table_id=table.pk, player_id=p.pk).number for p in players[1:12]
    ]

    assert numbers == [1, 2, *range(4, 13)]
    with pytest.raises(Conflict) as full:
        services.seat_player(actor=dealer, table_id=table.pk, player_id=players[12].pk)
    assert full.value.code == "table_full"


@pytest.mark.django_db
def test_seating_needs_an_open_table_and_a_real_player(table: Table, dealer: User, player: Player) -> None:
    with pytest.raises(Conflict):
        services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk)
    open_table_for(table)
    with pytest.raises(NotFound):
        services.seat_player(actor=dealer, table_id=table.pk, player_id=10**9)
    with pytest.raises(ValidationFailed):
        services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk, seat=13)
    assert not Seat.objects.filter(player=player).exists()


def _live_round_with(table: Table, dealer: User, session: Any, player: Player) -> Round:
    return Round.objects.create(
        table=table,
        game=table.game,
        number=1,
        shoe="manual",
        started_by=dealer,
        session=session,
        players=[player.pk],
    )


@pytest.mark.django_db
def test_a_pot_game_player_dealt_in_stays_until_the_round_settles(
    dealer: User, pit_boss: User, player: Player
) -> None:
    fan_tan = TableFactory(
        actor=pit_boss, dealer=dealer, game="fan_tan", min_bet=100, max_bet=1_000, ante=100
    )
    session = open_table_for(fan_tan)
    services.seat_player(actor=dealer, table_id=fan_tan.pk, player_id=player.pk)
    live = _live_round_with(fan_tan, dealer, session, player)
    with pytest.raises(Conflict) as in_round:
        services.unseat_player(actor=dealer, table_id=fan_tan.pk, player_id=player.pk)
    assert in_round.value.code == "chips_in_play"
    assert "stays until it settles" in in_round.value.message
    Round.objects.filter(pk=live.pk).update(status=RoundStatus.SETTLED)
    assert services.unseat_player(actor=dealer, table_id=fan_tan.pk, player_id=player.pk).left_at


@pytest.mark.django_db
def test_unseat_waits_for_chips_on_the_faro_layout_not_for_the_deal(
    table: Table, dealer: User, player: Player
) -> None:
    """GAMES.md "Leaving": a Faro punter with nothing on the layout leaves between any two actions."""
    session = open_table_for(table)
    services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk)
    live = _live_round_with(table, dealer, session, player)
    assert services.unseat_player(actor=dealer, table_id=table.pk, player_id=player.pk).left_at
    services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk)
    assert live.status != RoundStatus.SETTLED
    funded = PlayerFactory(funded=500)
    open_layout(table_id=table.pk, player_id=player.pk, holder=f"user:{player.user_id}")
    post_transfer(
        key=f"gift:{player.pk}",
        kind="bet",
        legs=[Leg(debit=funded.wallet.code, credit=layout_code(table.pk, player.pk), amount=5)],
    )
    assert services.chips_in_play_at(table=table, player=player) == 5
    with pytest.raises(Conflict) as with_chips:
        services.unseat_player(actor=dealer, table_id=table.pk, player_id=player.pk)

    assert with_chips.value.code == "chips_in_play"
    assert Seat.objects.get(player=player, left_at__isnull=True)
