"""casino.services and casino.permissions, called directly: people, tokens, the cage, access."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from casino.api.authentication import token_digest
from casino.errors import Conflict, NotFound, ValidationFailed
from casino.models import ActionLog, ApiToken, Player, Role, User
from casino.permissions import access_player
from casino.selectors import get_balances_with, get_player_balance, get_player_balances
from casino.services import buy_in, cash_out, create_player, create_staff, issue_token, revoke_token
from ledger.errors import IdempotencyConflict, InsufficientFunds, UnknownAccount
from ledger.models import Account, AccountPurpose, Entry, Transfer
from ledger.selectors import get_balance
from ledger.services import hold
from tests.factories import PASSWORD, RUN, PlayerFactory

STRONG = "zebra-lantern-quartz-97"


@pytest.mark.django_db
def test_create_player_opens_a_wallet_and_logs_it(cashier: User) -> None:
    player = create_player(actor=cashier, username="mags", password=STRONG, name="Mags")

    wallet = Account.objects.get(pk=player.wallet_id)
    assert (wallet.purpose, wallet.holder, wallet.balance, wallet.must_not_go_negative) == (
        AccountPurpose.WALLET,
        f"user:{player.user_id}",
        0,
        True,
    )
    assert player.user.role == Role.PLAYER
    assert not player.user.is_staff
    log = ActionLog.objects.get(action="player.created", object_id=str(player.pk))
    assert (log.actor, log.object_type, log.object_id) == (cashier, "player", str(player.pk))


@pytest.mark.django_db
def test_a_refused_player_leaves_no_user_and_no_wallet(cashier: User) -> None:
    username = f"mags-{RUN}"

    with pytest.raises(ValidationFailed) as weak:
        create_player(actor=cashier, username=username, password="12345678", name="Mags")
    assert not User.objects.filter(username=username).exists()
    player = create_player(actor=cashier, username=username, password=STRONG, name="Mags")
    with pytest.raises(Conflict) as taken:
        create_player(actor=cashier, username=username.upper(), password=STRONG, name="Other Mags")

    assert "password" in weak.value.fields
    assert taken.value.code == "username_taken"
    assert list(User.objects.filter(username__iexact=username)) == [player.user]
    assert list(Account.objects.filter(holder=f"user:{player.user_id}")) == [player.wallet]


@pytest.mark.parametrize("role", ["pit_boss", "dealer", "cashier", "auditor", "admin"])
@pytest.mark.django_db
def test_create_staff_in_each_staff_role(admin: User, role: str) -> None:
    user = create_staff(actor=admin, username=f"new-{role}", password=STRONG, name="New", role=role)

    assert user.effective_role == role
    assert user.is_floor_staff
    assert user.is_staff == (role in {"admin", "pit_boss"})  # may use Django's admin site
    assert not Player.objects.filter(user=user).exists()


@pytest.mark.django_db
def test_create_staff_refuses_the_player_role(admin: User) -> None:
    with pytest.raises(ValidationFailed):
        create_staff(actor=admin, username="sneaky", password=STRONG, name="S", role=Role.PLAYER)

    assert not User.objects.filter(username="sneaky").exists()


@pytest.mark.django_db
def test_a_superuser_is_an_admin_whatever_its_stored_role() -> None:
    root = User.objects.create_superuser(username="root", password=PASSWORD, email="r@example.com")

    assert root.role == Role.PLAYER  # createsuperuser sets no role
    assert root.effective_role == Role.ADMIN
    assert root.is_floor_staff


@pytest.mark.django_db
def test_tokens_are_stored_as_digests_and_revoked_once(cashier: User) -> None:
    key = issue_token(user=cashier)
    token = ApiToken.objects.get(user=cashier)

    assert token.digest == token_digest(key) != key
    assert timedelta(0) < token.expires_at - timezone.now() <= settings.TOKEN_TTL
    revoke_token(token=token)
    first = ApiToken.objects.get(pk=token.pk).revoked_at
    revoke_token(token=token)
    assert first is not None
    assert ApiToken.objects.get(pk=token.pk).revoked_at == first


@pytest.mark.django_db
def test_buy_in_and_cash_out_with_a_key_happen_once(cashier: User, player: Player) -> None:
    first = buy_in(actor=cashier, player=player, amount=9_000, key=f"till:{player.pk}:1")
    again = buy_in(actor=cashier, player=player, amount=9_000, key=f"till:{player.pk}:1")

    assert again.pk == first.pk
    assert Account.objects.get(pk=player.wallet_id).balance == 9_000
    with pytest.raises(IdempotencyConflict):
        buy_in(actor=cashier, player=player, amount=9_500, key=f"till:{player.pk}:1")
    out = cash_out(actor=cashier, player=player, amount=4_000, key=f"till:{player.pk}:2")
    assert cash_out(actor=cashier, player=player, amount=4_000, key=f"till:{player.pk}:2").pk == out.pk
    assert Account.objects.get(pk=player.wallet_id).balance == 5_000


@pytest.mark.django_db
def test_cash_out_respects_holds_and_moves_nothing_when_refused(cashier: User) -> None:
    player = PlayerFactory(actor=cashier, funded=10_000)
    hold(key=f"reserve:{player.pk}", account_code=player.wallet.code, amount=7_000)
    entries = Entry.objects.filter(account_id=player.wallet_id).count()

    with pytest.raises(InsufficientFunds):
        cash_out(actor=cashier, player=player, amount=3_001)

    assert Entry.objects.filter(account_id=player.wallet_id).count() == entries
    assert not Transfer.objects.filter(kind="cash_out", meta__player=player.pk).exists()
    assert not ActionLog.objects.filter(action="cage.cash_out", data__player=player.pk).exists()
    balance = get_player_balance(player=player)
    assert (balance.available, balance.in_play, balance.total) == (3_000, 7_000, 10_000)


@pytest.mark.django_db
def test_an_accounts_balance_read_with_players_chips_is_what_each_read_alone_gives(cashier: User) -> None:
    held = PlayerFactory(actor=cashier, funded=10_000)
    hold(key=f"reserve:{held.pk}", account_code=held.wallet.code, amount=7_000)
    plain = PlayerFactory(actor=cashier, funded=2_500)
    cage = held.wallet.code  # any account: a table's tray on a dealer's screen
    balance, chips = get_balances_with(code=cage, players=[held, plain])
    assert balance == get_balance(code=cage)
    alone = get_player_balances(players=[held, plain])
    assert {p: (b.available, b.in_play, b.total) for p, b in chips.items()} == {
        p: (b.available, b.in_play, b.total) for p, b in alone.items()
    }
    assert (chips[held.pk].available, chips[held.pk].in_play) == (3_000, 7_000)
    assert get_balances_with(code=cage, players=[]) == (balance, {})
    with pytest.raises(UnknownAccount):
        get_balances_with(code="no:such:account", players=[plain])


@pytest.mark.django_db
def test_access_player_staff_see_all_players_see_themselves(
    player: Player, other_player: Player, auditor: User, dealer: User
) -> None:
    for staff_user in (auditor, dealer):
        assert access_player(user=staff_user, player_id=other_player.pk) == other_player
    assert access_player(user=player.user, player_id=player.pk) == player
    assert access_player(user=player.user, player_id="me") == player
    # Ids come parsed by the <player:> path converter; text is never read as an id here.
    for bad in (other_player.pk, str(player.pk), f"+{player.pk}", "abc", "", "-1", str(10**30)):
        with pytest.raises(NotFound):
            access_player(user=player.user, player_id=bad)
    with pytest.raises(NotFound):
        access_player(user=auditor, player_id="me")
