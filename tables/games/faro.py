"""Faro, house-banked: one round is one deal of a 52-card deck (GAMES.md "Faro").

The deal: the soda (burned, settles nothing), 24 turns of two cards (banker's card loses,
player's card wins), then the last turn of three cards (banker, player, hock). Bets sit on
the layout (``layout:<player>``) from turn to turn until decided, removed, or handed back
after the hock.

Decisions where GAMES.md is silent, taken from the classic game (each is tested in
``tests/games/test_faro.py``):

* Bets may be placed before the soda and between any two turns, up to the last turn; the
  same holds for ``remove_bet``. Nothing may be placed or removed once the deal is over.
* ``even``/``odd`` look at the player's (winning) card; ``high`` wins when the player's
  card outranks the banker's (A low … K high). They are decided by the very next turn,
  the last turn included, and leave the layout either way.
* Only rank bets can be coppered; a coppered ``even``/``odd``/``high`` is refused.
* A multi-rank bet is refused (``dead_rank``) if any rank it covers has no cards left:
  part of the stack would sit on a card that can never come.
* A split takes half rounded down to the cent; a 1-cent stack therefore loses nothing.
* A stack left on a rank that has since died stays (it can no longer be decided) until
  it is removed or handed back after the hock.
* Limits injected with an action (``limits``) are kept in the state and shown; they apply
  to that bet and later ones, never to stacks already down.
* The engine does not check seating: Faro punters come and go during a deal, and the
  table service checks who may bet. Player ids must be positive integers.
* ``call_turn`` orders must be possible: every rank named must have that many cards left
  (a rank with none → ``dead_rank``, too many of a rank → ``illegal_action``). A player may
  call more than one order; the calls count towards ``max_player_action``.
* A winning call is paid ``call_turn_pays`` (three different ranks) or ``cat_hop_pays``
  (a pair and one) to 1 and its stake comes back; a losing call goes to the bank.
* A bet won on the last turn is paid and then handed back with everything else.
* ``rules.rake`` may only be None: the house earns from splits, not from a rake.
* Settlement kinds: ``bet`` (wallet → layout), ``win`` (bank → wallet), ``loss`` (layout →
  bank), ``split`` (half, layout → bank), ``return`` (layout → wallet: decided
  even/odd/high stakes, winning calls, everything after the hock) and ``withdraw``
  (layout → wallet by ``remove_bet``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import permutations
from typing import Any

from tables.games.base import BANK, Engine, NoHandsToShow, Settlement, TableContext, layout, wallet
from tables.games.cards import FULL_DECK, RANKS, card_label, parse_card, parse_rank, rank_index, rank_of
from tables.games.errors import refuse
from tables.games.faro_layout import PLACEMENTS, is_placement
from tables.games.input_checks import DEFAULT_CHIP, action_type, check_context, is_int
from tables.games.payments import dollars
from tables.games.shoe import check_keyed_card

GAME = "faro"
TURNS_BEFORE_LAST = 24
CARDS_PER_RANK = 4
TARGETS: tuple[str, ...] = ("even", "odd", "high")
EVEN_RANKS = frozenset({"2", "4", "6", "8", "10", "Q"})
ODD_RANKS = frozenset({"A", "3", "5", "7", "9", "J", "K"})
DEFAULT_RULES: dict[str, Any] = {
    "chip": DEFAULT_CHIP,
    "max_player_action": None,
    "call_turn_pays": 4,
    "cat_hop_pays": 2,
    "rake": None,
}
_MAX_ID = 2**63 - 1  # ids are database bigints

Moves = list[Settlement]


@dataclass(frozen=True, slots=True)
class FaroRules:
    chip: int
    max_player_action: int | None
    call_turn_pays: int
    cat_hop_pays: int


@dataclass(frozen=True, slots=True)
class Bet:
    """A stack on the layout. ``ranks`` is canonical for rank bets, the called order for calls."""

    id: str
    player: int
    kind: str  # "rank" | "target" | "call"
    amount: int
    ranks: tuple[str, ...] = ()
    target: str | None = None
    coppered: bool = False


@dataclass(frozen=True, slots=True)
class Turn:
    banker: str
    player: str
    hock: str | None = None


@dataclass(frozen=True, slots=True)
class FaroState:
    rules: FaroRules
    deck: tuple[str, ...] | None  # the electronic shoe's order; None for a manual shoe
    min_bet: int
    max_bet: int
    soda: str | None = None
    turns: tuple[Turn, ...] = ()
    bets: tuple[Bet, ...] = ()
    bets_made: int = 0
    over: bool = False


# --------------------------------------------------------------------------- input checks


def _whole(value: object) -> int | None:
    """The value when it is a whole number; JSON true/false are not numbers here."""
    return value if is_int(value) else None


def _player(action: Mapping[str, Any]) -> int:
    player = _whole(action.get("player"))
    if player is None or not 0 < player <= _MAX_ID:
        raise refuse("'player' must be a player id (a positive whole number).")
    return player


def _rank(value: object) -> str:
    """Wraps cards.parse_rank so odd input (huge ints, nested lists) never escapes as ValueError."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= len(RANKS):
        return parse_rank(value)
    if not isinstance(value, str):
        raise refuse("A rank must be one of A 2-10 J Q K.", "bad_rank")
    return parse_rank(value)


