"""Tonk (GAMES.md "Tonk"): 2-4 players, five cards each, stakes paid wallet to wallet.

Actions (API.md "tonk"): ``deal``, ``draw``, ``spread``, ``hit``, ``discard``, ``drop``,
``slap``. Three ways of tracking the cards:

* ``electronic`` - the engine deals from ``ctx.deck`` at ``deal {}`` and knows every hand;
* ``full`` - manual shoe, ``deal {hands, upcard}`` keys every hand; stock draws key the card;
* ``count_only`` - manual shoe, ``deal {upcard}``: the engine knows hand sizes, the face-up
  cards (pile, spreads) and which pile cards each player picked up, but not the rest.

Decisions where GAMES.md is silent (each has a test named after it):

* Count-only needs the dealer's word where hands are shown. Optional fields added to the
  API.md actions: ``deal {upcard, tonks: {player: [5 cards]}}`` keys the hands shown as a
  tonk on the deal (checked: unseen cards that really make a tonk); ``drop {player,
  totals: {player: n}}`` and, on the discard that empties the stock, ``discard {player,
  card, totals}`` key every hand's total (checked against what is possible for the hand's
  size and known cards). With full tracking ``totals`` is optional and must match.
* Stock draws: with an electronic shoe the card is refused (the engine deals it); with full
  tracking it is required; in count-only it is refused (the card is secret).
  Discard-pile draws may name the card, which must then be the top of the pile.
* A card taken from the discard pile (or slapped) may not be discarded in the same turn
  (the classic rummy rule), so no turn can pass without changing a hand.
* Hence a spread or hit that would leave only that card in the hand, where it then fits no
  spread, is refused: the player could neither discard it nor play it, and the turn (and
  the round) could never end.
* The stock runs out when a turn ends (a discard) with no stock left: the hands are shown
  at once; no slap follows that discard. Running out (hand empty) takes precedence.
* A caught drop (GAMES.md): the dropper pays ``caught_drop_pays`` stakes to each player
  whose total is equal or lower; then every player who is not among the lowest totals pays
  one stake to each of the lowest players. The lowest are taken over every hand, so a
  dropper tied for lowest is paid too (15, 15, 29 at a stake of 100 and one penalty:
  dropper 0, the tied player +200, the third -200). The reserve
  ``(caught_drop_pays + 1) x stake x (players - 1)`` covers the most anyone pays.
* Slap (GAMES.md): the slapper must be able to play the card at once, as a hit on a table
  spread or in a new spread with cards from their hand. With known hands the engine checks
  the hand; count-only it trusts the dealer, as for spreads, as far as the cards seen allow
  (enough unseen cards to make such a spread). The slapper must not be barred from
  hitting, must not be the discarder, and plays the card first: their first spread or hit
  uses it, before any other play or the discard. Skipped players lose that turn.
* "Their next turn" for a player whose spread was hit is the next turn they actually play
  (a skipped turn does not count). Hitting your own spread bars nobody.
* Two or more tonks on the deal: nothing is paid, ``redeal`` is true, and ``carry_out``
  keeps the same dealer (``same_dealer``) for the new deal.
* No percent rake (there is no pot); payments are made in order from the dealer's left.
* Play can cycle (every player drawing from the discard pile), as at a real table; a
  stock draw always shortens the stock, so the round can always be brought to an end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

from tables.games import input_checks as checks
from tables.games.base import Engine, Settlement, TableContext, replaced_at, seats_from_left_of, wallet
from tables.games.cards import (
    FULL_DECK,
    RANKS,
    SUITS,
    card_label,
    cards_label,
    hand_points,
    parse_card,
    parse_cards,
    rank_index,
    rank_of,
    suit_of,
)
from tables.games.errors import IllegalAction, refuse
from tables.games.payments import Reserves
from tables.games.shoe import check_keyed_card

HAND_SIZE = 5
DEAL, DRAW, PLAY, OVER = "deal", "draw", "play", "over"
ELECTRONIC, FULL, COUNT_ONLY = "electronic", "full", "count_only"
DEAL_TONK_RULES = ("50_or_11", "49_or_50")


@dataclass(frozen=True, slots=True)
class Spread:
    owner: int
    kind: str  # "set" | "run"
    cards: tuple[str, ...]  # sets by suit, runs low to high


@dataclass(frozen=True, slots=True)
class TonkState:
    stake: int
    deal_tonk: str
    slap: bool
    caught_drop_pays: int
    dealer_seat: int
    players: tuple[int, ...]  # from the dealer's left; the dealer last
    reserve_left: tuple[int, ...]  # aligned with players
    deck: tuple[str, ...] | None  # electronic shoe order; None for a manual shoe
    phase: str = DEAL
    tracking: str | None = None
    hands: tuple[tuple[str, ...], ...] = ()  # exact hands; count-only: the cards known held
    unseen: tuple[int, ...] = ()  # count-only: cards held that nobody has seen
    next_card: int = 0  # electronic: index in ``deck`` of the top of the stock
    stock_count: int = 0
    pile: tuple[str, ...] = ()  # the discard pile, bottom to top
    spreads: tuple[Spread, ...] = ()
    turn: int = 0  # index into players
    taken: str | None = None  # card taken from the pile this turn: it may not go straight back
    must_play: str | None = None  # slapped card still to be played
    barred: tuple[int, ...] = ()  # players whose spread was hit, until their next turn
    barred_now: bool = False  # the player on turn may not spread or hit
    slap_open: bool = False
    last_discarder: int | None = None
    outcome: str | None = None
    winners: tuple[int, ...] = ()
    shown: tuple[tuple[int, int], ...] = ()  # (player, total) of the hands shown


Step = tuple[TonkState, tuple[Settlement, ...]]


# --- spreads -------------------------------------------------------------------------


def _consecutive(values: Sequence[int]) -> bool:
    ordered = sorted(values)
    return len(set(ordered)) == len(ordered) and ordered[-1] - ordered[0] == len(ordered) - 1


def _run_ranks(cards: Sequence[str]) -> list[int] | None:
    """Rank numbers of a run with the ace low (1) or high (14), never both: K-A-2 fails."""
    low = [rank_index(rank_of(card)) for card in cards]
    if _consecutive(low):
        return low
    high = [14 if value == 1 else value for value in low]
    return high if _consecutive(high) else None


def spread_kind(cards: Sequence[str]) -> str | None:
    """Classify a spread: a set is three or four of a rank, a run three or more suited in a row."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return None
    if len({rank_of(card) for card in cards}) == 1:
        return "set"
    if len({suit_of(card) for card in cards}) == 1 and _run_ranks(cards) is not None:
        return "run"
    return None


