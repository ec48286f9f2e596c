"""Farmer: a player-pot game of drawing towards exactly sixteen (GAMES.md "Farmer").

The round is a fold: ``start`` takes the antes into the farm, then ``farmer`` (manual
shoe, a table's first round only), ``deal``, and ``hit``/``stay`` in turn until the
farmer stays, when the round settles.

Decisions where GAMES.md is silent (the classic rules, tested in tests/games/test_farmer.py):

* A table ante of 0 means one chip, as in Fan Tan; the ante must be whole chips within
  the table limits (``start``/``reserve`` refuse otherwise).
* Hit cards are dealt face down, as in the classic game. Until the showdown the public
  state shows only how many cards each player holds and whose turn it is; every hand is
  shown at settlement.
* A busted player "just stays": the engine refuses them another card (so nobody draws
  past a bust), but the turn passes only when the dealer keys their ``stay``, as for any
  other player, so the public state never moves early and gives the bust away. A player
  on exactly 16 may still draw.
* If the stock runs out (the last card is dealt on a hit), everyone still to act stays at
  once, the farmer included, and the round settles. (With 45 cards and at most 8 hands
  of at most 26 points this cannot happen in play, but the rule is implemented.)
* Step 2's side pot (several players share the best total) is not raked: percent rake is
  taken from the farm only, when it is won. A single best total is paid directly.
* Payments are made from the farmer's left, farmer last, each capped at what is left of
  the payer's reserve (the receiver gets what there is).
* First farmer, electronic shoe: cards of ``ctx.extra_decks[0]`` go face up one at a time
  from the left of the dealer position (the lowest occupied seat) until the 6♥ shows.
* A carried farmer who is not dealt in this round: the farmer is the first dealt-in
  player to the left of the seat the farmer last sat in (carried as ``farmer_seat``);
  without that seat, the lowest occupied seat's player. A carried farmer who changed
  seats stays farmer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from tables.games import input_checks as checks
from tables.games.base import Engine, Settlement, TableContext, pot, seats_from_left_of, wallet
from tables.games.cards import FARMER_DECK, hand_points, parse_card
from tables.games.errors import refuse
from tables.games.payments import PercentRake, Reserves, pay_pot, percent_rake
from tables.games.shoe import check_keyed_card

GAME = "farmer"
FARM = "farm"
SIDE = "side"
TARGET = 16
SIX_OF_HEARTS = "6H"
FEWEST, MOST = 2, 8

# Phases: "draw" (manual first round: waiting for `farmer`), "deal", "play", "settled".


@dataclass(frozen=True, slots=True)
class Hand:
    player: int
    seat: int
    reserve_left: int
    cards: tuple[str, ...] = ()
    done: bool = False

    @property
    def total(self) -> int:
        return hand_points(self.cards)

    @property
    def busted(self) -> bool:
        return self.total > TARGET


@dataclass(frozen=True, slots=True)
class Result:
    farm_winner: int | None
    best_total: int | None
    best: tuple[int, ...]
    busted: tuple[int, ...]
    next_farmer: int


@dataclass(frozen=True, slots=True)
class FarmerState:
    ante: int
    chip: int
    rake: PercentRake | None
    deck: tuple[str, ...] | None  # electronic shoe order; None for a manual shoe
    hands: tuple[Hand, ...]  # in seat order
    farm: int
    phase: str
    farmer: int | None = None
    order: tuple[int, ...] = ()  # from the farmer's left, farmer last
    turn: int | None = None  # index into ``order``
    farmer_draw: tuple[tuple[int, str], ...] = ()
    result: Result | None = None

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(hand.player for hand in self.hands)

    @property
    def dealt(self) -> int:
        return sum(len(hand.cards) for hand in self.hands)

    @property
    def stock(self) -> int:
        return len(FARMER_DECK) - self.dealt

    def hand(self, player: int) -> Hand:
        return next(hand for hand in self.hands if hand.player == player)

    def seat_of(self, player: int) -> int:
        return self.hand(player).seat

    def with_hand(self, new: Hand) -> FarmerState:
        hands = tuple(new if hand.player == new.player else hand for hand in self.hands)
        return replace(self, hands=hands)


class FarmerEngine:
    game = GAME

    def default_rules(self) -> dict[str, Any]:
        return {"chip": checks.DEFAULT_CHIP, "rake": None}

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        return checks.check_rules(rules, self.default_rules())

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        """The ante plus one ante more: the most a player can owe (step 2 or step 3, never both)."""
        _, ante, seats = checks.pot_table(self, ctx, game="Farmer", fewest=FEWEST, most=MOST)
        return {player: 2 * ante for _, player in seats}

    def start(self, ctx: TableContext) -> tuple[FarmerState, tuple[Settlement, ...]]:
        rules, ante, seats = checks.pot_table(self, ctx, game="Farmer", fewest=FEWEST, most=MOST)
        reserves = self.reserve(ctx)
        deck = None if ctx.deck is None else checks.check_deck(ctx.deck, FARMER_DECK)
        hands = tuple(Hand(player=p, seat=s, reserve_left=reserves[p] - ante) for s, p in seats)
        antes = tuple(Settlement("ante", wallet(p), pot(FARM), ante, p) for _, p in seats)
        state = FarmerState(
            ante=ante,
            chip=rules["chip"],
            rake=percent_rake(rules),
            deck=deck,
            hands=hands,
            farm=checks.carried_pot(ctx.carry, FARM) + ante * len(seats),
            phase="deal",
        )
        return _choose_farmer(state, ctx), antes

    def apply(
        self, state: FarmerState, action: Mapping[str, Any]
    ) -> tuple[FarmerState, tuple[Settlement, ...]]:
        handler, action = checks.handler_for(action, _HANDLERS, game="Farmer")
        return handler(state, action)

    def public_state(self, state: FarmerState) -> dict[str, Any]:
        shown = state.phase == "settled"
        turn = None if state.turn is None else state.order[state.turn]
        return {
            "game": GAME,
            "phase": state.phase,
            "shoe": "manual" if state.deck is None else "electronic",
            "farmer": state.farmer,
            "farm": state.farm,
            "ante": state.ante,
            "order": list(state.order),
            "turn": turn,
            "stock": state.stock,
            "farmer_draw": [{"player": p, "card": c} for p, c in state.farmer_draw],
            "players": [_public_hand(hand, shown) for hand in _in_order(state)],
            "result": _public_result(state.result),
        }

    def is_over(self, state: FarmerState) -> bool:
        return state.phase == "settled"

    def legal_actions(self, state: FarmerState) -> list[dict[str, Any]]:
        """What the dealer may key now; with a manual shoe the cards are templates to fill.

        * ``farmer {player}`` for each player (a manual shoe's first round: who drew the 6♥).
        * ``deal``: concrete with an electronic shoe; with a manual shoe ``needs: ["cards"]``,
          an object giving each player one face-down card: ``choices`` lists the cards and
          ``count`` is ``{"cards": {player: 1}}``, and the hint of Farmer's own
          ``one_card_each: true`` says each value is one card (``"5S"``), not a list.
        * ``hit {player}`` for the player on turn unless busted; with a manual shoe
          ``needs: ["card"]`` with the cards still in the shoe as ``choices``.
        * ``stay {player}`` once they have hit.
        """
        manual = state.deck is None
        if state.phase == "draw":
            return [{"type": "farmer", "player": p} for p in state.players]
        if state.phase == "deal":
            if not manual:
                return [{"type": "deal"}]
            return [
                {
                    "type": "deal",
                    "needs": ["cards"],
                    "choices": {"cards": list(FARMER_DECK)},
                    "count": {"cards": {str(p): 1 for p in state.order}},
                    "one_card_each": True,
                }
            ]
        if state.phase != "play" or state.turn is None:
            return []
        hand = state.hand(state.order[state.turn])
        actions: list[dict[str, Any]] = []
        if not hand.busted:
            hit: dict[str, Any] = {"type": "hit", "player": hand.player}
            if manual:
                out = {c for h in state.hands for c in h.cards}
                hit |= {"needs": ["card"], "choices": {"card": [c for c in FARMER_DECK if c not in out]}}
            actions.append(hit)
        if len(hand.cards) >= 2:
            actions.append({"type": "stay", "player": hand.player})
        return actions

    def known_hands(self, state: FarmerState) -> dict[int, list[str]]:
        """Every hand dealt so far: the engine is told each card (shoe or keyed), face-down ones too."""
        return {hand.player: list(hand.cards) for hand in state.hands if hand.cards}

    def last_from_shoe(self, state: FarmerState) -> list[tuple[int, str]]:
        """The cards the electronic shoe gave out last, to whom: the dealer hands them out.

        After the deal, every player's face-down card; after a hit, that card. Empty with a
        manual shoe (the dealer keyed the card) and before the deal.
        """
        if state.deck is None or state.dealt == 0:
            return []
        if all(len(hand.cards) <= 1 for hand in state.hands):
            return [(hand.player, hand.cards[0]) for hand in _in_order(state) if hand.cards]
        card = state.deck[state.dealt - 1]
        return [(hand.player, card) for hand in state.hands if card in hand.cards]

    def carry_out(self, state: FarmerState) -> dict[str, Any]:
        """The farm's balance, who farms next and where they sit, and who anted (farmer's left first)."""
        farmer = state.result.next_farmer if state.result else state.farmer
        carry: dict[str, Any] = {"pots": {FARM: state.farm}, "players": list(state.order or state.players)}
        if farmer is not None:
            carry["farmer"] = farmer
            carry["farmer_seat"] = state.seat_of(farmer)
        return carry


# --- start ---------------------------------------------------------------------------------


def _choose_farmer(state: FarmerState, ctx: TableContext) -> FarmerState:
    seats = {hand.seat: hand.player for hand in state.hands}
    carried = checks.carried_int(ctx.carry, "farmer")
    if carried is None:
        return _first_farmer(state, ctx, seats)
    if carried in seats.values():
        return _with_farmer(state, carried)
    old_seat = checks.carried_int(ctx.carry, "farmer_seat")
    if old_seat is None:
        return _with_farmer(state, seats[min(seats)])
    return _with_farmer(state, seats_from_left_of(old_seat, seats)[0])


def _first_farmer(state: FarmerState, ctx: TableContext, seats: dict[int, int]) -> FarmerState:
    """The 6♥ draw; with a manual shoe the dealer keys the result (`farmer`)."""
    if state.deck is None:
        return replace(state, phase="draw")
    if not ctx.extra_decks:
        raise refuse("The first Farmer round needs a second deck for the 6♥ draw.")
    draw_deck = checks.check_deck(ctx.extra_decks[0], FARMER_DECK, what="The 6♥ draw deck")
    receivers = seats_from_left_of(min(seats), seats)
    draw: list[tuple[int, str]] = []
    for index, card in enumerate(draw_deck):
        draw.append((receivers[index % len(receivers)], card))
        if card == SIX_OF_HEARTS:
            break
    return replace(_with_farmer(state, draw[-1][0]), farmer_draw=tuple(draw))


def _with_farmer(state: FarmerState, farmer: int) -> FarmerState:
    by_seat = {hand.seat: hand.player for hand in state.hands}
    order = tuple(seats_from_left_of(state.seat_of(farmer), by_seat))
    return replace(state, farmer=farmer, order=order, phase="deal")


# --- actions -------------------------------------------------------------------------------


def _do_farmer(state: FarmerState, action: Mapping[str, Any]) -> tuple[FarmerState, tuple[Settlement, ...]]:
    if state.phase != "draw":
        raise refuse("The farmer is keyed only before the deal of a table's first manual-shoe round.")
    player = checks.action_player(action, state.players)
    return _with_farmer(state, player), ()


def _do_deal(state: FarmerState, action: Mapping[str, Any]) -> tuple[FarmerState, tuple[Settlement, ...]]:
    checks.check_phase(state.phase, "deal", "deal")
    if state.deck is None:
        cards = _keyed_deal(state, action.get("cards"))
    else:
        checks.forbid_cards(action, "cards")
        cards = dict(zip(state.order, state.deck[: len(state.order)], strict=True))
    for player in state.order:
        state = state.with_hand(replace(state.hand(player), cards=(cards[player],)))
    return replace(state, phase="play", turn=0), ()


def _keyed_deal(state: FarmerState, raw: object) -> dict[int, str]:
    if raw is None:
        raise refuse("With a manual shoe, 'cards' must give each player's card.")
    keyed = checks.by_player(raw, state.players, field="cards")
    cards: dict[int, str] = {}
    for player in state.order:
        card = parse_card(keyed[player])
        check_keyed_card(card, deck=FARMER_DECK, out=frozenset(cards.values()))
        cards[player] = card
    return cards


def _turn_player(state: FarmerState, action: Mapping[str, Any], doing: str) -> Hand:
    checks.check_phase(state.phase, "play", doing)
    player = checks.action_player(action, state.players)
    assert state.turn is not None
    checks.check_turn(player, state.order[state.turn])
    return state.hand(player)


def _do_hit(state: FarmerState, action: Mapping[str, Any]) -> tuple[FarmerState, tuple[Settlement, ...]]:
    hand = _turn_player(state, action, "hit")
    if hand.busted:
        raise refuse(f"Player {hand.player} is over 16 and must stay.")
    card = _next_card(state, action)
    state = state.with_hand(replace(hand, cards=(*hand.cards, card)))
    if state.stock == 0:
        return _showdown(state)
    return state, ()


def _next_card(state: FarmerState, action: Mapping[str, Any]) -> str:
    if state.deck is not None:
        checks.forbid_cards(action, "card")
        return state.deck[state.dealt]
    if action.get("card") is None:
        raise refuse("With a manual shoe, 'card' must name the card dealt.")
    card = parse_card(action.get("card"))
    out = frozenset(c for hand in state.hands for c in hand.cards)
    check_keyed_card(card, deck=FARMER_DECK, out=out)
    return card


def _do_stay(state: FarmerState, action: Mapping[str, Any]) -> tuple[FarmerState, tuple[Settlement, ...]]:
    hand = _turn_player(state, action, "stay")
    if len(hand.cards) < 2:
        raise refuse(f"Player {hand.player} must hit at least once before staying.")
    state = state.with_hand(replace(hand, done=True))
    assert state.turn is not None
    if state.turn + 1 == len(state.order):
        return _showdown(state)
    return replace(state, turn=state.turn + 1), ()


_HANDLERS = {"farmer": _do_farmer, "deal": _do_deal, "hit": _do_hit, "stay": _do_stay}


# --- settlement ----------------------------------------------------------------------------


def _showdown(state: FarmerState) -> tuple[FarmerState, tuple[Settlement, ...]]:
    hands = [state.hand(p) for p in state.order]
    state = replace(state, hands=tuple(replace(h, done=True) for h in state.hands), turn=None)
    payments = Reserves({hand.player: hand.reserve_left for hand in state.hands})
    sixteens = [h for h in hands if h.total == TARGET]
    winner = _farm_winner(sixteens, state) if sixteens else None
    best, best_total = ([], None) if sixteens else _best_hands(hands)
    if winner is not None:
        pay_pot(payments, FARM, state.farm, winner, state.rake)
        farm = 0
    else:
        farm = state.farm + _pay_best(state, hands, best, payments)
    farmer = state.farmer
    assert farmer is not None
    for hand in hands:
        if hand.busted and hand.player != farmer:
            payments.pay("bust", hand.player, wallet(farmer), state.ante)
    result = Result(
        farm_winner=winner,
        best_total=best_total,
        best=tuple(best),
        busted=tuple(h.player for h in hands if h.busted),
        next_farmer=farmer if winner is None else winner,
    )
    left = tuple(replace(h, reserve_left=payments.left[h.player]) for h in state.hands)
    settled = replace(state, hands=left, farm=farm, phase="settled", result=result)
    return settled, tuple(payments.settlements)


def _farm_winner(sixteens: list[Hand], state: FarmerState) -> int:
    """GAMES.md step 1's tie-breaks: the 6♥, then fewest cards, then the farmer, then first from the left."""
    for hand in sixteens:
        if SIX_OF_HEARTS in hand.cards:
            return hand.player
    fewest = min(len(h.cards) for h in sixteens)
    tied = [h.player for h in sixteens if len(h.cards) == fewest]
    if state.farmer in tied:
        return state.farmer
    return tied[0]  # ``sixteens`` is in order from the farmer's left