def _card(value: object) -> str:
    if not isinstance(value, str):
        raise refuse("A card must be written like '10H' or 'QS'.", "bad_card")
    return parse_card(value)


def _keyed_cards(action: Mapping[str, Any], count: int, out: frozenset[str]) -> tuple[str, ...]:
    """Cards keyed from a manual shoe: exactly ``count``, distinct, and still in the shoe."""
    raw = action.get("cards")
    if not isinstance(raw, list | tuple) or len(raw) != count:
        raise refuse(f"Key exactly {count} cards in 'cards', in the order they left the shoe.")
    cards = tuple(_card(value) for value in raw)
    if len(set(cards)) != count:
        raise refuse("'cards' names the same card twice.", "bad_card")
    for card in cards:
        check_keyed_card(card, deck=FULL_DECK, out=out)
    return cards


def _limits_of(action: Mapping[str, Any], state: FaroState) -> tuple[int, int]:
    """The server injects live limits into an action; they apply from that action on."""
    limits = action.get("limits")
    if limits is None:
        return state.min_bet, state.max_bet
    if not isinstance(limits, Mapping):
        raise refuse("'limits' must be {min_bet, max_bet}.")
    low, high = _whole(limits.get("min_bet")), _whole(limits.get("max_bet"))
    if low is None or high is None or not 0 <= low <= high <= _MAX_ID:
        raise refuse("'limits' must hold whole-cent min_bet ≤ max_bet.")
    return low, high


# --------------------------------------------------------------------------- the shoe


def _dealt(state: FaroState) -> tuple[str, ...]:
    cards: list[str] = [state.soda] if state.soda is not None else []
    for turn in state.turns:
        cards += [turn.banker, turn.player] + ([turn.hock] if turn.hock is not None else [])
    return tuple(cards)


def _left_by_rank(state: FaroState) -> dict[str, int]:
    gone = Counter(rank_of(card) for card in _dealt(state))
    return {rank: CARDS_PER_RANK - gone[rank] for rank in RANKS}


def casekeeper_counts(state: FaroState) -> tuple[dict[str, int], int]:
    """Per rank the cards left in the shoe, and all cards left: the casekeeper's counts now.

    The public view's ``casekeeper`` holds the same counts with every card named; this is the
    cheap read for a fold that needs them before every bet (the audit's theoretical win).
    """
    left = _left_by_rank(state)
    return left, sum(left.values())


