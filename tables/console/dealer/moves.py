"""Say what moved: a round's settlement rows (or a tray request) as sentences for the dealer."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

from casino.money import format_dollars
from tables.accounts import BANK, LAYOUT, OVER_SHORT, POT, RAKE, pot_words, read_code


def party_name(code: str, names: Mapping[str, str]) -> str:
    """A ledger account code as the dealer would say it."""
    if code in names:
        return names[code]
    kind, _, name = read_code(code)
    if kind == BANK:
        return "the bank"
    if kind == LAYOUT:
        return "the layout"
    if kind == POT:
        return f"the {pot_words(name)}"
    if code == RAKE:
        return "the rake"
    if code == OVER_SHORT:
        return "over/short"
    return code


FARO_SENTENCES = {  # a house-banked settlement's words, by its kind
    "bet": "{payer} bet {amount}",
    "win": "Paid {amount} to {payee}",
    "loss": "Bank took {amount} from {payer}",
    "split": "Split: bank took {amount} from {payer}",
    "return": "Returned {amount} to {payee}",
    "withdraw": "Returned {amount} to {payee} (bet removed)",
}


def _owner(code: str, names: Mapping[str, str], player_name: str | None) -> str:
    if player_name and read_code(code).kind == LAYOUT:
        return player_name
    return party_name(code, names)


def describe_settlements(
    rows: Iterable[Any], names: Mapping[str, str], players: Mapping[int, str]
) -> list[str]:
    """One sentence per (kind, payer, payee), amounts summed: 'Paid $10.00 to Kate Elder'."""
    totals: OrderedDict[tuple[str, str, str, int | None], int] = OrderedDict()
    for row in rows:
        key = (row.kind, row.from_account, row.to_account, row.player_id)
        totals[key] = totals.get(key, 0) + row.amount
    sentences = []
    for (kind, source, target, player), cents in totals.items():
        player_name = players.get(player) if player is not None else None
        payer = _owner(source, names, player_name)
        payee = _owner(target, names, player_name)
        amount = format_dollars(cents)
        house_banked = bool({read_code(source).kind, read_code(target).kind} & {BANK, LAYOUT})
        words = FARO_SENTENCES.get(kind) if house_banked else None
        if words is not None:
            sentences.append(words.format(payer=payer, payee=payee, amount=amount))
        else:
            label = kind.replace("_", " ")
            sentences.append(f"{payer[:1].upper()}{payer[1:]} paid {amount} to {payee} ({label})")
    return sentences