def arrange(cards: Sequence[str], kind: str) -> tuple[str, ...]:
    if kind == "set":
        return tuple(sorted(cards, key=lambda card: "SHDC".index(suit_of(card))))
    ranks = _run_ranks(cards) or []
    return tuple(card for _, card in sorted(zip(ranks, cards, strict=True)))


def is_deal_tonk(hand: Sequence[str], rule: str) -> bool:
    total = hand_points(hand)
    if rule == "49_or_50":
        return total in (49, 50)
    return total == 50 or total <= 11


# --- small state helpers ---------------------------------------------------------------


def _knows_hands(state: TonkState) -> bool:
    return state.tracking in (ELECTRONIC, FULL)


def _hand_size(state: TonkState, index: int) -> int:
    return len(state.hands[index]) + state.unseen[index]


def _seen(state: TonkState, *, besides: Iterable[str] = ()) -> frozenset[str]:
    """Every card whose place is known: hands (or known cards), the pile, the spreads."""
    cards = set(besides).union(state.pile)
    for hand in state.hands:
        cards.update(hand)
    for spread in state.spreads:
        cards.update(spread.cards)
    return frozenset(cards)


def _who(state: TonkState) -> int:
    return state.players[state.turn]


def _on_turn(state: TonkState, action: Mapping[str, Any], phase: str) -> int:
    """The acting player's index, once it is their turn and the right moment in it."""
    player = checks.player_field(action, "player", state.players)
    if state.phase == DEAL:
        raise refuse("Deal the cards first.")
    checks.check_turn(player, _who(state))
    if phase == DRAW and state.phase != DRAW:
        raise refuse(f"Player {player} has already drawn this turn.")
    if phase == PLAY and state.phase != PLAY:
        raise refuse(f"Player {player} must draw (or drop) first.")
    return state.turn


def _finish(state: TonkState, reserves: Reserves | None, outcome: str, winners: Sequence[int]) -> Step:
    over = replace(state, phase=OVER, outcome=outcome, winners=tuple(winners), slap_open=False)
    if reserves is None:
        return over, ()
    return replace(over, reserve_left=reserves.remaining(state.players)), tuple(reserves.settlements)


def _everyone_pays(state: TonkState, winner: int, stakes: int, outcome: str) -> Step:
    reserves = Reserves(zip(state.players, state.reserve_left, strict=True))
    for payer in state.players:
        if payer != winner:
            reserves.pay("win", payer, wallet(winner), stakes * state.stake)
    return _finish(state, reserves, outcome, (winner,))


# --- hands -------------------------------------------------------------------------


def _take_from_hand(state: TonkState, index: int, cards: Sequence[str]) -> TonkState:
    """Remove played cards from a hand; count-only draws on the player's unseen cards."""
    player, hand = state.players[index], state.hands[index]
    if _knows_hands(state):
        for card in cards:
            if card not in hand:
                raise refuse(f"Player {player} does not hold {card_label(card)}.")
        return replace(state, hands=replaced_at(state.hands, index, tuple(c for c in hand if c not in cards)))
    unseen = [card for card in cards if card not in hand]
    seen = _seen(state)
    for card in unseen:
        check_keyed_card(card, deck=FULL_DECK, out=seen)
    if len(unseen) > state.unseen[index]:
        raise refuse(f"Player {player} holds only {state.unseen[index]} card(s) not seen yet.")
    return replace(
        state,
        hands=replaced_at(state.hands, index, tuple(c for c in hand if c not in cards)),
        unseen=replaced_at(state.unseen, index, state.unseen[index] - len(unseen)),
    )


def _give(state: TonkState, index: int, card: str) -> TonkState:
    return replace(state, hands=replaced_at(state.hands, index, (*state.hands[index], card)))