def _remaining_cards(state: FaroState) -> tuple[str, ...]:
    """The undealt cards (in shoe order when electronic). Never shown to the public."""
    dealt = _dealt(state)
    if state.deck is not None:
        return state.deck[len(dealt) :]
    out = frozenset(dealt)
    return tuple(card for card in FULL_DECK if card not in out)


def _at_last_turn(state: FaroState) -> bool:
    return not state.over and len(state.turns) == TURNS_BEFORE_LAST


def _can_call_turn(state: FaroState) -> bool:
    if not _at_last_turn(state):
        return False
    return len({rank_of(card) for card in _remaining_cards(state)}) > 1


def _next_cards(state: FaroState, action: Mapping[str, Any], count: int) -> tuple[str, ...]:
    """Electronic: the shoe's next cards (keying is refused). Manual: the keyed cards, checked."""
    if state.deck is None:
        return _keyed_cards(action, count, frozenset(_dealt(state)))
    if action.get("cards") is not None:
        raise refuse("This is an electronic shoe: the engine deals the cards, do not key them.")
    start = len(_dealt(state))
    return state.deck[start : start + count]


# --------------------------------------------------------------------------- placing bets


def _placement(action: Mapping[str, Any], state: FaroState) -> tuple[tuple[str, ...], str | None, bool]:
    """(ranks, target, coppered) of a new bet; exactly one of ranks/target is given."""
    ranks, target = action.get("ranks"), action.get("target")
    coppered = action.get("coppered")
    if coppered is None:
        coppered = False
    if not isinstance(coppered, bool):
        raise refuse("'coppered' must be true or false.")
    if (ranks is None) == (target is None):
        raise refuse("A bet names either 'ranks' (1-4 ranks) or a 'target' (even, odd or high).")
    if target is not None:
        return (), _target(target, coppered), False
    return _rank_placement(ranks, state), None, coppered


def _target(target: object, coppered: bool) -> str:
    if not isinstance(target, str) or target.strip().lower() not in TARGETS:
        raise refuse("'target' must be even, odd or high.", "bad_placement")
    if coppered:
        raise refuse("Only bets on ranks can be coppered, not even, odd or high.")
    return target.strip().lower()


def _rank_placement(raw: object, state: FaroState) -> tuple[str, ...]:
    if not isinstance(raw, list | tuple) or not 1 <= len(raw) <= CARDS_PER_RANK:
        raise refuse("'ranks' must list 1 to 4 ranks.", "bad_placement")
    ranks = tuple(sorted({_rank(value) for value in raw}, key=rank_index))
    if len(ranks) != len(raw) or not is_placement(frozenset(ranks)):
        raise refuse(f"One stack cannot cover {'-'.join(ranks)} on the layout.", "bad_placement")
    left = _left_by_rank(state)
    dead = [rank for rank in ranks if left[rank] == 0]
    if dead:
        raise refuse(f"No {', '.join(dead)} left in the shoe: that rank is dead.", "dead_rank")
    return ranks


def _stake(action: Mapping[str, Any], state: FaroState, player: int) -> int:
    """The amount, checked against chip size, the live limits and the player's layout cap."""
    amount = _whole(action.get("amount"))
    if amount is None or amount <= 0:
        raise refuse("'amount' must be a positive number of cents.")
    low, high = state.min_bet, state.max_bet
    if amount < low:
        raise refuse(f"The table minimum is {dollars(low)}.", "below_minimum")
    if amount > high:
        raise refuse(f"The table maximum is {dollars(high)}.", "limit_exceeded")
    if amount % state.rules.chip:
        raise refuse(f"Bets are made in chips of {dollars(state.rules.chip)}.")
    cap = state.rules.max_player_action
    on_layout = sum(bet.amount for bet in state.bets if bet.player == player)
    if cap is not None and on_layout + amount > cap:
        raise refuse(f"Player {player} would have more than {dollars(cap)} on the layout.", "limit_exceeded")
    return amount


