"""Newmarket (player pots, 3-8 players), exactly as GAMES.md "Newmarket" decides it.

Flow of one round: ``start`` takes the antes (one ``ante`` per player into each of the
four pay-card pots) → ``deal`` → the dealer-position player ``exchange``s or ``keep``s →
after ``keep`` the widow is auctioned (``bid`` … ``close_auction``) → ``play``/``pass``
until somebody is out of cards → cards-left payments → settled.

Two kinds of tracking:

* **full** — the engine knows every hand (electronic shoe, or a manual ``deal`` that keyed
  ``hands``). It checks that each card is held by whoever plays it, that a lead is the
  leader's lowest card of the chosen suit, and that a pass is true. A run stops by itself
  when its ace is played or the next card is already played or dead.
* **count_only** — a manual ``deal`` without ``hands``. Only hand sizes are known, so plays
  are checked against the stops sequence (the card must be the next one of the suit in
  play, or a lead of the right colour) and the dealer is trusted for who holds it. A run
  still stops by itself at its ace or at a card already played.

Decisions where GAMES.md is silent (classic Michigan/Newmarket rules; tested):

* "Leads the lowest card they hold of any suit" means: the leader chooses the suit and
  must lead the lowest card they hold *in that suit* (aces high). The same holds for a
  lead of "a suit of the other colour": any suit of that colour, its lowest card.
* After ``exchange`` there is no auction: the widow went to the dealer and the old hand
  is dead (dead cards are never sold), so play begins at once. After ``keep`` the widow is
  auctioned to the *other* players; the dealer, having kept (final), may not bid.
* Bids are sequential. A bid must be strictly higher than the standing bid, except that a
  bid *equal* to it replaces it when the new bidder comes earlier clockwise from the dealer
  (nearer the dealer's left) than the standing bidder: that is the GAMES.md tie rule
  ("the one first clockwise from the dealer stands") applied one bid at a time. The
  standing bidder may not bid again over their own bid. ``close_auction`` may be sent with
  no bids (the widow then stays dead and unseen).
* Table limits (``min_bet``/``max_bet`` and a ``limits`` key in an action) do not apply to
  widow bids: a bid is a price paid to another player, capped by GAMES.md only by what is
  left of the bidder's reserve. The ``limits`` and ``version`` keys are ignored.
* ``pass {player}``:
  - while a run is waiting for its next card (count-only tracking only): the dealer keys
    a pass for the player who played last, meaning "nobody holds the next card"; the suit
    stops and that player is to lead. With full tracking the engine stops the run itself,
    so such a pass is refused.
  - when a lead of the other colour is due: the player to lead holds no card of that
    colour; the lead passes to their left. With full tracking it is refused if the player
    holds one. When everybody has passed, the player who played last leads any suit (no
    more passes).
* A payment (widow price, cards-left chips) received by a player goes to their wallet,
  not back into their reserve: the reserve only ever shrinks, so "nobody pays more than
  their reserve" holds for the whole round.
* Carry: ``dealer_seat`` is the seat that dealt *this* round; the next ``start`` moves the
  deal one occupied seat to the left of it among the seats present then. ``anted`` lists
  the players who anted this round from the dealer's left, as the round's ``players`` do.
  Nothing reads it any more (pots still unwon when the table closes are split by
  ``tables.pots.split_unwon_pots``); it stays because the rounds already stored carry it, and
  replaying them must give the carry they stored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tables.games import input_checks as checks
from tables.games.base import (
    Engine,
    NoHandsToShow,
    Settlement,
    TableContext,
    pot,
    replaced_at,
    seats_from_left_of,
    wallet,
)
from tables.games.cards import FULL_DECK, RED_SUITS, card_label, parse_card, parse_cards, rank_of, suit_of
from tables.games.errors import refuse
from tables.games.payments import PercentRake, Reserves, dollars, pay_pot, percent_rake
from tables.games.shoe import check_keyed_card

PAY_CARDS: tuple[str, ...] = ("AH", "KC", "QD", "JS")
# Aces high in Newmarket (GAMES.md "Common": rank order).
HIGH_RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
MIN_PLAYERS = 3
MAX_PLAYERS = 8
DEFAULT_RULES: dict[str, Any] = {"chip": checks.DEFAULT_CHIP, "reserve_chips": 30, "rake": None}

# Phases
DEAL = "deal"
WIDOW = "widow"
AUCTION = "auction"
PLAY = "play"
OVER = "over"
# Stages of the play phase
LEAD = "lead"
RUN = "run"
# Tracking
FULL = "full"
COUNT_ONLY = "count_only"


def high_index(card: str) -> int:
    """Position of the card's rank with aces high: 2 → 0 … A → 12."""
    return HIGH_RANKS.index(rank_of(card))


