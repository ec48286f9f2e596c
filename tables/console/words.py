"""Actions and settlements in words: the one place a screen's sentence about an action comes from.

A dealer reads an action four ways: offered (a button, "Kate Elder stays"), done (the receipt,
"Kate Elder bet $25.00 on Q.", "Turn 3: 9♠ loses, K♥ wins."), recorded (what a correction would
void, "Bet $25.00 by Kate Elder on Q") and what it moved ("Paid $10.00 to Kate Elder"). Each is
written here, from the engine's action and state: cards by name, players by name, money in
dollars, never a code. The screens (the dealer's, the pit's) only place these words.
"""

from __future__ import annotations

import string
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from casino.money import format_dollars
from tables.accounts import BANK, LAYOUT, OVER_SHORT, POT, RAKE, pot_words, read_code
from tables.games.cards import RANKS, card_label, cards_label, hand_points

# --------------------------------------------------------------------------- people, states, places


def player_words(names: Mapping[int, str], player: Any) -> str:
    """A player as every screen names them: by name, "Player 12" if not read, "" for no one."""
    return names.get(int(player), f"Player {player}") if player is not None else ""


# The engines' state values shown on a screen (phases, settle modes, outcomes), in words.
STATE_WORDS = {
    "first_out": "the first player out wins",
    "loser_pays": "the loser pays everyone",
    "high_score": "the highest score wins",
    "points": "the top scorer is paid by points",
    "count_only": "count-only",
    "full": "every hand keyed",
    "electronic": "electronic shoe",
    "deal_tonk": "a tonk on the deal",
    "drawn_deal": "two tonks on the deal: a new deal",
    "tonk_out": "a tonk out",
    "run_out": "ran out of cards",
    "stock_out": "the stock ran out: lowest hand wins",
    "stock_out_draw": "the stock ran out: a tie, nothing paid",
    "drop": "a drop, lowest hand",
    "caught_drop": "a drop, caught",
}


def state_words(value: Any) -> str:
    """An engine's state value as words: ``high_score`` → "the highest score wins"."""
    text = str(value)
    return STATE_WORDS.get(text, text.replace("_", " "))


TARGET_LABELS = {"even": "Even", "odd": "Odd", "high": "High card"}


def placement_words(bet: Mapping[str, Any]) -> str:
    """Where a Faro bet lies: its cards (3–Q, in the layout's order), Even, Odd, High card, or the
    order a call names ("Call: 9 · J · 4"). Takes a bet as the engine shows it or as a form posts it."""
    if bet.get("kind") == "call":
        return "Call: " + " · ".join(bet.get("order", []))
    ranks = bet.get("ranks") or []
    if ranks:
        return "\u2013".join(sorted(ranks, key=lambda rank: RANKS.index(rank) if rank in RANKS else 99))
    target = str(bet.get("target"))
    return TARGET_LABELS.get(target, target)


def not_dealt_in(sat_out: Sequence[Mapping[str, Any]]) -> str:
    """Who sat the deal out and why (``tables.reserves.SatOut``, as the round's context keeps it)."""
    reasons = [
        f"{entry['name']}, who has {format_dollars(entry['available'])} available"
        f" for a {format_dollars(entry['reserve'])} reserve"
        for entry in sat_out
    ]
    return f"Not dealt in: {'; '.join(reasons)}."


# --------------------------------------------------------------------------- offered and done (pot games)

KEYED_DEAL = "deal-keyed"  # a deal that keys every hand (a required ``hands`` need)
COUNT_ONLY = "deal-count"  # the other deal on offer beside it: hands not keyed
COUNT_ONLY_LABEL = "Cards dealt, hands not keyed (count-only)"