def _totals(state: TonkState, action: Mapping[str, Any]) -> tuple[int, ...]:
    """Every hand's total as shown: computed when the engine knows the hands, else keyed."""
    if _knows_hands(state):
        computed = tuple(hand_points(hand) for hand in state.hands)
        if checks.present(action, "totals"):
            keyed = checks.int_map_for_all(action["totals"], state.players, "totals")
            if tuple(keyed[p] for p in state.players) != computed:
                shown = ", ".join(f"{p}: {t}" for p, t in zip(state.players, computed, strict=True))
                raise refuse(f"The keyed totals do not match the hands ({shown}).")
        return computed
    if not checks.present(action, "totals"):
        raise refuse("The hands are shown now: key every player's total in 'totals'.")
    keyed = checks.int_map_for_all(action["totals"], state.players, "totals")
    for index, player in enumerate(state.players):
        _check_total(state, index, player, keyed[player])
    return tuple(keyed[p] for p in state.players)


def _check_total(state: TonkState, index: int, player: int, total: int) -> None:
    known = hand_points(state.hands[index])
    unseen = state.unseen[index]
    if not known + unseen <= total <= known + 10 * unseen:
        size = _hand_size(state, index)
        raise refuse(f"Player {player} holds {size} card(s); a total of {total} is not possible.")


# --- the deal ----------------------------------------------------------------------


def _deal(state: TonkState, action: Mapping[str, Any]) -> Step:
    if state.phase != DEAL:
        raise refuse("The cards are already dealt.")
    if state.deck is not None:
        new = _deal_electronic(state, action)
    elif checks.present(action, "hands"):
        new = _deal_full(state, action)
    else:
        new = _deal_count_only(state, action)
    n = len(state.players)
    new = replace(new, phase=DRAW, turn=0, stock_count=len(FULL_DECK) - HAND_SIZE * n - 1)
    return _settle_deal_tonks(new)


def _deal_electronic(state: TonkState, action: Mapping[str, Any]) -> TonkState:
    for field in ("hands", "upcard", "tonks"):
        if checks.present(action, field):
            raise refuse(f"'{field}' is not keyed with an electronic shoe: the engine deals.")
    deck, n = state.deck or (), len(state.players)
    hands = tuple(tuple(deck[i + n * k] for k in range(HAND_SIZE)) for i in range(n))
    upcard = deck[HAND_SIZE * n]
    return replace(
        state, tracking=ELECTRONIC, hands=hands, unseen=(0,) * n, pile=(upcard,), next_card=HAND_SIZE * n + 1
    )


def _upcard(action: Mapping[str, Any]) -> str:
    if not checks.present(action, "upcard"):
        raise refuse("Key the upcard that starts the discard pile ('upcard').")
    return parse_card(action["upcard"])


def _keyed_hand(cards: object, player: int, out: set[str]) -> tuple[str, ...]:
    hand = parse_cards(cards, field=f"hands[{player}]")
    if len(hand) != HAND_SIZE:
        raise refuse(f"Player {player} must be dealt {HAND_SIZE} cards, not {len(hand)}.")
    for card in hand:
        check_keyed_card(card, deck=FULL_DECK, out=frozenset(out))
        out.add(card)
    return hand


def _deal_full(state: TonkState, action: Mapping[str, Any]) -> TonkState:
    if checks.present(action, "tonks"):
        raise refuse("With every hand keyed the engine finds tonks itself; leave out 'tonks'.")
    upcard = _upcard(action)
    keyed = checks.player_map_for_all(action["hands"], state.players, "hands")
    out = {upcard}
    hands = tuple(_keyed_hand(keyed[p], p, out) for p in state.players)
    return replace(state, tracking=FULL, hands=hands, unseen=(0,) * len(hands), pile=(upcard,))


def _deal_count_only(state: TonkState, action: Mapping[str, Any]) -> TonkState:
    upcard = _upcard(action)
    keyed = (
        checks.player_map(action["tonks"], state.players, "tonks") if checks.present(action, "tonks") else {}
    )
    out = {upcard}
    shown = {p: _keyed_hand(keyed[p], p, out) for p in state.players if p in keyed}
    for player, hand in shown.items():
        if not is_deal_tonk(hand, state.deal_tonk):
            total = hand_points(hand)
            raise refuse(
                f"Player {player}'s hand totals {total}: not a tonk on the deal ({state.deal_tonk})."
            )
    hands = tuple(shown.get(p, ()) for p in state.players)
    unseen = tuple(0 if p in shown else HAND_SIZE for p in state.players)
    return replace(state, tracking=COUNT_ONLY, hands=hands, unseen=unseen, pile=(upcard,))


def _settle_deal_tonks(state: TonkState) -> Step:
    """One tonk: the others pay it two stakes. Two or more: a draw and a new deal."""
    tonks = [
        (p, hand)
        for p, hand, unseen in zip(state.players, state.hands, state.unseen, strict=True)
        if unseen == 0 and is_deal_tonk(hand, state.deal_tonk)
    ]
    if not tonks:
        return state, ()
    state = replace(state, shown=tuple((p, hand_points(hand)) for p, hand in tonks))
    if len(tonks) > 1:
        return _finish(state, None, "drawn_deal", ())
    return _everyone_pays(state, tonks[0][0], 2, "deal_tonk")


# --- a turn ------------------------------------------------------------------------