def _add_bet(state: FaroState, bet: Bet) -> tuple[FaroState, tuple[Settlement, ...]]:
    placed = replace(state, bets=(*state.bets, bet), bets_made=state.bets_made + 1)
    move = Settlement("bet", wallet(bet.player), layout(bet.player), bet.amount, bet.player)
    return placed, (move,)


def _next_bet_id(state: FaroState) -> str:
    return f"b{state.bets_made + 1}"


# --------------------------------------------------------------------------- deciding bets


def _win(bet: Bet, amount: int) -> Settlement:
    return Settlement("win", BANK, wallet(bet.player), amount, bet.player)


def _to_bank(bet: Bet, amount: int, kind: str = "loss") -> Moves:
    return [Settlement(kind, layout(bet.player), BANK, amount, bet.player)] if amount > 0 else []


def _to_wallet(bet: Bet, amount: int, kind: str = "return") -> Moves:
    return (
        [Settlement(kind, layout(bet.player), wallet(bet.player), amount, bet.player)] if amount > 0 else []
    )


def _decide_rank_bet(bet: Bet, loser: str, winner: str) -> tuple[Bet | None, Moves]:
    """Banker's rank loses, player's rank wins; covering both pushes; a split halves."""
    hit_loser, hit_winner = loser in bet.ranks, winner in bet.ranks
    if loser == winner:
        if not hit_loser:
            return bet, []
        half = bet.amount // 2  # the odd cent stays on the layout
        return replace(bet, amount=bet.amount - half), _to_bank(bet, half, "split")
    if hit_loser == hit_winner:
        return bet, []
    if hit_winner != bet.coppered:
        return bet, [_win(bet, bet.amount)]
    return None, _to_bank(bet, bet.amount)


def target_wins(target: str | None, loser: str, winner: str) -> bool:
    """Whether an even/odd/high bet wins a turn that is no split (``faro_edge`` prices it too)."""
    if target == "even":
        return winner in EVEN_RANKS
    if target == "odd":
        return winner in ODD_RANKS
    return rank_index(winner) > rank_index(loser)


def _decide_target_bet(bet: Bet, loser: str, winner: str) -> tuple[Bet | None, Moves]:
    """even/odd/high leave the layout on the next turn: won, lost, or half lost on a split."""
    if loser == winner:
        half = bet.amount // 2
        return None, _to_bank(bet, half, "split") + _to_wallet(bet, bet.amount - half)
    if target_wins(bet.target, loser, winner):
        return None, [_win(bet, bet.amount), *_to_wallet(bet, bet.amount)]
    return None, _to_bank(bet, bet.amount)


# How a turn decides a rank bet and an even/odd/high bet (a call waits for the hock).
_DECIDE = {"rank": _decide_rank_bet, "target": _decide_target_bet}


def _settle_turn(bets: tuple[Bet, ...], loser: str, winner: str) -> tuple[tuple[Bet, ...], Moves]:
    kept: list[Bet] = []
    moves: Moves = []
    for bet in bets:
        after: Bet | None = bet
        if bet.kind in _DECIDE:  # calls wait for the hock
            after, made = _DECIDE[bet.kind](bet, loser, winner)
            moves += made
        if after is not None:
            kept.append(after)
    return tuple(kept), moves


def bets_on_layout(state: FaroState) -> dict[str, int]:
    """Bet id → player for every stack on the layout now (cheaper than the public view)."""
    return {bet.id: bet.player for bet in state.bets}


def decided_bets(before: FaroState, after: FaroState) -> frozenset[str]:
    """Ids of the bets the turn dealt between two states decided: won, lost or split.

    Ratings count a bet as handle only once a turn decides it (README "Handle, win, theo"):
    a push (a multi-rank bet covering both cards), a turn that misses the bet and the
    hand-back after the hock move no chips for it and decide nothing; every call is decided
    by the last turn.
    """
    if len(after.turns) == len(before.turns):
        return frozenset()
    turn = after.turns[-1]
    loser, winner = rank_of(turn.banker), rank_of(turn.player)
    decided = set()
    for bet in before.bets:
        if bet.kind == "call":
            if turn.hock is not None:
                decided.add(bet.id)
            continue
        if _DECIDE[bet.kind](bet, loser, winner)[1]:
            decided.add(bet.id)
    return frozenset(decided)