def next_in_suit(card: str) -> str | None:
    """The card a run continues with, or None after the ace (the suit stops)."""
    index = high_index(card)
    if index == len(HIGH_RANKS) - 1:
        return None
    return HIGH_RANKS[index + 1] + suit_of(card)


def run_in_play(played: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The plays of the run now on the table (public ``played`` entries), its lead first.

    A run is one suit climbing one rank at a time (aces high); the plays before it are
    earlier runs. The console draws this run as it lies in front of the dealer.
    """
    run: list[Mapping[str, Any]] = []
    for entry in reversed(played):
        if run and next_in_suit(str(entry["card"])) != run[-1]["card"]:
            break
        run.append(entry)
    return list(reversed(run))


def colour_of(card: str) -> str:
    return "red" if suit_of(card) in RED_SUITS else "black"


def other_colour(card: str) -> str:
    return "black" if colour_of(card) == "red" else "red"


def deal_sizes(players: int) -> tuple[int, ...]:
    """Hand sizes in deal order (dealer's left … dealer, then the widow).

    52 cards, one at a time, widow last in each pass: the first ``52 % (players+1)`` hands
    get the extra card, so the widow never does.
    """
    hands = players + 1
    base, extra = divmod(len(FULL_DECK), hands)
    return tuple(base + (1 if slot < extra else 0) for slot in range(hands))


# --- state ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewmarketState:
    """One round. Per-player tuples are parallel to ``order`` (dealer's left … dealer)."""

    chip: int
    ante: int
    rake: PercentRake | None
    seats: tuple[tuple[int, int], ...]  # (seat, player) by seat number
    dealer_seat: int
    order: tuple[int, ...]
    deck: tuple[str, ...] | None
    pots: tuple[int, ...]  # parallel to PAY_CARDS
    reserve_left: tuple[int, ...]
    phase: str = DEAL
    tracking: str | None = None
    hands: tuple[tuple[str, ...], ...] = ()  # full tracking only
    sizes: tuple[int, ...] = ()
    widow: tuple[str, ...] = ()  # full tracking only, while the widow is on the table
    widow_size: int = 0
    widow_status: str = "undealt"  # undealt, pending, exchanged, sold, dead
    dead: tuple[str, ...] = ()  # full tracking only
    dead_count: int = 0
    bid: int = 0
    bidder: int | None = None
    buyer: int | None = None
    plays: tuple[tuple[int, str], ...] = ()
    stage: str = LEAD
    next_card: str | None = None
    last_player: int | None = None
    leader: int | None = None
    lead_colour: str = "any"  # any, red, black
    passes: int = 0
    winner: int | None = None

    @property
    def dealer(self) -> int:
        return self.order[-1]

    def index(self, player: int) -> int:
        return self.order.index(player)

    def played(self) -> frozenset[str]:
        return frozenset(card for _, card in self.plays)

    def seat_of(self, player: int) -> int:
        return next(seat for seat, pid in self.seats if pid == player)


def _name(state: NewmarketState, player: int) -> str:
    return f"player {player} (seat {state.seat_of(player)})"


def _holder(state: NewmarketState, card: str) -> int | None:
    """Who holds ``card`` in a live hand (full tracking), else None."""
    for player, hand in zip(state.order, state.hands, strict=True):
        if card in hand:
            return player
    return None


# --- rules and context checks ------------------------------------------------------------


def _check_rule_int(rules: Mapping[Any, Any], key: str, minimum: int) -> int:
    value = rules.get(key, DEFAULT_RULES[key])
    if not checks.is_int(value) or value < minimum:
        raise refuse(f"Rule '{key}' must be a whole number ≥ {minimum}, not {value!r}.", "bad_rules")
    return int(value)


def _check_rake(rake: object) -> dict[str, Any] | None:
    """GAMES.md rake: none, per-pot percent (taken here) or time (charged by the table)."""
    if rake is None:
        return None
    if not isinstance(rake, Mapping):
        raise refuse("Rule 'rake' must be null or an object with a 'kind'.", "bad_rules")
    kind = rake.get("kind")
    if kind == "percent":
        allowed = {"kind", "percent", "cap"}
        percent, cap = rake.get("percent"), rake.get("cap")
        if not checks.is_int(percent) or not 0 <= percent <= 100:
            raise refuse("A percent rake needs 'percent', a whole number 0-100.", "bad_rules")
        if cap is not None and (not checks.is_int(cap) or cap < 0):
            raise refuse("A percent rake's 'cap' must be null or cents ≥ 0.", "bad_rules")
        checked: dict[str, Any] = {"kind": "percent", "percent": percent, "cap": cap}
    elif kind == "time":
        allowed = {"kind", "amount", "minutes"}
        amount, minutes = rake.get("amount"), rake.get("minutes")
        if not checks.is_int(amount) or amount <= 0 or not checks.is_int(minutes) or minutes <= 0:
            raise refuse("A time rake needs 'amount' (cents) and 'minutes', both > 0.", "bad_rules")
        checked = {"kind": "time", "amount": amount, "minutes": minutes}
    else:
        raise refuse("Rule 'rake' kind must be 'percent' or 'time'.", "bad_rules")
    extra = sorted(repr(key) for key in rake if key not in allowed)
    if extra:
        raise refuse(f"Unknown rake key(s): {', '.join(extra)}.", "bad_rules")
    return checked


def _check_ante(ctx: TableContext, chip: int) -> int:
    ante, low, high = ctx.ante, ctx.min_bet, ctx.max_bet  # whole cents (``check_context``)
    if ante <= 0 or ante < low:
        raise refuse(f"The ante {dollars(ante)} is below the table minimum {dollars(low)}.", "below_minimum")
    if ante > high:
        raise refuse(
            f"The ante {dollars(ante)} is above the table maximum {dollars(high)}.", "limit_exceeded"
        )
    if ante % chip:
        raise refuse(f"The ante {dollars(ante)} must be a multiple of the chip ({dollars(chip)}).")
    return ante


def _check_deck(deck: Sequence[str] | None) -> tuple[str, ...] | None:
    """``check_context`` has made the deck a list of strings; here it must be the whole deck."""
    if deck is None:
        return None
    if sorted(deck) != sorted(FULL_DECK):
        raise refuse("The electronic shoe must hold the 52-card deck exactly once each.")
    return tuple(deck)


def _carried_pots(carry: Mapping[str, Any]) -> tuple[int, ...]:
    """Pots owed from earlier rounds; a malformed carry is refused, never dropped."""
    pots = carry.get("pots", {})
    if not isinstance(pots, Mapping):
        raise refuse("The carried pots must map pay cards to cents.")
    unknown = sorted(repr(key) for key in pots if key not in PAY_CARDS)
    if unknown:
        raise refuse(f"Unknown carried pot(s): {', '.join(unknown)}.")
    amounts = tuple(pots.get(card, 0) for card in PAY_CARDS)
    if not all(checks.is_int(amount) and amount >= 0 for amount in amounts):
        raise refuse("Carried pots must be whole cents ≥ 0.")
    return amounts


# --- action field parsing ------------------------------------------------------------------


def _player(state: NewmarketState, action: Mapping[str, Any]) -> int:
    player = action.get("player")
    if not checks.is_int(player):
        raise refuse(f"'player' must be a player id (a whole number), not {player!r}.")
    return checks.check_dealt_in(player, state.order)


def _card(action: Mapping[str, Any]) -> str:
    card = parse_card(action.get("card"))
    if card not in FULL_DECK:
        raise refuse(f"{card_label(card)} is not in the Newmarket deck.", "bad_card")
    return card


def _hand_slot(state: NewmarketState, key: object) -> int:
    """A ``hands`` key: a player id (int, or its digits as JSON keys are strings) or 'widow'."""
    if key == "widow":
        return len(state.order)
    player = checks.id_from_key(key)
    if player is None or player not in state.order:
        raise refuse(f"'hands' names {key!r}, which is neither a dealt-in player nor 'widow'.")
    return state.index(player)


# --- money -------------------------------------------------------------------------------


def _win_pot(state: NewmarketState, card: str, player: int) -> tuple[NewmarketState, list[Settlement]]:
    """A pay card wins its pot at once; a percent rake comes off the pot as it is won."""
    slot = PAY_CARDS.index(card)
    moves = Reserves({})  # out of a pot: no reserve pays
    pay_pot(moves, card, state.pots[slot], player, state.rake, rake_player=player)
    return replace(state, pots=replaced_at(state.pots, slot, 0)), moves.settlements


# --- the deal and the widow ------------------------------------------------------------------


def _keyed_hands(state: NewmarketState, field: object) -> tuple[tuple[str, ...], ...]:
    """Manual shoe with ``hands``: every hand complete, of the right size, no card twice."""
    if not isinstance(field, Mapping):
        raise refuse("'hands' must map each player id, and 'widow', to a list of cards.")
    sizes = deal_sizes(len(state.order))
    keyed: dict[int, tuple[str, ...]] = {}
    for key, cards in field.items():
        slot = _hand_slot(state, key)
        if slot in keyed:
            raise refuse(f"'hands' names the same hand twice ({key!r}).")
        keyed[slot] = parse_cards(cards, field=f"hands[{key!r}]")
    out: frozenset[str] = frozenset()
    for slot, size in enumerate(sizes):
        who = "the widow" if slot == len(state.order) else _name(state, state.order[slot])
        if slot not in keyed:
            raise refuse(f"'hands' is missing {who}.")
        if len(keyed[slot]) != size:
            raise refuse(f"{who.capitalize()} is dealt {size} cards, not {len(keyed[slot])}.")
        for card in keyed[slot]:
            check_keyed_card(card, deck=FULL_DECK, out=out)
            out = out | {card}
    return tuple(keyed[slot] for slot in range(len(sizes)))


def _deal(state: NewmarketState, action: Mapping[str, Any]) -> tuple[NewmarketState, list[Settlement]]:
    if state.phase != DEAL:
        raise refuse("The cards have already been dealt.")
    field = action.get("hands")
    sizes = deal_sizes(len(state.order))
    if state.deck is not None:
        if field is not None:
            raise refuse("The electronic shoe deals by itself: send 'deal' without 'hands'.")
        hands: tuple[tuple[str, ...], ...] | None = tuple(
            state.deck[slot :: len(sizes)] for slot in range(len(sizes))
        )
    elif field is None:
        hands = None
    else:
        hands = _keyed_hands(state, field)
    state = replace(state, phase=WIDOW, sizes=sizes[:-1], widow_size=sizes[-1], widow_status="pending")
    if hands is None:
        return replace(state, tracking=COUNT_ONLY), []
    return replace(state, tracking=FULL, hands=hands[:-1], widow=hands[-1]), []


def _opening_lead(state: NewmarketState) -> NewmarketState:
    """The dealer's left leads first, any suit."""
    return replace(
        state, phase=PLAY, stage=LEAD, leader=state.order[0], lead_colour="any", passes=0, last_player=None
    )


def _take_widow(state: NewmarketState, player: int) -> NewmarketState:
    """The player's old hand goes dead, unseen; the widow becomes their hand."""
    index = state.index(player)
    dead_count = state.dead_count + state.sizes[index]
    sizes = replaced_at(state.sizes, index, state.widow_size)
    if state.tracking != FULL:
        return replace(state, sizes=sizes, dead_count=dead_count, widow_size=0)
    dead = tuple(sorted(state.dead + state.hands[index]))
    hands = replaced_at(state.hands, index, state.widow)
    return replace(state, sizes=sizes, hands=hands, dead=dead, dead_count=dead_count, widow=(), widow_size=0)


def _exchange(state: NewmarketState, action: Mapping[str, Any]) -> tuple[NewmarketState, list[Settlement]]:
    _check_widow_choice(state, action)
    state = replace(_take_widow(state, state.dealer), widow_status="exchanged")
    return _opening_lead(state), []


def _keep(state: NewmarketState, action: Mapping[str, Any]) -> tuple[NewmarketState, list[Settlement]]:
    _check_widow_choice(state, action)
    return replace(state, phase=AUCTION), []


def _check_widow_choice(state: NewmarketState, action: Mapping[str, Any]) -> None:
    """``exchange``/``keep`` come once, after the deal; they need no player, and one given must
    be the dealer position."""
    if state.phase == DEAL:
        raise refuse("Deal the cards first.")
    if state.phase != WIDOW:
        raise refuse("The dealer position has already exchanged or kept.")
    if action.get("player") is not None and _player(state, action) != state.dealer:
        raise refuse(
            f"Only the dealer position, {_name(state, state.dealer)}, exchanges or keeps.", "not_your_turn"
        )


def _phase_auction(state: NewmarketState) -> None:
    if state.phase == WIDOW:
        raise refuse(f"{_name(state, state.dealer).capitalize()} must exchange or keep before the auction.")
    if state.phase != AUCTION:
        raise refuse("There is no widow auction now.")


def _bid(state: NewmarketState, action: Mapping[str, Any]) -> tuple[NewmarketState, list[Settlement]]:
    _phase_auction(state)
    player = _player(state, action)
    amount = action.get("amount")
    if player == state.dealer:
        raise refuse("The dealer position kept their hand and cannot buy the widow.", "not_your_turn")
    if not checks.is_int(amount):
        raise refuse(f"The bid must be a whole amount of chips, not {amount!r}.")
    if amount < state.chip:
        raise refuse(f"A bid must be at least one chip ({dollars(state.chip)}).", "below_minimum")
    if amount % state.chip:
        raise refuse(f"A bid must be a multiple of the chip ({dollars(state.chip)}).")
    left = state.reserve_left[state.index(player)]
    if amount > left:
        raise refuse(
            f"{_name(state, player).capitalize()} has only {dollars(left)} left in reserve.", "limit_exceeded"
        )
    _check_outbids(state, player, amount)
    return replace(state, bid=amount, bidder=player), []


def _check_outbids(state: NewmarketState, player: int, amount: int) -> None:
    """Higher than the standing bid; an equal bid stands only nearer the dealer's left."""
    if state.bidder is None:
        return
    if player == state.bidder:
        raise refuse(f"{_name(state, player).capitalize()} already holds the standing bid.")
    if amount > state.bid:
        return
    if amount == state.bid and state.index(player) < state.index(state.bidder):
        return
    raise refuse(f"The standing bid is {dollars(state.bid)} by {_name(state, state.bidder)}; bid higher.")


def _close_auction(
    state: NewmarketState, action: Mapping[str, Any]
) -> tuple[NewmarketState, list[Settlement]]:
    _phase_auction(state)
    if state.bidder is None:
        dead = tuple(sorted(state.dead + state.widow))
        state = replace(
            state,
            widow_status="dead",
            dead=dead,
            dead_count=state.dead_count + state.widow_size,
            widow=(),
            widow_size=0,
        )
        return _opening_lead(state), []
    buyer = state.bidder
    reserves = Reserves(zip(state.order, state.reserve_left, strict=True))
    reserves.pay("widow", buyer, wallet(state.dealer), state.bid)  # ``_bid`` kept it within the reserve
    state = replace(state, reserve_left=reserves.remaining(state.order))
    state = replace(_take_widow(state, buyer), widow_status="sold", buyer=buyer)
    return _opening_lead(state), reserves.settlements


# --- play --------------------------------------------------------------------------------


def _phase_play(state: NewmarketState) -> None:
    if state.phase != PLAY:
        raise refuse("Play has not begun: finish the deal, the widow and the auction first.")


def _check_run_play(state: NewmarketState, player: int, card: str) -> None:
    if card != state.next_card:
        raise refuse(
            f"The {card_label(str(state.next_card))} is next; if nobody holds it, key a pass for "
            f"{_name(state, player if state.last_player is None else state.last_player)}."
            if state.tracking == COUNT_ONLY
            else f"The {card_label(str(state.next_card))} is next and must be played."
        )
    if state.tracking == FULL and _holder(state, card) != player:
        raise refuse(
            f"{_name(state, player).capitalize()} does not hold the {card_label(card)}.", "not_your_turn"
        )


def _check_lead(state: NewmarketState, player: int, card: str) -> None:
    if player != state.leader:
        assert state.leader is not None
        raise refuse(f"It is {_name(state, state.leader)}'s lead.", "not_your_turn")
    if state.lead_colour != "any" and colour_of(card) != state.lead_colour:
        raise refuse(
            f"The lead must be a {state.lead_colour} card (the other colour to the suit that stopped)."
        )
    if state.tracking != FULL:
        return
    hand = state.hands[state.index(player)]
    if card not in hand:
        raise refuse(f"{_name(state, player).capitalize()} does not hold the {card_label(card)}.")
    lowest = min((held for held in hand if suit_of(held) == suit_of(card)), key=high_index)
    if lowest != card:
        raise refuse(
            "A lead is the lowest card held of its suit: "
            f"lead the {card_label(lowest)}, not the {card_label(card)}."
        )


def _play(state: NewmarketState, action: Mapping[str, Any]) -> tuple[NewmarketState, list[Settlement]]:
    _phase_play(state)
    player = _player(state, action)
    card = _card(action)
    if card in state.played():
        raise refuse(f"The {card_label(card)} has already been played.")
    if state.stage == RUN:
        _check_run_play(state, player, card)
    else:
        _check_lead(state, player, card)
    return _after_play(state, player, card)


def _after_play(state: NewmarketState, player: int, card: str) -> tuple[NewmarketState, list[Settlement]]:
    index = state.index(player)
    state = replace(
        state,
        sizes=replaced_at(state.sizes, index, state.sizes[index] - 1),
        plays=(*state.plays, (player, card)),
    )
    if state.tracking == FULL:
        hand = tuple(held for held in state.hands[index] if held != card)
        state = replace(state, hands=replaced_at(state.hands, index, hand))
    moves: list[Settlement] = []
    if card in PAY_CARDS:
        state, moves = _win_pot(state, card, player)
    if state.sizes[index] == 0:
        state, paid = _finish(state, player)
        return state, moves + paid
    return _continue_run(state, player, card), moves


def _continue_run(state: NewmarketState, player: int, card: str) -> NewmarketState:
    """The run goes on with the next card of the suit unless the engine knows it stopped."""
    following = next_in_suit(card)
    if following is None or following in state.played():
        return _stop(state, player, card)
    if state.tracking == FULL and _holder(state, following) is None:
        return _stop(state, player, card)
    return replace(state, stage=RUN, next_card=following, last_player=player, leader=None, passes=0)


def _stop(state: NewmarketState, player: int, card: str) -> NewmarketState:
    """The suit stopped: whoever played last leads a suit of the other colour."""
    return replace(
        state,
        stage=LEAD,
        next_card=None,
        last_player=player,
        leader=player,
        lead_colour=other_colour(card),
        passes=0,
    )


def _pass(state: NewmarketState, action: Mapping[str, Any]) -> tuple[NewmarketState, list[Settlement]]:
    _phase_play(state)
    player = _player(state, action)
    if state.stage == RUN:
        return _pass_run(state, player), []
    return _pass_lead(state, player), []


def _pass_run(state: NewmarketState, player: int) -> NewmarketState:
    """Count-only: the dealer says nobody holds the next card, so the suit stops."""
    if state.tracking == FULL:
        raise refuse(
            f"The {card_label(str(state.next_card))} is in a live hand and must be played; no pass now."
        )
    assert state.last_player is not None
    assert state.plays
    if player != state.last_player:
        raise refuse(
            f"Key the pass for {_name(state, state.last_player)}, who played last and leads next.",
            "not_your_turn",
        )
    return _stop(state, player, state.plays[-1][1])


def _pass_lead(state: NewmarketState, player: int) -> NewmarketState:
    """The leader holds no card of the colour due; the lead moves left."""
    assert state.leader is not None
    if player != state.leader:
        raise refuse(f"It is {_name(state, state.leader)}'s lead.", "not_your_turn")
    if state.lead_colour == "any":
        raise refuse(f"{_name(state, player).capitalize()} may lead any suit and cannot pass.")
    if state.tracking == FULL and any(
        colour_of(c) == state.lead_colour for c in state.hands[state.index(player)]
    ):
        raise refuse(
            f"{_name(state, player).capitalize()} holds a {state.lead_colour} card and must lead "
            f"the lowest of a {state.lead_colour} suit."
        )
    passes = state.passes + 1
    if passes >= len(state.order):
        # Nobody holds the other colour: the player who played last leads any suit.
        return replace(state, leader=state.last_player, lead_colour="any", passes=passes)
    following = state.order[(state.index(player) + 1) % len(state.order)]
    return replace(state, leader=following, passes=passes)


def _finish(state: NewmarketState, winner: int) -> tuple[NewmarketState, list[Settlement]]:
    """First out wins one chip per card left in every other hand, paid from reserves."""
    reserves = Reserves(zip(state.order, state.reserve_left, strict=True))
    start = state.index(winner)
    for payer in state.order[start + 1 :] + state.order[:start]:
        reserves.pay("cards_left", payer, wallet(winner), state.sizes[state.index(payer)] * state.chip)
    over = replace(state, phase=OVER, winner=winner, stage=LEAD, leader=None, next_card=None)
    return replace(over, reserve_left=reserves.remaining(state.order)), reserves.settlements


_HANDLERS = {
    "deal": _deal,
    "exchange": _exchange,
    "keep": _keep,
    "bid": _bid,
    "close_auction": _close_auction,
    "play": _play,
    "pass": _pass,
}


# --- legal actions -------------------------------------------------------------------------


def _deal_actions(state: NewmarketState) -> list[dict[str, Any]]:
    """Electronic: the engine deals. Manual: key every hand (full) or none (count-only)."""
    if state.deck is not None:
        return [{"type": "deal"}]
    sizes = deal_sizes(len(state.order))
    slots = [str(player) for player in state.order] + ["widow"]
    keyed = {
        "type": "deal",
        "needs": ["hands"],
        "choices": {"hands": list(FULL_DECK)},
        "count": {"hands": dict(zip(slots, sizes, strict=True))},
    }
    return [keyed, {"type": "deal"}]


def _bid_templates(state: NewmarketState) -> list[dict[str, Any]]:
    """One ``bid`` per player who may bid, from the least that outbids to their reserve."""
    bids: list[dict[str, Any]] = []
    for index, player in enumerate(state.order):
        if player in (state.dealer, state.bidder):
            continue
        if state.bidder is None:
            low = state.chip
        elif index < state.index(state.bidder):
            low = max(state.bid, state.chip)  # an equal bid nearer the dealer's left stands
        else:
            low = state.bid + state.chip
        left = state.reserve_left[index]
        high = left - left % state.chip
        if low <= high:
            bids.append(
                {
                    "type": "bid",
                    "player": player,
                    "needs": ["amount"],
                    "min_amount": low,
                    "max_amount": high,
                    "chip": state.chip,
                }
            )
    return bids


def _colour_ok(state: NewmarketState, card: str) -> bool:
    return state.lead_colour == "any" or colour_of(card) == state.lead_colour


def _full_play_actions(state: NewmarketState) -> list[dict[str, Any]]:
    if state.stage == RUN:
        assert state.next_card is not None
        holder = _holder(state, state.next_card)
        return [] if holder is None else [{"type": "play", "player": holder, "card": state.next_card}]
    assert state.leader is not None
    hand = state.hands[state.index(state.leader)]
    lowest: dict[str, str] = {}
    for card in sorted(hand, key=high_index):
        if _colour_ok(state, card):
            lowest.setdefault(suit_of(card), card)
    leads = [{"type": "play", "player": state.leader, "card": card} for card in lowest.values()]
    return leads or [{"type": "pass", "player": state.leader}]


def _count_only_play_actions(state: NewmarketState) -> list[dict[str, Any]]:
    if state.stage == RUN:
        assert state.next_card is not None
        return [
            {
                "type": "play",
                "card": state.next_card,
                "needs": ["player"],
                "choices": {"player": list(state.order)},
            },
            {"type": "pass", "player": state.last_player},
        ]
    assert state.leader is not None
    played = state.played()
    cards = [card for card in FULL_DECK if card not in played and _colour_ok(state, card)]
    actions: list[dict[str, Any]] = []
    if cards:
        lead = {"type": "play", "player": state.leader, "needs": ["card"], "choices": {"card": cards}}
        actions.append(lead)
    if state.lead_colour != "any":
        actions.append({"type": "pass", "player": state.leader})
    return actions


# --- the engine ----------------------------------------------------------------------------


class NewmarketEngine(NoHandsToShow):
    """GAMES.md "Newmarket"; see the module docstring for the decisions it makes."""

    game = "newmarket"

    def default_rules(self) -> dict[str, Any]:
        return dict(DEFAULT_RULES)

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        """Fill defaults; refuse unknown keys so a typo never silently plays house defaults."""
        if not isinstance(rules, Mapping):
            raise refuse("The rules must be an object.", "bad_rules")
        unknown = sorted(repr(key) for key in rules if key not in DEFAULT_RULES)
        if unknown:
            raise refuse(f"Unknown Newmarket rule(s): {', '.join(unknown)}.", "bad_rules")
        return {
            "chip": _check_rule_int(rules, "chip", 1),
            "reserve_chips": _check_rule_int(rules, "reserve_chips", 0),
            "rake": _check_rake(rules.get("rake")),
        }

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        """Four antes (one per pay-card pot) plus ``reserve_chips`` chips (GAMES.md)."""
        rules, seats, ante, _, _ = self._table(ctx)  # a carry ``start`` refuses holds nothing
        hold = len(PAY_CARDS) * ante + rules["reserve_chips"] * rules["chip"]
        return {player: hold for player in seats.values()}

    def _table(self, ctx: TableContext) -> tuple[dict[str, Any], dict[int, int], int, int, tuple[int, ...]]:
        """What ``reserve`` and ``start`` both read first, refused in this order: the rules, the
        seats, the ante, the dealer's seat and the carried pots."""
        checks.check_context(ctx)
        rules = self.validate_rules(ctx.rules)
        seats = dict(ctx.seats)  # ``check_context`` has refused seats of the wrong shape
        if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
            raise refuse(f"Newmarket is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {len(seats)}.")
        ante = _check_ante(ctx, rules["chip"])
        dealer_seat = checks.dealer_seat_for(
            seats, ctx.carry, bad_seat="The carried dealer seat must be a seat number.", redeal=False
        )
        return rules, seats, ante, dealer_seat, _carried_pots(ctx.carry)

    def start(self, ctx: TableContext) -> tuple[NewmarketState, tuple[Settlement, ...]]:
        rules, seats, ante, dealer_seat, pots = self._table(ctx)
        order = tuple(seats_from_left_of(dealer_seat, seats))
        hold = self.reserve(ctx)
        state = NewmarketState(
            chip=rules["chip"],
            ante=ante,
            rake=percent_rake(rules),
            seats=tuple(sorted(seats.items())),
            dealer_seat=dealer_seat,
            order=order,
            deck=_check_deck(ctx.deck),
            pots=tuple(amount + ante * len(order) for amount in pots),
            reserve_left=tuple(hold[player] - ante * len(PAY_CARDS) for player in order),
        )
        antes = tuple(
            Settlement("ante", wallet(player), pot(card), ante, player)
            for player in order
            for card in PAY_CARDS
        )
        return state, antes

    def apply(self, state: Any, action: Mapping[str, Any]) -> tuple[NewmarketState, tuple[Settlement, ...]]:
        if not isinstance(state, NewmarketState):
            raise refuse("This is not a Newmarket round.")
        kind = checks.action_type(action)
        if not isinstance(kind, str) or kind not in _HANDLERS:
            raise refuse(f"Newmarket has no action {kind!r}; use one of {', '.join(_HANDLERS)}.")
        if state.phase == OVER:
            raise refuse("The round is settled; it takes no more actions.")
        new_state, moves = _HANDLERS[kind](state, action)
        return new_state, tuple(moves)

    def public_state(self, state: NewmarketState) -> dict[str, Any]:
        """What the console and auditors may see: counts, never a hidden card."""
        return {
            "game": self.game,
            "phase": state.phase,
            "tracking": state.tracking,
            "dealer": state.dealer,
            "dealer_seat": state.dealer_seat,
            "chip": state.chip,
            "ante": state.ante,
            "pots": dict(zip(PAY_CARDS, state.pots, strict=True)),
            "players": [
                {
                    "player": player,
                    "seat": state.seat_of(player),
                    "cards": state.sizes[i] if state.sizes else 0,
                    "reserve_left": state.reserve_left[i],
                }
                for i, player in enumerate(state.order)
            ],
            "widow": {"cards": state.widow_size, "status": state.widow_status, "buyer": state.buyer},
            "auction": {"bid": state.bid if state.bidder is not None else None, "bidder": state.bidder},
            "dead_cards": state.dead_count,
            "played": [{"player": player, "card": card} for player, card in state.plays],
            "stage": state.stage if state.phase == PLAY else None,
            "next_card": state.next_card,
            "last_player": state.last_player,
            "turn": _turn(state),
            "lead_colour": state.lead_colour if state.phase == PLAY and state.stage == LEAD else None,
            "winner": state.winner,
        }

    def legal_actions(self, state: NewmarketState) -> list[dict[str, Any]]:
        """What may happen next, concrete wherever the engine knows the cards.

        * Deal: ``{"type": "deal"}`` with an electronic shoe. A manual shoe offers the keyed
          deal (``needs: ["hands"]``, ``count`` per player id and ``widow``: full tracking)
          and ``{"type": "deal"}`` without hands (count-only tracking).
        * Widow: ``exchange`` and ``keep`` for the dealer position.
        * Auction: a ``bid`` template per player who may bid, ``needs: ["amount"]`` with
          ``min_amount`` (the least that outbids: one chip to open, the standing bid for a
          player nearer the dealer's left than its bidder, else one chip more), ``max_amount``
          (their reserve left) and ``chip``; and ``{"type": "close_auction"}``.
        * Full tracking: the one card a run needs, played by whoever holds it; at a lead, the
          lowest card of each suit of the colour due that the leader holds, or their ``pass``
          when they hold none.
        * Count-only: a run's next card with ``needs: ["player"]`` (the engine cannot know who
          holds it) and the dealer's ``pass`` for whoever played last ("nobody holds it"); at
          a lead, ``play`` with ``needs: ["card"]`` among the unplayed cards of the colour due
          (which of them the leader holds is the dealer's word) and ``pass`` unless any suit
          may be led.
        """
        if state.phase == OVER:
            return []
        if state.phase == DEAL:
            return _deal_actions(state)
        if state.phase == WIDOW:
            return [{"type": "exchange", "player": state.dealer}, {"type": "keep", "player": state.dealer}]
        if state.phase == AUCTION:
            return [*_bid_templates(state), {"type": "close_auction"}]
        if state.tracking == FULL:
            return _full_play_actions(state)
        return _count_only_play_actions(state)

    def known_hands(self, state: NewmarketState) -> dict[int, list[str]]:
        """Each player's live hand with full tracking (see ``hand_of``); none when count-only."""
        hands = {player: hand_of(state, player) for player in state.order}
        return {player: hand for player, hand in hands.items() if hand is not None}

    def is_over(self, state: NewmarketState) -> bool:
        return state.phase == OVER

    def carry_out(self, state: NewmarketState) -> dict[str, Any]:
        return {
            "pots": dict(zip(PAY_CARDS, state.pots, strict=True)),
            "dealer_seat": state.dealer_seat,
            "anted": list(state.order),  # read by nothing; stored rounds carry it (module docstring)
        }


def _turn(state: NewmarketState) -> int | None:
    """Who must act: the dealer position at the widow, the leader, or a run card's holder."""
    if state.phase == WIDOW:
        return state.dealer
    if state.phase != PLAY:
        return None
    if state.stage == LEAD:
        return state.leader
    if state.tracking == FULL and state.next_card is not None:
        return _holder(state, state.next_card)
    return None


def hand_of(state: NewmarketState, player: int) -> list[str] | None:
    """A player's live hand for their own screen (full tracking); None when unknown."""
    if state.tracking != FULL or player not in state.order:
        return None
    return list(state.hands[state.index(player)])


ENGINE: Engine[NewmarketState] = NewmarketEngine()