def _begin_turn(state: TonkState, index: int, taken: str | None, must_play: str | None) -> TonkState:
    player = state.players[index]
    return replace(
        state,
        phase=PLAY,
        turn=index,
        taken=taken,
        must_play=must_play,
        barred_now=player in state.barred,
        barred=tuple(p for p in state.barred if p != player),
        slap_open=False,
        last_discarder=None,
    )


def _draw(state: TonkState, action: Mapping[str, Any]) -> Step:
    index = _on_turn(state, action, DRAW)
    source = action.get("from")
    if source == "stock":
        return _begin_turn(_draw_stock(state, index, action), index, None, None), ()
    if source == "discard":
        card = _top_of_pile(state, action)
        new = replace(_give(state, index, card), pile=state.pile[:-1])
        return _begin_turn(new, index, card, None), ()
    raise refuse('\'from\' must be "stock" or "discard".')


def _draw_stock(state: TonkState, index: int, action: Mapping[str, Any]) -> TonkState:
    if state.stock_count <= 0:
        raise refuse("The stock is empty.")
    state = replace(state, stock_count=state.stock_count - 1)
    if state.tracking == FULL:
        if not checks.present(action, "card"):
            raise refuse("Key the card drawn from the stock ('card').")
        card = parse_card(action["card"])
        check_keyed_card(card, deck=FULL_DECK, out=_seen(state))
        return _give(state, index, card)
    if checks.present(action, "card"):
        why = "the engine deals it" if state.tracking == ELECTRONIC else "it is secret in count-only tracking"
        raise refuse(f"Do not key a card drawn from the stock: {why}.")
    if state.tracking == ELECTRONIC:
        deck = state.deck or ()
        return replace(_give(state, index, deck[state.next_card]), next_card=state.next_card + 1)
    return replace(state, unseen=replaced_at(state.unseen, index, state.unseen[index] + 1))


def _top_of_pile(state: TonkState, action: Mapping[str, Any]) -> str:
    if not state.pile:
        raise refuse("The discard pile is empty.")
    top = state.pile[-1]
    if checks.present(action, "card") and parse_card(action["card"]) != top:
        raise refuse(f"The top of the discard pile is {top}, not {parse_card(action['card'])}.")
    return top


def _strands(
    state: TonkState, held_after: Sequence[str], unseen_after: int, spreads: Iterable[Sequence[str]]
) -> bool:
    """Would the hand be left holding only the card just taken, which then fits no spread?"""
    taken = state.taken
    if taken is None or tuple(held_after) != (taken,) or unseen_after:
        return False
    return not any(spread_kind((*cards, taken)) for cards in spreads)


def _check_not_stranded(state: TonkState, index: int) -> None:
    """After a spread or hit: refuse leaving only the card taken this turn if it fits nowhere."""
    if _strands(state, state.hands[index], state.unseen[index], (s.cards for s in state.spreads)):
        raise refuse(
            f"That would leave only {state.taken}, just taken from the discard pile: it could be "
            "neither discarded nor played."
        )


def _check_not_barred(state: TonkState) -> None:
    if state.barred_now:
        raise refuse(f"Player {_who(state)}'s spread was hit: they may not spread or hit this turn.")


def _check_plays_slapped(state: TonkState, cards: Sequence[str]) -> None:
    """A slapped card is played at once: the first spread or hit after a slap uses it."""
    if state.must_play is not None and state.must_play not in cards:
        raise refuse(f"Player {_who(state)} slapped {card_label(state.must_play)} and must play it first.")


def _after_play(state: TonkState, index: int, played: Sequence[str]) -> Step:
    """A card left the hand onto the table: an empty hand is a tonk out (two stakes each)."""
    if state.must_play in played:
        state = replace(state, must_play=None)
    if _hand_size(state, index) == 0:
        return _everyone_pays(state, state.players[index], 2, "tonk_out")
    return state, ()


def _spread(state: TonkState, action: Mapping[str, Any]) -> Step:
    index = _on_turn(state, action, PLAY)
    _check_not_barred(state)
    cards = parse_cards(action.get("cards"))
    _check_plays_slapped(state, cards)
    kind = spread_kind(cards)
    if kind is None:
        raise refuse(
            f"{cards_label(cards)} is not a spread: three or four of a rank, or a suited run of three "
            "or more (ace low or high, never K-A-2)."
        )
    new = _take_from_hand(state, index, cards)
    new = replace(new, spreads=(*new.spreads, Spread(_who(state), kind, arrange(cards, kind))))
    _check_not_stranded(new, index)
    return _after_play(new, index, cards)


def _spread_index(state: TonkState, action: Mapping[str, Any]) -> int:
    value = action.get("spread")
    if not checks.is_int(value) or not 0 <= value < len(state.spreads):
        raise refuse(f"'spread' must be the id of a spread on the table (0 to {len(state.spreads) - 1}).")
    return int(value)