# Per kind of offer (``games.offers``): its label formats, tried in order; the first whose fields
# the entry fixes is used ({player} a name, {card} 7♥, {spread} its cards, {amount} dollars …).
LABELS: dict[str, tuple[str, ...]] = {
    "deal": ("Deal the cards",),
    KEYED_DEAL: ("Key every hand",),
    COUNT_ONLY: (COUNT_ONLY_LABEL,),
    "farmer": ("{player} drew the 6♥: the farmer",),
    "hit": ("{player} puts {card} on {spread}", "{player} plays on {spread}", "Hit {player}"),
    "stay": ("{player} stays",),
    "play": ("{player} plays {card}", "{player} leads", "Play {card}"),
    "pass": ("{player} passes",),
    "pass-illegal": ("{player} passes holding a playable card: illegal pass",),
    "penalty": ("Illegal pass caught: {player}",),
    "penalty-earlier": ("Illegal earlier pass caught: {player}",),
    "keep": ("{player} keeps the hand",),
    "exchange": ("{player} takes the widow",),
    "bid": ("{player} bids for the widow",),
    "close_auction": ("Close the auction",),
    "draw": ("{player} draws from {from}",),
    "drop": ("{player} drops",),
    "slap": ("{player} slaps",),
    "spread": ("{player} spreads {cards}", "{player} spreads"),
    "discard": ("{player} discards {card}", "{player} discards"),
    "result": ("Record the result",),
}
GAME_LABELS: dict[tuple[str, str], tuple[str, ...]] = {  # where a game's words differ
    ("newmarket", "pass"): ("Nobody has {next}: stop", "{player} has no card to lead"),
}
DONE = {
    KEYED_DEAL: "Every hand keyed: the deal is recorded with full tracking.",
    COUNT_ONLY: "Cards dealt: count-only tracking, hands not keyed.",
}
# What happened, for the receipt: formats tried in order as for LABELS, with the filled action's
# words and what the action brought ({dealt} the cards it gave the player, {total} a Farmer
# hand's points, {buyer}/{bid} the widow's sale, {winner}/{loser}/{scores} a keyed result).
DONE_LABELS: dict[str, tuple[str, ...]] = {
    "deal": ("Cards dealt.",),
    "farmer": ("{player} drew the 6♥: the farmer.",),
    "hit": ("{player} hits: {dealt}, total {total}.", "{player} puts {card} on {spread}.", "{player} hits."),
    "stay": ("{player} stays at {total}.", "{player} stays."),
    "play": ("{player} plays {card}.", "{player} leads."),
    "pass": ("{player} passes and pays a chip to the pot.",),
    "pass-illegal": ("Illegal pass by {player}: the penalty is charged.",),
    "penalty": ("Illegal pass by {player}: the penalty is charged.",),
    "penalty-earlier": ("Illegal earlier pass by {player}: the penalty is charged.",),
    "keep": ("{player} keeps the hand: the widow goes to auction.",),
    "exchange": ("{player} takes the widow.",),
    "bid": ("{player} bids {amount} for the widow.",),
    "close_auction": ("The widow goes to {buyer} for {bid}.", "No bid: the widow stays dead."),
    "draw": ("{player} draws {dealt} from {from}.", "{player} draws from {from}."),
    "drop": ("{player} drops.",),
    "slap": ("{player} slaps and takes {dealt}.", "{player} slaps."),
    "spread": ("{player} spreads {cards}.", "{player} spreads."),
    "discard": ("{player} discards {card}.", "{player} discards."),
    "result": (
        "Result: {winner} went out first.",
        "Result: {loser} lost.",
        "Result: {scores}.",
        "Result recorded.",
    ),
}
GAME_DONE_LABELS: dict[tuple[str, str], tuple[str, ...]] = {
    ("newmarket", "pass"): (
        "Nobody has {next}: the run stops.",
        "{player} has no card to lead: the lead passes.",
    ),
}
FROM_WORDS = {"stock": "the stock", "discard": "the discard pile"}


def entry_words(
    entry: Mapping[str, Any], names: Mapping[int, str], public: Mapping[str, Any]
) -> dict[str, str]:
    """An engine entry's (or action's) fixed fields in words, for the label formats."""
    words: dict[str, str] = {}
    if "player" in entry and entry["player"] is not None:
        words["player"] = player_words(names, entry["player"])
    if isinstance(entry.get("card"), str):
        words["card"] = card_label(entry["card"])
    if isinstance(entry.get("cards"), list):
        words["cards"] = cards_label(entry["cards"])
    if "spread" in entry:
        spreads = {s.get("id"): s.get("cards", []) for s in public.get("spreads", [])}
        words["spread"] = "the spread " + cards_label(spreads.get(entry["spread"], []))
    if "from" in entry:
        words["from"] = FROM_WORDS.get(str(entry["from"]), str(entry["from"]))
    if isinstance(entry.get("amount"), int):
        words["amount"] = format_dollars(entry["amount"])
    if public.get("stage") == "run" and public.get("next_card"):
        words["next"] = card_label(public["next_card"])
    return words


def label_of(game: str, kind: str, words: Mapping[str, str], *, done: bool = False) -> str:
    """The first format of the kind's (the game's own first) whose fields ``words`` has."""
    formats = (GAME_DONE_LABELS.get((game, kind)) or DONE_LABELS.get(kind, ())) if done else ()
    for fmt in formats or GAME_LABELS.get((game, kind)) or LABELS.get(kind, ()):
        wanted = {name for _, name, _, _ in string.Formatter().parse(fmt) if name}
        if wanted <= set(words):
            return fmt.format(**words)
    return kind.replace("_", " ").replace("-", " ").capitalize()  # an action type not in the table yet


