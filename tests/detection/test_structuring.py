"""The structuring rule tells one day's cash in pieces from a winner's one cash-out a night."""

from __future__ import annotations

import datetime as dt
import secrets

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.cash.services import link_transfer, record_cash
from casino.models import Player, Role, User
from casino.services import buy_in, cash_out
from ledger.gaming_day import gaming_day_for
from ledger.models import Transfer
from ledger.services import Leg, post_transfer
from tables.accounts import CAGE
from tables.detection.base import Finding, Window
from tables.detection.detectors import aml
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("system_accounts")]

LINE = settings.CTR_THRESHOLD


def near_line(percent: int) -> int:
    return LINE * percent // 100


@transaction.atomic
def cash_out_yesterday(player: Player, amount: int) -> Transfer:
    """A cash-out dated the previous gaming day (the cage's services only post today): its cash
    line, as the cage writes one, and its transfer."""
    at = timezone.now() - dt.timedelta(days=1)
    cashier = factories.staff(Role.CASHIER)
    line = record_cash(
        player=player, direction="out", kind="cage_cash_out", amount=amount, where="Cage", by=cashier, at=at
    )
    transfer = post_transfer(
        key=f"cash_out:{secrets.token_hex(8)}",
        kind="cash_out",
        legs=[Leg(debit=player.wallet.code, credit=CAGE, amount=amount)],
        memo=f"Cash-out by {player.name}",
        meta={"player": player.pk},
        at=at,
    )
    link_transfer(cash=line, transfer=transfer)
    return transfer


def structuring_of(player: Player) -> list[Finding]:
    window = Window.for_day(gaming_day_for())
    return [f for f in aml.detect(window) if f.kind == "structuring" and f.player_id == player.pk]


def funded_player() -> tuple[Player, User]:
    cashier = factories.staff(Role.CASHIER)
    player = factories.PlayerFactory(actor=cashier)
    factories.identified(player)  # on file: a buy-in past the CTR line goes through
    buy_in(actor=cashier, player=player, amount=3 * LINE)  # one buy-in, far over the line
    return player, cashier


def test_a_winner_cashing_out_once_a_night_just_under_the_line_is_not_structuring() -> None:
    player, cashier = funded_player()
    yesterday = cash_out_yesterday(player, near_line(96))
    cash_out(actor=cashier, player=player, amount=near_line(93))
    assert yesterday.gaming_day == gaming_day_for() - dt.timedelta(days=1)
    assert structuring_of(player) == []


def test_one_days_cash_out_in_pieces_under_the_line_is_structuring() -> None:
    player, cashier = funded_player()
    yesterday = cash_out_yesterday(player, near_line(96))
    pieces = [cash_out(actor=cashier, player=player, amount=near_line(p)) for p in (93, 91)]
    (finding,) = structuring_of(player)
    today, before = gaming_day_for(), gaming_day_for() - dt.timedelta(days=1)
    assert finding.evidence["split_days"] == [today.isoformat()]
    assert finding.evidence["days"] == [before.isoformat(), today.isoformat()]
    listed = [t["transfer"] for t in finding.evidence["cash_out"]["transactions"]]
    assert listed == [yesterday.pk, *(p.pk for p in pieces)]
    assert "in pieces on 1 of them" in finding.summary


def test_pieces_on_an_earlier_day_alone_do_not_raise_todays_alert() -> None:
    player, _ = funded_player()
    for percent in (96, 94):
        cash_out_yesterday(player, near_line(percent))
    assert structuring_of(player) == []