def _hit(state: TonkState, action: Mapping[str, Any]) -> Step:
    index = _on_turn(state, action, PLAY)
    _check_not_barred(state)
    card = parse_card(action.get("card"))
    _check_plays_slapped(state, (card,))
    target_id = _spread_index(state, action)
    new = _take_from_hand(state, index, (card,))
    target = state.spreads[target_id]
    kind = spread_kind((*target.cards, card))
    if kind is None:
        raise refuse(f"{card_label(card)} does not fit the spread {cards_label(target.cards)}.")
    grown = Spread(target.owner, kind, arrange((*target.cards, card), kind))
    barred = new.barred
    if target.owner != _who(state) and target.owner not in barred:
        barred = (*barred, target.owner)
    new = replace(new, spreads=replaced_at(new.spreads, target_id, grown), barred=barred)
    _check_not_stranded(new, index)
    return _after_play(new, index, (card,))


def _discard(state: TonkState, action: Mapping[str, Any]) -> Step:
    index = _on_turn(state, action, PLAY)
    card = parse_card(action.get("card"))
    if state.must_play is not None:
        raise refuse(
            f"Player {_who(state)} slapped {card_label(state.must_play)} and must play it before discarding."
        )
    if card == state.taken:
        raise refuse(f"{card_label(card)} was just taken from the discard pile and cannot go straight back.")
    new = _take_from_hand(state, index, (card,))
    new = replace(new, pile=(*new.pile, card))
    if _hand_size(new, index) == 0:
        _refuse_totals(action)
        return _everyone_pays(new, _who(state), 1, "run_out")
    if new.stock_count == 0:
        return _stock_out(new, action)
    _refuse_totals(action)
    return _pass_left(new, index), ()


def _refuse_totals(action: Mapping[str, Any]) -> None:
    if checks.present(action, "totals"):
        raise refuse("No hands are shown on this discard; leave out 'totals'.")


def _pass_left(state: TonkState, index: int) -> TonkState:
    return replace(
        state,
        phase=DRAW,
        turn=(index + 1) % len(state.players),
        taken=None,
        must_play=None,
        barred_now=False,
        slap_open=state.slap,
        last_discarder=state.players[index],
    )


def _stock_out(state: TonkState, action: Mapping[str, Any]) -> Step:
    """The stock is gone: the lowest total wins one stake from each; a tie is a draw."""
    totals = _totals(state, action)
    state = replace(state, shown=tuple(zip(state.players, totals, strict=True)))
    low = min(totals)
    lowest = [p for p, total in zip(state.players, totals, strict=True) if total == low]
    if len(lowest) > 1:
        return _finish(state, None, "stock_out_draw", ())
    return _everyone_pays(state, lowest[0], 1, "stock_out")


def _drop(state: TonkState, action: Mapping[str, Any]) -> Step:
    index = _on_turn(state, action, DRAW)
    totals = _totals(state, action)
    state = replace(state, shown=tuple(zip(state.players, totals, strict=True)), slap_open=False)
    dropper, mine = state.players[index], totals[index]
    others = [(p, t) for p, t in zip(state.players, totals, strict=True) if p != dropper]
    if all(total > mine for _, total in others):
        return _everyone_pays(state, dropper, 1, "drop")
    return _caught(state, dropper, mine, others)


def _caught(state: TonkState, dropper: int, mine: int, others: list[tuple[int, int]]) -> Step:
    """Dropper pays the penalty to everyone at or below them; all but the lowest pay the lowest.

    The lowest are taken over every hand, the dropper's too: a dropper tied for lowest is
    paid like the other tied players (GAMES.md), and tied lowest players do not pay each other.
    """
    reserves = Reserves(zip(state.players, state.reserve_left, strict=True))
    for player, total in others:
        if total <= mine:
            reserves.pay("penalty", dropper, wallet(player), state.caught_drop_pays * state.stake)
    totals = dict([*others, (dropper, mine)])
    low = min(totals.values())
    lowest = [p for p in state.players if totals[p] == low]
    for payer in state.players:
        if payer not in lowest:
            for winner in lowest:
                reserves.pay("win", payer, wallet(winner), state.stake)
    return _finish(state, reserves, "caught_drop", lowest)


def _slap(state: TonkState, action: Mapping[str, Any]) -> Step:
    player = checks.player_field(action, "player", state.players)
    if not state.slap:
        raise refuse("This table plays without slaps (rules.slap is false).")
    if state.phase != DRAW or not state.slap_open:
        raise refuse("A slap comes right after a discard, before the next player draws or drops.")
    if player == state.last_discarder:
        raise refuse(f"Player {player} cannot slap their own discard.")
    if player in state.barred:
        raise refuse(f"Player {player}'s spread was hit: they may not hit on this turn.")
    card = state.pile[-1]
    index = state.players.index(player)
    if not _can_slap(state, index, card):
        raise refuse(
            f"Player {player} cannot play {card_label(card)} at once: it fits no spread on the table and "
            "makes no spread with their cards, so it cannot be slapped."
        )
    new = replace(_give(state, index, card), pile=state.pile[:-1])
    return _begin_turn(new, index, card, card), ()


def _can_slap(state: TonkState, index: int, card: str) -> bool:
    """Can the player play ``card`` at once: a hit on a table spread, or a spread from their hand?

    With known hands the engine checks the hand; count-only it trusts the dealer's keying
    (as for spreads) as far as the cards it has seen allow.
    """
    if any(spread_kind((*spread.cards, card)) for spread in state.spreads):
        return True
    taking = replace(_give(state, index, card), pile=state.pile[:-1], taken=card)
    if _knows_hands(taking):
        return any(card in cards for cards in _spreads_from(taking.hands[index]))
    return _spread_possible(taking, index, _unknown(taking), must=card)