def done_words(
    game: str,
    kind: str,
    payload: Mapping[str, Any],
    *,
    names: Mapping[int, str],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    hands_before: Mapping[int, Sequence[str]],
    hands_after: Mapping[int, Sequence[str]],
) -> str:
    """A pot or stakes game's receipt headline: what the action (an offer of ``kind``) did, in
    words (the card, the total, who won what). ``before``/``after`` are the public states around
    it; the hands are ``known_hands`` (the dealer's eyes), so a card the shoe gave out is named."""
    if kind in DONE:
        return DONE[kind]
    words = entry_words(payload, names, before)
    player = payload.get("player")
    if player is not None:
        new = [c for c in hands_after.get(int(player), []) if c not in hands_before.get(int(player), [])]
        if new:
            words["dealt"] = cards_label(new)
        if game == "farmer" and hands_after.get(int(player)):
            words["total"] = str(hand_points(hands_after[int(player)]))
    widow, auction = after.get("widow") or {}, before.get("auction") or {}
    if widow.get("buyer") is not None and auction.get("bid"):
        words["buyer"] = player_words(names, widow["buyer"])
        words["bid"] = format_dollars(auction["bid"])
    for need in ("winner", "loser"):
        if payload.get(need) is not None:
            words[need] = player_words(names, payload[need])
    if isinstance(payload.get("scores"), Mapping):
        words["scores"] = ", ".join(f"{player_words(names, p)} {n}" for p, n in payload["scores"].items())
    return label_of(game, kind, words, done=True)


# --------------------------------------------------------------------------- done (Faro)


def faro_done_words(payload: Mapping[str, Any], after: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """A Faro tap's receipt headline, from the action and the public state it left (``after``:
    the turn just dealt)."""
    kind = payload.get("type")
    who = names.get(payload.get("player", 0), "")
    if kind == "bet":
        copper = " (coppered)" if payload.get("coppered") else ""
        return f"{who} bet {format_dollars(payload['amount'])} on {placement_words(payload)}{copper}."
    if kind == "remove_bet":
        return "Bet taken down."
    if kind == "soda":
        return f"Soda {card_label(after['soda'])} burned."
    if kind == "call_turn":
        return (
            f"{who} called the turn {' · '.join(payload['order'])} for {format_dollars(payload['amount'])}."
        )
    latest = after.get("latest_turn") or {}
    banker, player = card_label(latest.get("banker", "")), card_label(latest.get("player", ""))
    if kind == "last_turn":
        hock = card_label(latest.get("hock", ""))
        return f"Last turn: {banker} loses, {player} wins, hock {hock}. The deal is over."
    split = " Split!" if latest.get("split") else ""
    return f"Turn {latest.get('number')}: {banker} loses, {player} wins.{split}"


# --------------------------------------------------------------------------- recorded


def action_words(payload: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """An action as recorded, for a list of them (the correction panel's last action, what the
    pit's decision would void): 'Bet $20.00 by Wyatt Earp on K', 'Turn 9♠ K♥', 'Doc Holliday: play 7♥'."""
    kind = str(payload.get("type", ""))
    player = payload.get("player")
    who = names.get(player, "") if isinstance(player, int) else ""
    amount = payload.get("amount")
    money = format_dollars(amount) if isinstance(amount, int) and not isinstance(amount, bool) else ""
    if kind == "bet":
        where = placement_words(payload)
        where = where if payload.get("ranks") else where.lower()
        copper = " (coppered)" if payload.get("coppered") else ""
        return f"Bet {money} by {who} on {where}{copper}"
    if kind in ("turn", "last_turn", "soda"):
        cards = payload.get("cards") or ([payload["card"]] if payload.get("card") else [])
        label = {"turn": "Turn", "last_turn": "Last turn", "soda": "Soda"}[kind]
        return f"{label} {cards_label(map(str, cards))}" if cards else f"{label} (electronic shoe)"
    if kind == "remove_bet":
        return f"Bet {payload.get('bet')} taken down"
    if kind == "call_turn":
        return f"{who} calls the turn {cards_label(map(str, payload.get('order') or []))} for {money}"
    if kind == "result":
        if payload.get("winner") is not None:
            return f"Result: {names.get(payload['winner'], 'a player')} wins"
        if payload.get("loser") is not None:
            return f"Result: {names.get(payload['loser'], 'a player')} loses"
        return "Result: scores keyed"
    verb = kind.replace("_", " ")
    card = payload.get("card")
    detail = f" {card_label(str(card))}" if isinstance(card, str) else ""
    if who:
        return f"{who}: {verb}{detail}"
    return f"{verb.capitalize()}{detail}"


# --------------------------------------------------------------------------- what moved


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


def settlement_words(rows: Iterable[Any], names: Mapping[str, str], players: Mapping[int, str]) -> list[str]:
    """What a round's settlement rows moved, one sentence per (kind, payer, payee), amounts summed:
    'Paid $10.00 to Kate Elder'. ``names``: account code → name; ``players``: player id → name."""
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
