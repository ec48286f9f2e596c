"""Ledger account codes for the floor, and the map between them and engine parties.

Every code a table's chips move through is spelled here, once: the tray, a player's layout, a
pot, the rake, the cage, chips in transit between the cage and a tray. Engines name parties
(``wallet:12``, ``bank``, ``layout:12``, ``pot:main``, ``rake``; tables.games.base);
``PartyMap`` turns those into ledger codes for one table and back, so posting a round and
checking or reading one name accounts alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from django.db.models import QuerySet

from casino.models import Player
from ledger.models import Account, AccountKind, AccountPurpose
from ledger.services import open_account
from tables.games import base
from tables.games.cards import FULL_DECK, card_label
from tables.models import Table

OVER_SHORT = "over_short"
TRANSIT = "transit"  # chips between the cage and a tray on a fill or credit slip (open_transit)
CAGE = "cage"  # opened with the house's accounts (ledger.services.ensure_system_accounts)
RAKE = "rake"  # the house's rake revenue (ditto)
WALLET_PREFIX = "wallet:"  # player wallets (casino.services.create_player names them)

# Party kinds: an engine party is ``kind`` or ``kind:ref`` (tables.games.base).
WALLET, LAYOUT, POT, BANK = "wallet", "layout", "pot", base.BANK
_TRAY, _LAYOUT, _POT = "tray", "layout", "pot"  # the matching code prefixes


def tray_code(table_id: int) -> str:
    return f"{_TRAY}:{table_id}"


def layout_code(table_id: int, player_id: int) -> str:
    return f"{_LAYOUT}:{table_id}:{player_id}"


def pot_code(table_id: int, name: str) -> str:
    return f"{_POT}:{table_id}:{name}"


class CodeParts(NamedTuple):
    """A ledger code read without knowing its table: the party kind it holds, its table and ref."""

    kind: str  # bank, layout, pot, rake, wallet, or the code itself for the house's other accounts
    table: int | None
    ref: str  # layout: the player id; pot: its name; wallet: what follows ``wallet:``


def read_code(code: str) -> CodeParts:
    """``tray:5`` → (bank, 5, ""); ``layout:5:12`` → (layout, 5, "12"); ``pot:5:main`` → (pot, 5, "main")."""
    if code == RAKE:
        return CodeParts(base.RAKE, None, "")
    if code.startswith(WALLET_PREFIX):
        return CodeParts(WALLET, None, code[len(WALLET_PREFIX) :])
    prefix, _, rest = code.partition(":")
    table, _, ref = rest.partition(":")
    if table.isdigit():
        if prefix == _TRAY and not ref:
            return CodeParts(BANK, int(table), "")
        if prefix == _LAYOUT and ref:
            return CodeParts(LAYOUT, int(table), ref)
        if prefix == _POT and ref:
            return CodeParts(POT, int(table), ref)
    return CodeParts(code, None, "")


def split_party(party: str) -> tuple[str, str]:
    """``wallet:12`` → ("wallet", "12"); ``bank`` → ("bank", "")."""
    kind, _, ref = party.partition(":")
    return kind, ref


class PartyMap:
    """Engine party ↔ ledger code at one table, both ways.

    ``wallets`` (player id → wallet code) must cover the wallets asked about; layouts and pots
    are named from ids alone. ``party`` returns a code it cannot place (another table's, or a
    wallet it was not given) unchanged, so a comparison shows it instead of hiding it.
    """

    def __init__(self, table_id: int, wallets: Mapping[int, str]) -> None:
        self.table_id = table_id
        self.wallets = dict(wallets)
        self.players = {code: player for player, code in self.wallets.items()}
        self._parties: dict[str, str] = {}  # code → party, read once (an audit reads thousands)

    @classmethod
    def of_codes(cls, table_id: int, codes: Iterable[str]) -> PartyMap:
        """The map for every wallet among ``codes`` (one query if there is one): whoever a
        round's settlements touched, a punter who sat down mid-deal too."""
        wallets = {code for code in codes if code.startswith(WALLET_PREFIX)}
        found = Player.objects.filter(wallet__code__in=wallets).values_list("pk", "wallet__code")
        return cls(table_id, dict(found) if wallets else {})

    def code(self, party: str) -> str:
        kind, ref = split_party(party)
        if party == base.BANK:
            return tray_code(self.table_id)
        if party == base.RAKE:
            return RAKE
        if kind == WALLET:
            return self.wallets[int(ref)]
        if kind == LAYOUT:
            return layout_code(self.table_id, int(ref))
        if kind == POT:
            return pot_code(self.table_id, ref)
        raise ValueError(f"unknown party {party!r}")

    def party(self, code: str) -> str:
        party = self._parties.get(code)
        if party is None:
            party = self._parties[code] = self._party(code)
        return party

    def _party(self, code: str) -> str:
        player = self.players.get(code)
        if player is not None:
            return base.wallet(player)
        kind, table, ref = read_code(code)
        if kind == base.RAKE:
            return base.RAKE
        if table != self.table_id:
            return code
        if kind == BANK:
            return base.BANK
        if kind == LAYOUT:
            return base.layout(int(ref))
        return base.pot(ref)  # the only other kind read_code gives a table

    def player_of(self, code: str) -> int | None:
        """The player whose wallet this code is (None: not a wallet on this map)."""
        return self.players.get(code)