# --- legal actions -------------------------------------------------------------------


def _spreads_from(cards: Sequence[str]) -> list[tuple[str, ...]]:
    """Every spread these cards make. A hand holds at most six cards: at most 42 subsets."""
    found: list[tuple[str, ...]] = []
    for size in range(3, len(cards) + 1):
        for combo in combinations(cards, size):
            kind = spread_kind(combo)
            if kind is not None:
                found.append(arrange(combo, kind))
    return found


def _unknown(state: TonkState) -> list[str]:
    """Cards whose place nobody has seen: the stock, and count-only the unseen hand cards."""
    seen = _seen(state)
    return [card for card in FULL_DECK if card not in seen]


def _card_at(value: int, suit: str) -> str:
    """Rank number 1-14 (14 is the ace high) and suit as a card."""
    return ("A" if value == 14 else RANKS[value - 1]) + suit


def _three_card_spreads(pool: Iterable[str]) -> list[tuple[str, ...]]:
    """Every three-card spread among these cards: three of a rank, or three suited in a row."""
    cards = set(pool)
    found: list[tuple[str, ...]] = [
        three
        for rank in RANKS
        for three in combinations([rank + suit for suit in SUITS if rank + suit in cards], 3)
    ]
    for suit in SUITS:
        for start in range(1, 13):
            window = tuple(_card_at(value, suit) for value in range(start, start + 3))
            if all(card in cards for card in window):
                found.append(window)
    return found


def _spread_possible(state: TonkState, index: int, unknown: Sequence[str], must: str | None = None) -> bool:
    """Could a count-only hand spread now (with the card ``must`` in it)? Every spread holds a
    three-card one, and when a three-card spread would strand the hand (see ``_strands``) one
    holding the taken card would not, so three-card spreads decide it."""
    held, unseen = state.hands[index], state.unseen[index]
    tables = [spread.cards for spread in state.spreads]
    for three in _three_card_spreads([*held, *unknown]):
        if must is not None and must not in three:
            continue
        outside = sum(card not in held for card in three)
        rest = [card for card in held if card not in three]
        if outside <= unseen and not _strands(state, rest, unseen - outside, [*tables, three]):
            return True
    return False


def _total_bounds(state: TonkState, index: int, card: str | None, unseen_card: bool) -> dict[str, list[int]]:
    """Each total a count-only hand may show once ``card`` (or an unseen card) has left it."""
    bounds: dict[str, list[int]] = {}
    for i, player in enumerate(state.players):
        held, unseen = list(state.hands[i]), state.unseen[i]
        if i == index and card is not None:
            held.remove(card)
        if i == index and unseen_card:
            unseen -= 1
        known = hand_points(held)
        bounds[str(player)] = [known + unseen, known + 10 * unseen]
    return bounds


def _with_totals(action: dict[str, Any], state: TonkState, bounds: dict[str, list[int]]) -> dict[str, Any]:
    needs = [*action.get("needs", []), "totals"]
    choices = {**action.get("choices", {}), "totals": list(state.players)}
    return {**action, "needs": needs, "choices": choices, "bounds": {"totals": bounds}}


def _deal_actions(state: TonkState) -> list[dict[str, Any]]:
    if state.deck is not None:
        return [{"type": "deal"}]
    sizes = {str(player): HAND_SIZE for player in state.players}
    keyed = {
        "type": "deal",
        "needs": ["hands", "upcard"],
        "choices": {"hands": list(FULL_DECK), "upcard": list(FULL_DECK)},
        "count": {"hands": sizes},
    }
    count_only = {
        "type": "deal",
        "needs": ["upcard"],
        "optional": ["tonks"],
        "choices": {"upcard": list(FULL_DECK), "tonks": list(FULL_DECK)},
        "count": {"tonks": dict(sizes)},
    }
    return [keyed, count_only]


def _slap_actions(state: TonkState) -> list[dict[str, Any]]:
    if not (state.slap and state.phase == DRAW and state.slap_open and state.pile):
        return []
    top = state.pile[-1]
    return [
        {"type": "slap", "player": player}
        for index, player in enumerate(state.players)
        if player != state.last_discarder and player not in state.barred and _can_slap(state, index, top)
    ]


def _draw_actions(state: TonkState) -> list[dict[str, Any]]:
    player = _who(state)
    actions: list[dict[str, Any]] = []
    if state.stock_count > 0:
        stock: dict[str, Any] = {"type": "draw", "player": player, "from": "stock"}
        if state.tracking == FULL:
            stock |= {"needs": ["card"], "choices": {"card": _unknown(state)}}
        actions.append(stock)
    if state.pile:
        actions.append({"type": "draw", "player": player, "from": "discard"})
    drop: dict[str, Any] = {"type": "drop", "player": player}
    if not _knows_hands(state):
        drop = _with_totals(drop, state, _total_bounds(state, state.turn, None, False))
    actions.append(drop)
    return actions