def _settle_calls(bets: tuple[Bet, ...], order: tuple[str, str, str], rules: FaroRules) -> Moves:
    """A call is right only in the exact order; a pair among the three (cat-hop) pays less."""
    pays = rules.cat_hop_pays if len(set(order)) == 2 else rules.call_turn_pays
    moves: Moves = []
    for bet in bets:
        if bet.kind != "call":
            continue
        if bet.ranks == order:
            moves += [_win(bet, bet.amount * pays), *_to_wallet(bet, bet.amount)]
        else:
            moves += _to_bank(bet, bet.amount)
    return moves


# --------------------------------------------------------------------------- actions


Handler = Callable[[FaroState, Mapping[str, Any]], tuple[FaroState, tuple[Settlement, ...]]]


def _do_bet(state: FaroState, action: Mapping[str, Any]) -> tuple[FaroState, tuple[Settlement, ...]]:
    player = _player(action)
    ranks, target, coppered = _placement(action, state)
    amount = _stake(action, state, player)
    kind = "target" if target is not None else "rank"
    bet = Bet(_next_bet_id(state), player, kind, amount, ranks, target, coppered)
    return _add_bet(state, bet)


def _do_remove_bet(state: FaroState, action: Mapping[str, Any]) -> tuple[FaroState, tuple[Settlement, ...]]:
    bet_id = action.get("bet")
    found = [bet for bet in state.bets if bet.id == bet_id] if isinstance(bet_id, str) else []
    if not found:
        raise refuse("'bet' must be the id of a bet on the layout, like 'b1'.")
    kept = tuple(bet for bet in state.bets if bet.id != bet_id)
    return replace(state, bets=kept), tuple(_to_wallet(found[0], found[0].amount, "withdraw"))


def _do_soda(state: FaroState, action: Mapping[str, Any]) -> tuple[FaroState, tuple[Settlement, ...]]:
    if state.deck is not None:
        raise refuse("The electronic shoe burned the soda when the deal started.")
    if state.soda is not None:
        raise refuse(f"The soda ({card_label(state.soda)}) is already out.")
    card = _card(action.get("card"))
    check_keyed_card(card, deck=FULL_DECK, out=())
    return replace(state, soda=card), ()


def _do_turn(state: FaroState, action: Mapping[str, Any]) -> tuple[FaroState, tuple[Settlement, ...]]:
    if state.soda is None:
        raise refuse("Burn the soda before the first turn.")
    if len(state.turns) >= TURNS_BEFORE_LAST:
        raise refuse("Three cards are left: deal the last turn.")
    banker, player = _next_cards(state, action, 2)
    bets, moves = _settle_turn(state.bets, rank_of(banker), rank_of(player))
    return replace(state, turns=(*state.turns, Turn(banker, player)), bets=bets), tuple(moves)


def _do_call_turn(state: FaroState, action: Mapping[str, Any]) -> tuple[FaroState, tuple[Settlement, ...]]:
    if not _at_last_turn(state):
        raise refuse("The turn can be called only when exactly three cards are left.")
    if not _can_call_turn(state):
        raise refuse("The last three cards are all one rank: no calls.")
    player = _player(action)
    order = _called_order(action.get("order"), state)
    amount = _stake(action, state, player)
    return _add_bet(state, Bet(_next_bet_id(state), player, "call", amount, order))