def table_pots(table_id: int) -> QuerySet[Account]:
    """The table's pot accounts (every pot it has had)."""
    return Account.objects.filter(code__startswith=pot_code(table_id, ""), purpose=AccountPurpose.POT)


def pot_name(code: str) -> str:
    """``pot:5:main`` → ``main``."""
    return read_code(code).ref


# An account's name is how every refusal names it to a person, on the API and on the screens
# ("Wyatt Earp's layout at Faro 1 has $0.00 available"; the ledger's posting functions read
# it): words, never ids. The layouts' and pots' names are written here, once.
POT_WORDS = {"main": "pot", "farm": "farm", "side": "side pot"}
_NAME_LENGTH = Account._meta.get_field("name").max_length or 200


def pot_words(name: str) -> str:
    """A pot as people say it: main → "pot", side → "side pot", Newmarket's AH → "A♥ pot"."""
    if name in POT_WORDS:
        return POT_WORDS[name]
    return f"{card_label(name) if name in FULL_DECK else name} pot"


def layout_name(*, player: str, table: str) -> str:
    """``Wyatt Earp's layout at Faro 1``."""
    return f"{player}'s layout at {table}"[:_NAME_LENGTH]


def pot_account_name(*, name: str, table: str) -> str:
    """``Pot at Fan Tan 1``, ``Side pot at Farmer 2``, ``A♥ pot at Newmarket 1``."""
    words = pot_words(name)
    return f"{words[:1].upper()}{words[1:]} at {table}"[:_NAME_LENGTH]


def _table_name(table_id: int) -> str:
    return str(Table.objects.values_list("name", flat=True).get(pk=table_id))


def open_layout(*, table_id: int, player_id: int, holder: str) -> Account:
    """A player's chips on one table's layout: theirs, but in play (API.md ``in_play``).

    Only a player's first bet at a table opens it, so the two names are rarely read.
    """
    player = Player.objects.select_related("user").get(pk=player_id)
    return open_account(
        code=layout_code(table_id, player_id),
        kind=AccountKind.LIABILITY,
        purpose=AccountPurpose.LAYOUT,
        holder=holder,
        name=layout_name(player=player.name, table=_table_name(table_id)),
    )


def open_pot(*, table_id: int, name: str) -> Account:
    """A pot is owed to players, never house money."""
    return open_account(
        code=pot_code(table_id, name),
        kind=AccountKind.LIABILITY,
        purpose=AccountPurpose.POT,
        name=pot_account_name(name=name, table=_table_name(table_id)),
    )


def open_over_short() -> Account:
    """Count variances land here, so the tray's ledger balance always equals the last count."""
    return open_account(
        code=OVER_SHORT,
        kind=AccountKind.EXPENSE,
        purpose=AccountPurpose.SUSPENSE,
        name="Count over/short",
        must_not_go_negative=False,
    )


def open_transit() -> Account:
    """Chips on their way between the cage and a tray (a fill issued by the cage and not yet
    received at the table, a credit released by the pit and not yet received at the cage):
    neither the cage's nor the tray's. Its balance is the sum of the slips in transit, so it
    never goes below zero."""
    return open_account(
        code=TRANSIT,
        kind=AccountKind.ASSET,
        purpose=AccountPurpose.TRANSIT,
        name="Chips in transit",
    )


# --------------------------------------------------------------------------- cash at the tables
TABLE_CASH = "table_cash"  # the house's side of cash players hand over at a table (open_table_cash)
COUNT_ROOM = "count_room"  # cash the count team has taken out of the boxes, until the cage signs
_DROP = "drop"


def drop_code(box_id: int) -> str:
    """``drop:42``: the cash recorded into drop box 42."""
    return f"{_DROP}:{box_id}"


def open_table_cash() -> Account:
    """Where the cash a player hands a dealer comes from, in the books: the house's cash taken at
    the tables. Each cash buy-in pays the box from it; it only grows more negative, by every
    dollar the tables took, as the cage's chip account does by every chip it issued."""
    return open_account(
        code=TABLE_CASH,
        kind=AccountKind.EQUITY,
        purpose=AccountPurpose.HOUSE_BANK,
        name="Cash taken at the tables",
        must_not_go_negative=False,
    )


def open_drop(*, box_id: int, number: str, table: str) -> Account:
    """The cash in one drop box, as recorded at its table: emptied into the count room when the
    box is counted, so it never goes below zero."""
    return open_account(
        code=drop_code(box_id),
        kind=AccountKind.ASSET,
        purpose=AccountPurpose.DROP,
        name=f"Drop box {number} at {table}"[:_NAME_LENGTH],
    )


def open_count_room() -> Account:
    """Cash counted out of the drop boxes and not yet taken into the cage."""
    return open_account(
        code=COUNT_ROOM,
        kind=AccountKind.ASSET,
        purpose=AccountPurpose.COUNT_ROOM,
        name="Cash in the count room",
    )