def _table_plays(state: TonkState, index: int) -> list[dict[str, Any]]:
    """Spreads and hits: the cards known to be held concretely, unseen ones as templates."""
    player, held, unseen = state.players[index], state.hands[index], state.unseen[index]
    must = state.must_play
    tables = [spread.cards for spread in state.spreads]
    actions: list[dict[str, Any]] = [
        {"type": "spread", "player": player, "cards": list(cards)}
        for cards in _spreads_from(held)
        if (must is None or must in cards)
        and not _strands(state, [c for c in held if c not in cards], unseen, [*tables, cards])
    ]
    unknown = _unknown(state) if unseen else []
    if unseen and _spread_possible(state, index, unknown, must=must):
        pool = [card for card in FULL_DECK if card in held or card in unknown]
        template: dict[str, Any] = {
            "type": "spread",
            "player": player,
            "needs": ["cards"],
            "choices": {"cards": pool},
            "held": list(held),
            "unseen": unseen,
        }
        actions.append(template if must is None else template | {"with": must})
    if must is not None:
        unknown = []  # the slapped card is played first, and it is known
    for target_id, spread in enumerate(state.spreads):
        for card in held if must is None else (must,):
            if kind := spread_kind((*spread.cards, card)):
                after = replaced_at(tuple(tables), target_id, arrange((*spread.cards, card), kind))
                if not _strands(state, [c for c in held if c != card], unseen, after):
                    actions.append({"type": "hit", "player": player, "card": card, "spread": target_id})
        fitting = [
            card
            for card in unknown
            if (kind := spread_kind((*spread.cards, card)))
            and not _strands(
                state,
                held,
                unseen - 1,
                replaced_at(tuple(tables), target_id, arrange((*spread.cards, card), kind)),
            )
        ]
        if fitting:
            template = {"type": "hit", "player": player, "spread": target_id, "needs": ["card"]}
            actions.append(template | {"choices": {"card": fitting}})
    return actions


def _discards(state: TonkState, index: int) -> list[dict[str, Any]]:
    """Any card but the one just taken; count-only keys totals on the discard that ends the stock."""
    player, held, unseen = state.players[index], state.hands[index], state.unseen[index]
    shows = state.stock_count == 0 and _hand_size(state, index) > 1 and not _knows_hands(state)
    actions: list[dict[str, Any]] = []
    for card in held:
        if card != state.taken:
            action: dict[str, Any] = {"type": "discard", "player": player, "card": card}
            if shows:
                action = _with_totals(action, state, _total_bounds(state, index, card, False))
            actions.append(action)
    if unseen:
        template: dict[str, Any] = {
            "type": "discard",
            "player": player,
            "needs": ["card"],
            "choices": {"card": _unknown(state)},
        }
        if shows:
            template = _with_totals(template, state, _total_bounds(state, index, None, True))
        actions.append(template)
    return actions


def _play_actions(state: TonkState) -> list[dict[str, Any]]:
    actions = [] if state.barred_now else _table_plays(state, state.turn)
    if state.must_play is None:
        actions += _discards(state, state.turn)
    return actions


HANDLERS = {
    "deal": _deal,
    "draw": _draw,
    "spread": _spread,
    "hit": _hit,
    "discard": _discard,
    "drop": _drop,
    "slap": _slap,
}


# --- the engine --------------------------------------------------------------------