def _called_order(raw: object, state: FaroState) -> tuple[str, str, str]:
    if not isinstance(raw, list | tuple) or len(raw) != 3:
        raise refuse("'order' must name three ranks: loser, winner, hock.")
    loser, winner, hock = (_rank(value) for value in raw)
    left = Counter(rank_of(card) for card in _remaining_cards(state))
    for rank, named in Counter((loser, winner, hock)).items():
        if left[rank] == 0:
            raise refuse(f"No {rank} is left in the shoe: that rank is dead.", "dead_rank")
        if named > left[rank]:
            raise refuse(f"Only {left[rank]} {rank} left, but the order names it {named} times.")
    return loser, winner, hock


def _do_last_turn(state: FaroState, action: Mapping[str, Any]) -> tuple[FaroState, tuple[Settlement, ...]]:
    if not _at_last_turn(state):
        raise refuse("The last turn comes when exactly three cards are left; deal a turn.")
    banker, player, hock = _next_cards(state, action, 3)
    bets, moves = _settle_turn(state.bets, rank_of(banker), rank_of(player))
    moves += _settle_calls(bets, (rank_of(banker), rank_of(player), rank_of(hock)), state.rules)
    for bet in bets:
        if bet.kind != "call":
            moves += _to_wallet(bet, bet.amount)
    last = Turn(banker, player, hock)
    return replace(state, turns=(*state.turns, last), bets=(), over=True), tuple(moves)


_HANDLERS: dict[str, Handler] = {
    "bet": _do_bet,
    "remove_bet": _do_remove_bet,
    "soda": _do_soda,
    "turn": _do_turn,
    "call_turn": _do_call_turn,
    "last_turn": _do_last_turn,
}


# --------------------------------------------------------------------------- public view


def _casekeeper(state: FaroState) -> dict[str, dict[str, Any]]:
    """Per rank: where its cards went and how many are left (the wire-and-bead frame)."""
    frame: dict[str, dict[str, Any]] = {
        rank: {"soda": [], "losers": [], "winners": [], "hock": [], "left": CARDS_PER_RANK} for rank in RANKS
    }
    placed: list[tuple[str, str | None]] = [("soda", state.soda)]
    for turn in state.turns:
        placed += [("losers", turn.banker), ("winners", turn.player), ("hock", turn.hock)]
    for column, card in placed:
        if card is not None:
            frame[rank_of(card)][column].append(card)
            frame[rank_of(card)]["left"] -= 1
    return frame


def _bet_view(bet: Bet) -> dict[str, Any]:
    view: dict[str, Any] = {"id": bet.id, "player": bet.player, "kind": bet.kind}
    if bet.kind == "rank":
        view["ranks"] = list(bet.ranks)
    elif bet.kind == "target":
        view["target"] = bet.target
    else:
        view["order"] = list(bet.ranks)
    view.update(amount=bet.amount, coppered=bet.coppered)
    return view


def _turn_view(number: int, turn: Turn) -> dict[str, Any]:
    view: dict[str, Any] = {"number": number, "banker": turn.banker, "player": turn.player}
    view["split"] = rank_of(turn.banker) == rank_of(turn.player)
    if turn.hock is not None:
        view["hock"] = turn.hock
    return view


def _phase(state: FaroState) -> tuple[str, str | None]:
    """(phase, next dealing action)."""
    if state.over:
        return "settled", None
    if state.soda is None:
        return "soda", "soda"
    return "betting", "last_turn" if len(state.turns) == TURNS_BEFORE_LAST else "turn"


def _validate_deck(deck: Sequence[str] | None) -> tuple[str, ...] | None:
    if deck is None:
        return None
    cards = tuple(deck)
    if len(cards) != len(FULL_DECK) or set(cards) != set(FULL_DECK):
        raise refuse("An electronic Faro shoe must hold exactly one 52-card deck.")
    return cards


def _positive_rule(rules: Mapping[str, Any], key: str, *, optional: bool = False) -> int | None:
    if rules[key] is None and optional:
        return None
    value = _whole(rules[key])
    if value is None or value <= 0:
        raise refuse(f"rules.{key} must be a positive whole number.", "bad_rules")
    return value