def _best_hands(hands: list[Hand]) -> tuple[list[int], int | None]:
    live = [h for h in hands if not h.busted]
    if not live:
        return [], None
    best_total = max(h.total for h in live)
    return [h.player for h in live if h.total == best_total], best_total


def _pay_best(state: FarmerState, hands: list[Hand], best: list[int], payments: Reserves) -> int:
    """Step 2: lower live hands pay the best; returns the odd cents a shared side pot leaves the farm."""
    if not best:
        return 0
    best_total = state.hand(best[0]).total
    payers = [h.player for h in hands if not h.busted and h.total < best_total]
    if len(best) == 1:
        for player in payers:
            payments.pay("low_hand", player, wallet(best[0]), state.ante)
        return 0
    side = sum(payments.pay("low_hand", player, pot(SIDE), state.ante) for player in payers)
    share, remainder = divmod(side, len(best))
    for player in best:
        payments.move("side_pot", pot(SIDE), wallet(player), share, player)
    payments.move("side_pot_remainder", pot(SIDE), pot(FARM), remainder, None)
    return remainder


# --- public views --------------------------------------------------------------------------


def _in_order(state: FarmerState) -> list[Hand]:
    if not state.order:
        return list(state.hands)
    return [state.hand(p) for p in state.order]


def _public_hand(hand: Hand, shown: bool) -> dict[str, Any]:
    return {
        "player": hand.player,
        "seat": hand.seat,
        "cards": len(hand.cards),
        "done": hand.done,
        "reserve_left": hand.reserve_left,
        "hand": list(hand.cards) if shown else None,
        "total": hand.total if shown else None,
    }


def _public_result(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "farm_winner": result.farm_winner,
        "best_total": result.best_total,
        "best": list(result.best),
        "busted": list(result.busted),
        "next_farmer": result.next_farmer,
    }


ENGINE: Engine[FarmerState] = FarmerEngine()