class TonkEngine:
    """Tonk for 2-4 players; stakes move between players' reserves and wallets."""

    game = "tonk"

    def default_rules(self) -> dict[str, Any]:
        return {
            "deal_tonk": "50_or_11",
            "slap": True,
            "caught_drop_pays": 1,
            "chip": checks.DEFAULT_CHIP,
            "rake": None,
        }

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        merged = checks.check_rule_keys(rules, self.default_rules())
        if merged["deal_tonk"] not in DEAL_TONK_RULES:
            raise IllegalAction("bad_rules", 'rules.deal_tonk must be "50_or_11" or "49_or_50".')
        if not isinstance(merged["slap"], bool):
            raise IllegalAction("bad_rules", "rules.slap must be true or false.")
        merged["caught_drop_pays"] = checks.rules_int(merged, "caught_drop_pays", low=1, high=10)
        merged["chip"] = checks.rules_int(merged, "chip", low=1)
        merged["rake"] = checks.check_time_rake(merged["rake"])
        return merged

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        rules, stake = checks.stakes_table(self, ctx, most=4)
        hold = (rules["caught_drop_pays"] + 1) * stake * (len(ctx.seats) - 1)
        return {player: hold for player in ctx.seats.values()}

    def start(self, ctx: TableContext) -> Step:
        hold = self.reserve(ctx)
        rules = self.validate_rules(ctx.rules)
        if ctx.deck is not None and (len(ctx.deck) != len(FULL_DECK) or set(ctx.deck) != set(FULL_DECK)):
            raise refuse("The electronic deck must be the 52 cards, each once.")
        dealer_seat = checks.dealer_seat_for(ctx.seats, ctx.carry)
        players = tuple(seats_from_left_of(dealer_seat, ctx.seats))
        state = TonkState(
            stake=ctx.ante,
            deal_tonk=rules["deal_tonk"],
            slap=rules["slap"],
            caught_drop_pays=rules["caught_drop_pays"],
            dealer_seat=dealer_seat,
            players=players,
            reserve_left=tuple(hold[p] for p in players),
            deck=tuple(ctx.deck) if ctx.deck is not None else None,
        )
        return state, ()

    def apply(self, state: TonkState, action: Mapping[str, Any]) -> Step:
        kind = checks.action_type(action)
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise refuse(f"Tonk has no action {kind!r}.")
        if state.phase == OVER:
            raise refuse("This round is over.")
        return handler(state, action)

    def public_state(self, state: TonkState) -> dict[str, Any]:
        over = state.phase == OVER
        return {
            "game": self.game,
            "phase": state.phase,
            "tracking": state.tracking,
            "rules": {
                "deal_tonk": state.deal_tonk,
                "slap": state.slap,
                "caught_drop_pays": state.caught_drop_pays,
            },
            "stake": state.stake,
            "dealer_seat": state.dealer_seat,
            "dealer": state.players[-1],
            "players": list(state.players),
            "turn": None if state.phase in (DEAL, OVER) else _who(state),
            "hand_counts": {str(p): _hand_size(state, i) for i, p in enumerate(state.players)}
            if state.hands
            else {},
            "stock_count": state.stock_count,
            "discard_pile": list(state.pile),
            "discard_top": state.pile[-1] if state.pile else None,
            "spreads": [
                {"id": i, "owner": s.owner, "kind": s.kind, "cards": list(s.cards)}
                for i, s in enumerate(state.spreads)
            ],
            "barred": sorted({*state.barred, *([_who(state)] if state.barred_now else [])}),
            "slap_open": state.slap_open,
            "must_play": state.must_play,
            "taken_from_discard": state.taken,
            "reserve_left": {str(p): left for p, left in zip(state.players, state.reserve_left, strict=True)},
            "outcome": state.outcome,
            "winners": list(state.winners),
            "totals": {str(p): total for p, total in state.shown} if state.shown else None,
            "hands": (
                {str(p): list(h) for p, h in zip(state.players, state.hands, strict=True)}
                if over and _knows_hands(state)
                else None
            ),
            "redeal": state.outcome == "drawn_deal",
            "over": over,
        }

    def legal_actions(self, state: TonkState) -> list[dict[str, Any]]:
        """The moves open to the player on turn (and slaps), concrete where the cards are known.

        * Deal: ``{"type": "deal"}`` with an electronic shoe; a manual shoe offers the keyed
          deal (``needs: ["hands", "upcard"]``, full tracking) and the count-only deal
          (``needs: ["upcard"]``, ``optional: ["tonks"]``; a hand in ``tonks`` must really be
          a tonk on the deal).
        * Before drawing: ``draw`` from the stock (full tracking ``needs: ["card"]`` with the
          unseen cards as choices) and from the discard pile, ``drop`` (count-only
          ``needs: ["totals"]`` with ``bounds``), and a ``slap`` per player who may slap.
        * After drawing, unless the player is barred: every ``spread`` of the cards known to be
          held and every ``hit`` of one of them on a spread it fits; then every ``discard`` but
          the card just taken, none while a slapped card waits to be played. Count-only adds
          templates for the unseen cards: ``hit`` and ``discard`` with ``needs: ["card"]``,
          and ``spread`` with ``needs: ["cards"]`` and hints of its own, ``held`` (the
          cards known to be in the hand), ``unseen`` (at most that many of the cards may
          come from outside ``held``) and, after a slap, ``with`` (the slapped card, which
          the spread must hold); the cards must make a spread.
        * After a slap the slapped card is played first: only spreads holding it and hits of
          it are listed until it is on the table. A ``slap`` is listed for a player who can
          play the discard at once, on a table spread or in a spread from their hand. The discard that ends
          the stock ``needs`` ``totals`` too (count-only).
        * Spreads and hits that would leave only the card just taken from the pile, fitting
          nowhere, are left out (and refused): that turn could not end. Count-only, the
          ``spread`` template's filling must keep to this rule too.
        """
        if state.phase == OVER:
            return []
        if state.phase == DEAL:
            return _deal_actions(state)
        if state.phase == DRAW:
            return _draw_actions(state) + _slap_actions(state)
        return _play_actions(state)

    def known_hands(self, state: TonkState) -> dict[int, list[str]]:
        """Every hand once the engine knows them all (electronic shoe or keyed deal); else none.

        Count-only tracking knows some cards of a hand (taken from the pile) but not the hand.
        """
        if not _knows_hands(state):
            return {}
        return {player: list(hand) for player, hand in zip(state.players, state.hands, strict=True)}

    def last_from_shoe(self, state: TonkState) -> list[tuple[int, str]]:
        """The card the electronic shoe gave out last, to whom, while it is still in that hand.

        After a draw from the stock: that card. The deal's hands are ``known_hands``; a card
        already on the table or the pile is no longer to hand out. Empty with a manual shoe.
        """
        if state.tracking != ELECTRONIC or not state.deck or state.next_card == 0 or not state.hands:
            return []
        card = state.deck[state.next_card - 1]
        return [
            (player, card) for player, hand in zip(state.players, state.hands, strict=True) if card in hand
        ]

    def is_over(self, state: TonkState) -> bool:
        return state.phase == OVER

    def carry_out(self, state: TonkState) -> dict[str, Any]:
        carry: dict[str, Any] = {"dealer_seat": state.dealer_seat}
        if state.outcome == "drawn_deal":
            carry["same_dealer"] = True
        return carry


ENGINE: Engine[TonkState] = TonkEngine()