# --------------------------------------------------------------------------- legal actions


def _amount_hints(state: FaroState) -> dict[str, Any] | None:
    """The hints of a new bet's amount: the smallest and largest stake any one new bet may have
    now (whole chips) and the player's cap; None when no stake fits."""
    chip, cap = state.rules.chip, state.rules.max_player_action
    low = -(-max(state.min_bet, 1) // chip) * chip
    high = state.max_bet if cap is None else min(state.max_bet, cap)
    high -= high % chip
    if low > high:
        return None
    hints: dict[str, Any] = {"min_amount": low, "max_amount": high, "chip": chip}
    if cap is not None:
        hints["max_player_action"] = cap
    return hints


# Every placement as its canonical list of ranks, singles first, then by rank (A low).
_PLACEMENT_LISTS: tuple[tuple[str, ...], ...] = tuple(
    sorted(
        (tuple(sorted(placement, key=rank_index)) for placement in PLACEMENTS),
        key=lambda ranks: (len(ranks), [rank_index(rank) for rank in ranks]),
    )
)


def _live_placements(state: FaroState) -> list[list[str]]:
    """Every placement with no dead rank."""
    dead = {rank for rank, left in _left_by_rank(state).items() if left == 0}
    return [list(ranks) for ranks in _PLACEMENT_LISTS if dead.isdisjoint(ranks)]


def _possible_orders(state: FaroState) -> list[list[str]]:
    """The distinct orders of the three ranks left: the only calls ``_called_order`` accepts."""
    ranks = [rank_of(card) for card in _remaining_cards(state)]
    orders = {tuple(order) for order in permutations(ranks)}
    return [list(order) for order in sorted(orders, key=lambda o: [rank_index(rank) for rank in o])]


def _dealing_action(state: FaroState) -> dict[str, Any]:
    """The next card(s) out of the shoe: concrete when electronic, a template when keyed."""
    if state.deck is not None:
        return {"type": "last_turn" if _at_last_turn(state) else "turn"}
    if state.soda is None:
        return {"type": "soda", "needs": ["card"], "choices": {"card": list(FULL_DECK)}}
    kind, count = ("last_turn", 3) if _at_last_turn(state) else ("turn", 2)
    remaining = list(_remaining_cards(state))
    return {"type": kind, "needs": ["cards"], "choices": {"cards": remaining}, "count": {"cards": count}}


# --------------------------------------------------------------------------- the engine


class FaroEngine(NoHandsToShow):
    """Faro against the house: no reserves, no pots, nothing carried between deals; its players
    hold no cards."""

    game = GAME

    def default_rules(self) -> dict[str, Any]:
        return dict(DEFAULT_RULES)

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(rules, Mapping):
            raise refuse("Faro rules must be an object.", "bad_rules")
        unknown = [key for key in rules if key not in DEFAULT_RULES]
        if unknown:
            names = ", ".join(sorted(key if isinstance(key, str) else "?" for key in unknown))
            raise refuse(f"Faro has no rule(s) {names}.", "bad_rules")
        merged = {**DEFAULT_RULES, **rules}
        for key in ("chip", "call_turn_pays", "cat_hop_pays"):
            _positive_rule(merged, key)
        _positive_rule(merged, "max_player_action", optional=True)
        if merged["rake"] is not None:
            raise refuse("Faro is house-banked and takes no rake.", "bad_rules")
        return merged

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        check_context(ctx)
        return {}

    def start(self, ctx: TableContext) -> tuple[FaroState, tuple[Settlement, ...]]:
        check_context(ctx)
        rules = self.validate_rules(ctx.rules)
        deck = _validate_deck(ctx.deck)
        state = FaroState(
            rules=FaroRules(
                chip=rules["chip"],
                max_player_action=rules["max_player_action"],
                call_turn_pays=rules["call_turn_pays"],
                cat_hop_pays=rules["cat_hop_pays"],
            ),
            deck=deck,
            min_bet=ctx.min_bet,
            max_bet=ctx.max_bet,
            soda=deck[0] if deck is not None else None,
        )
        return state, ()

    def apply(self, state: Any, action: Mapping[str, Any]) -> tuple[FaroState, tuple[Settlement, ...]]:
        if not isinstance(state, FaroState):
            raise refuse("This is not a Faro deal.")
        kind = action_type(action)
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise refuse(f"That is not a Faro action; Faro actions are {', '.join(_HANDLERS)}.")
        if state.over:
            raise refuse("This deal is over.")
        low, high = _limits_of(action, state)
        return handler(replace(state, min_bet=low, max_bet=high), action)

    def public_state(self, state: FaroState) -> dict[str, Any]:
        phase, next_action = _phase(state)
        left = _left_by_rank(state)
        hock = state.turns[-1].hock if state.turns else None
        return {
            "game": GAME,
            "shoe": "manual" if state.deck is None else "electronic",
            "phase": phase,
            "next_action": next_action,
            "turn": len(state.turns),
            "cards_remaining": len(FULL_DECK) - len(_dealt(state)),
            "soda": state.soda,
            "latest_turn": _turn_view(len(state.turns), state.turns[-1]) if state.turns else None,
            "hock": hock,
            "turns": [_turn_view(n, turn) for n, turn in enumerate(state.turns, start=1)],
            "dead_ranks": [rank for rank in RANKS if left[rank] == 0],
            "limits": {"min_bet": state.min_bet, "max_bet": state.max_bet},
            "max_player_action": state.rules.max_player_action,
            "chip": state.rules.chip,
            "can_call_turn": _can_call_turn(state),
            "bets": [_bet_view(bet) for bet in state.bets],
            "casekeeper": _casekeeper(state),
        }

    def legal_actions(self, state: FaroState) -> list[dict[str, Any]]:
        """The dealing action due, the bet templates, and one ``remove_bet`` per stack.

        * Dealing: electronic shoe ``{"type": "turn"}`` or ``{"type": "last_turn"}`` (the soda
          is burned at the start); manual shoe ``soda`` (``needs: ["card"]``) until it is out,
          then ``turn``/``last_turn`` with ``needs: ["cards"]``, ``count`` 2 or 3 and the
          cards still in the shoe as ``choices``, keyed in the order they leave it.
        * ``bet`` template while the deal lasts and some stake fits the limits:
          ``needs: ["player", "ranks|target", "amount"]``, ``optional: ["coppered"]`` (rank
          bets only), ``choices``: every live placement for ``ranks`` and even/odd/high for
          ``target``, plus the amount hints. ``player`` is any player id: the table service,
          not the engine, says who may bet.
        * ``call_turn`` template only when three cards are left and they are not one rank:
          ``needs: ["player", "order", "amount"]`` with every possible ``order`` as choices.
        * ``{"type": "remove_bet", "bet": id}`` for each stack on the layout, calls included.
        """
        if state.over:
            return []
        actions: list[dict[str, Any]] = [_dealing_action(state)]
        hints = _amount_hints(state)
        if hints is not None:
            choices = {"ranks": _live_placements(state), "target": list(TARGETS)}
            actions.append(
                {
                    "type": "bet",
                    "needs": ["player", "ranks|target", "amount"],
                    "optional": ["coppered"],
                    "choices": choices,
                    **hints,
                }
            )
            if _can_call_turn(state):
                orders = {"order": _possible_orders(state)}
                actions.append(
                    {"type": "call_turn", "needs": ["player", "order", "amount"], "choices": orders, **hints}
                )
        actions += [{"type": "remove_bet", "bet": bet.id} for bet in state.bets]
        return actions

    def is_over(self, state: FaroState) -> bool:
        return state.over

    def carry_out(self, state: FaroState) -> dict[str, Any]:
        return {}


ENGINE: Engine[FaroState] = FaroEngine()
