"""Fan Tan (sevens): build the suits out from the sevens; first out of cards wins the pot.

GAMES.md "Fan Tan". ``start`` takes the antes into ``pot:main``; ``deal`` deals (or records)
the whole deck; then ``play``/``pass`` in turn from the dealer's left until a hand is
empty, when the round settles. ``penalty`` keys an illegal pass caught with count-only
tracking.

Decisions where GAMES.md is silent (the classic rules, tested in tests/games/test_fan_tan.py):

* The dealer position is the lowest occupied seat at a table's first round, then the next
  occupied seat to the left of the last round's dealer (carried as ``dealer_seat``).
* The electronic deal happens at the ``deal`` action (sent with no fields).
* The ante must be whole chips within the table limits; the extra chip of a short hand
  is not checked against the limits.
* Passing is never refused: a pass by a player who could play is an *illegal pass*. With
  known hands it is charged at once, in this order: the pass chip, three chips, then for
  each 7 the passer holds (suits S H D C) five chips to the holder of its 6, then five to
  the holder of its 8. Each payment is capped at what is left of the reserve.
* Count-only tracking (a manual deal without ``hands``): ``pass`` charges the pass chip
  and records how many cards were on the layout then. The dealer keys one
  ``penalty {player, seven?, six_holder?, eight_holder?, pass?}`` per illegal pass caught:
  three chips to the pot and, with ``seven`` (a 7 the passer held), five chips to the
  holder of its 6 and of its 8. It punishes the player's last pass, or ``pass`` (0 for
  their first pass of the round), and is judged at that pass (GAMES.md): a seven on the
  layout then, or played since by another player, is refused; a 6 or 8 on the layout then
  is owed nothing (naming a holder is refused); the holder of one played since is known
  (the one who played it; naming another is refused); any other holder is required
  (IllegalAction with ``fields`` naming ``six_holder``/``eight_holder``), and naming the
  passer says it was their own card, so nothing is due. Each pass is penalised once; a
  passer who held more sevens at that pass: key one more ``penalty`` per further seven
  with ``same_pass: true``, which pays only the holders (no three chips). A seven is
  penalised at most once per pass.
* A carried ``main`` pot (say, from a voided round) is added to this round's pot. The pot
  is won every round, so nothing carries unless the round never finished.
* Cards left are paid (one chip each) by the losers in order from the dealer's left; then
  the winner takes the pot less any percent rake.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from tables.games import input_checks as checks
from tables.games.base import Engine, NoHandsToShow, Settlement, TableContext, pot, seats_after, wallet
from tables.games.cards import (
    FULL_DECK,
    RANKS,
    SUITS,
    card_label,
    parse_card,
    parse_cards,
    rank_index,
    rank_of,
    suit_of,
)
from tables.games.errors import IllegalAction, refuse
from tables.games.payments import PercentRake, Reserves, pay_pot, percent_rake
from tables.games.shoe import check_keyed_card

GAME = "fan_tan"
MAIN = "main"
FEWEST, MOST = 3, 8
SEVEN = 7
ILLEGAL_PASS_CHIPS = 3
SEVEN_PENALTY_CHIPS = 5

Span = tuple[int, int] | None  # the lowest and highest rank index down in a suit


@dataclass(frozen=True, slots=True)
class Player:
    player: int
    seat: int
    dealt: int  # cards the deal gives this player
    reserve_left: int
    count: int = 0  # cards in hand now
    hand: tuple[str, ...] | None = None  # known with full tracking only
    passes_at: tuple[int, ...] = ()  # per pass: how many cards were on the layout then
    penalised: tuple[int, ...] = ()  # count-only: indexes of the passes penalised
    sevens: tuple[tuple[int, str], ...] = ()  # count-only: (pass index, seven) penalised

    @property
    def passes(self) -> int:
        return len(self.passes_at)


@dataclass(frozen=True, slots=True)
class FanTanState:
    ante: int
    chip: int
    rake: PercentRake | None
    deck: tuple[str, ...] | None  # electronic shoe order; None for a manual shoe
    dealer_seat: int
    players: tuple[Player, ...]  # in order from the dealer's left
    pot: int
    phase: str  # "deal", "play", "settled"
    tracking: str | None = None  # "full" (hands known) or "count" (hand sizes only)
    layout: tuple[Span, ...] = (None, None, None, None)  # per suit, in SUITS order
    played: tuple[str, ...] = ()
    played_by: tuple[int, ...] = ()  # who played each card of ``played``
    turn: int = 0  # index into ``players``
    winner: int | None = None

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(p.player for p in self.players)

    def get(self, player: int) -> Player:
        return next(p for p in self.players if p.player == player)

    def with_player(self, new: Player) -> FanTanState:
        return replace(self, players=tuple(new if p.player == new.player else p for p in self.players))

    def holder(self, card: str) -> int | None:
        """Who holds ``card`` (full tracking); None when played or unknown."""
        return next((p.player for p in self.players if p.hand and card in p.hand), None)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What ``reserve`` and ``start`` both derive from the table context."""

    rules: dict[str, Any]
    ante: int
    dealer_seat: int
    seats: tuple[tuple[int, int], ...]  # (seat, player) from the dealer's left
    dealt: tuple[int, ...]
    antes: tuple[int, ...]
    reserves: tuple[int, ...]


class FanTanEngine(NoHandsToShow):
    game = GAME

    def default_rules(self) -> dict[str, Any]:
        return {"chip": checks.DEFAULT_CHIP, "rake": None, "reserve_chips": 30}

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        filled = checks.check_rules(rules, self.default_rules())
        filled["reserve_chips"] = checks.check_int(
            filled["reserve_chips"], what="reserve_chips", code="bad_rules"
        )
        return filled

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        """Each player's antes plus ``reserve_chips`` chips (GAMES.md "Reserve")."""
        plan = _plan(self, ctx)
        return {player: held for (_, player), held in zip(plan.seats, plan.reserves, strict=True)}

    def start(self, ctx: TableContext) -> tuple[FanTanState, tuple[Settlement, ...]]:
        plan = _plan(self, ctx)
        carried = checks.carried_pot(ctx.carry, MAIN)
        deck = None if ctx.deck is None else checks.check_deck(ctx.deck, FULL_DECK)
        players = tuple(
            Player(player=p, seat=s, dealt=dealt, reserve_left=held - ante)
            for (s, p), dealt, ante, held in zip(
                plan.seats, plan.dealt, plan.antes, plan.reserves, strict=True
            )
        )
        antes = tuple(
            Settlement("ante", wallet(p), pot(MAIN), ante, p)
            for (_, p), ante in zip(plan.seats, plan.antes, strict=True)
        )
        state = FanTanState(
            ante=plan.ante,
            chip=plan.rules["chip"],
            rake=percent_rake(plan.rules),
            deck=deck,
            dealer_seat=plan.dealer_seat,
            players=players,
            pot=carried + sum(plan.antes),
            phase="deal",
        )
        return state, antes

    def apply(
        self, state: FanTanState, action: Mapping[str, Any]
    ) -> tuple[FanTanState, tuple[Settlement, ...]]:
        handler, action = checks.handler_for(action, _HANDLERS, game="Fan Tan")
        return handler(state, action)

    def public_state(self, state: FanTanState) -> dict[str, Any]:
        shown = state.phase == "settled"
        return {
            "game": GAME,
            "phase": state.phase,
            "shoe": "manual" if state.deck is None else "electronic",
            "tracking": state.tracking,
            "dealer_seat": state.dealer_seat,
            "dealer": next(p.player for p in state.players if p.seat == state.dealer_seat),
            "pot": state.pot,
            "ante": state.ante,
            "chip": state.chip,
            "order": list(state.ids),
            "turn": state.players[state.turn].player if state.phase == "play" else None,
            "layout": {suit: _public_span(span) for suit, span in zip(SUITS, state.layout, strict=True)},
            "played": list(state.played),
            "players": [_public_player(p, shown) for p in state.players],
            "winner": state.winner,
        }

    def is_over(self, state: FanTanState) -> bool:
        return state.phase == "settled"

    def legal_actions(self, state: FanTanState) -> list[dict[str, Any]]:
        """Plays the layout takes (from the player's hand when known), the pass, and penalties.

        * Deal: ``{"type": "deal"}``; a manual shoe also offers the keyed deal first
          (``needs: ["hands"]``, ``count`` per player id from the dealer's left: full tracking),
          the plain deal being count-only tracking.
        * A pass is always accepted (an illegal one is charged), so it is always listed. With
          known hands a pass by a player holding a playable card carries Fan Tan's own hint
          ``illegal: true``: it is accepted and charged at once as an illegal pass.
        * With count-only tracking any card the layout takes may be keyed, and
          ``penalty {player}`` is listed for each player whose last pass is unpenalised, with a
          template (``needs: ["pass"]``) for their earlier unpenalised passes. Each penalty has
          ``optional: ["seven", "six_holder", "eight_holder"]``: ``choices`` are the sevens not
          on the layout then and the players. These are the dealer's word, judged at the pass
          (module notes): with a seven, the holders the engine cannot know are required.
        """
        if state.phase == "deal":
            if state.deck is not None:
                return [{"type": "deal"}]
            count = {str(p.player): p.dealt for p in state.players}
            keyed = {"type": "deal", "needs": ["hands"], "choices": {"hands": list(FULL_DECK)}}
            return [keyed | {"count": {"hands": count}}, {"type": "deal"}]
        if state.phase != "play":
            return []
        turn = state.players[state.turn]
        cards = turn.hand if turn.hand is not None else _open_cards(state.layout)
        actions = [
            {"type": "play", "player": turn.player, "card": c} for c in cards if _playable(state.layout, c)
        ]
        passing: dict[str, Any] = {"type": "pass", "player": turn.player}
        actions.append(passing | {"illegal": True} if turn.hand is not None and actions else passing)
        if state.tracking == "count":
            actions += [penalty for p in state.players for penalty in _penalty_actions(state, p)]
        return actions

    def known_hands(self, state: FanTanState) -> dict[int, list[str]]:
        """The hands left with full tracking (electronic or keyed deal); none when count-only."""
        return {p.player: list(p.hand) for p in state.players if p.hand is not None}

    def carry_out(self, state: FanTanState) -> dict[str, Any]:
        """The dealer seat (the next round deals from its left) and any pot left unwon."""
        return {
            "pots": {MAIN: state.pot} if state.pot else {},
            "dealer_seat": state.dealer_seat,
            "players": list(state.ids),
        }


# --- start ---------------------------------------------------------------------------------


def _plan(engine: FanTanEngine, ctx: TableContext) -> _Plan:
    """Both ``reserve`` and ``start`` come through here, so the context is checked once for both."""
    rules, ante, pairs = checks.pot_table(engine, ctx, game="Fan Tan", fewest=FEWEST, most=MOST)
    chip, seats = rules["chip"], dict(pairs)
    dealer_seat = checks.dealer_seat_for(
        seats, ctx.carry, bad_seat="The carried 'dealer_seat' must be a whole number.", redeal=False
    )
    ordered = tuple((s, seats[s]) for s in seats_after(dealer_seat, list(seats)))
    share, extra = divmod(len(FULL_DECK), len(ordered))
    dealt = tuple(share + (1 if i < extra else 0) for i in range(len(ordered)))
    short = share if extra else -1  # with an even deal nobody is short
    antes = tuple(ante + (chip if n == short else 0) for n in dealt)
    reserves = tuple(a + rules["reserve_chips"] * chip for a in antes)
    return _Plan(rules, ante, dealer_seat, ordered, dealt, antes, reserves)


# --- actions -------------------------------------------------------------------------------


def _do_deal(state: FanTanState, action: Mapping[str, Any]) -> tuple[FanTanState, tuple[Settlement, ...]]:
    if state.phase != "deal":
        raise refuse("The cards have already been dealt.")
    if state.deck is not None:
        checks.forbid_cards(action, "hands")
        count = len(state.players)
        hands: dict[int, tuple[str, ...]] | None = {
            p.player: state.deck[i::count] for i, p in enumerate(state.players)
        }
    else:
        raw = action.get("hands")
        hands = None if raw is None else _keyed_hands(state, raw)
    players = tuple(
        replace(p, count=p.dealt, hand=None if hands is None else hands[p.player]) for p in state.players
    )
    tracking = "count" if hands is None else "full"
    return replace(state, players=players, phase="play", tracking=tracking, turn=0), ()


def _keyed_hands(state: FanTanState, raw: object) -> dict[int, tuple[str, ...]]:
    keyed = checks.by_player(raw, state.ids, field="hands")
    hands: dict[int, tuple[str, ...]] = {}
    out: set[str] = set()
    for p in state.players:
        cards = parse_cards(keyed[p.player], field=f"hands.{p.player}")
        if len(cards) != p.dealt:
            raise refuse(f"Player {p.player} is dealt {p.dealt} cards, not {len(cards)}.")
        for card in cards:
            check_keyed_card(card, deck=FULL_DECK, out=frozenset(out))
            out.add(card)
        hands[p.player] = cards
    return hands


def _turn_player(state: FanTanState, action: Mapping[str, Any], doing: str) -> Player:
    checks.check_phase(state.phase, "play", doing)
    player = checks.action_player(action, state.ids)
    checks.check_turn(player, state.players[state.turn].player)
    return state.get(player)


def _do_play(state: FanTanState, action: Mapping[str, Any]) -> tuple[FanTanState, tuple[Settlement, ...]]:
    player = _turn_player(state, action, "play")
    card = parse_card(action.get("card"))
    check_keyed_card(card, deck=FULL_DECK, out=state.played)
    if player.hand is not None and card not in player.hand:
        raise refuse(f"Player {player.player} does not hold {card_label(card)}.")
    if not _playable(state.layout, card):
        raise IllegalAction(
            "bad_placement", f"{card_label(card)} cannot go on the layout now ({_needs(state, card)})."
        )
    hand = None if player.hand is None else tuple(c for c in player.hand if c != card)
    state = state.with_player(replace(player, hand=hand, count=player.count - 1))
    state = replace(
        state,
        layout=_place(state.layout, card),
        played=(*state.played, card),
        played_by=(*state.played_by, player.player),
    )
    if player.count == 1:
        return _settle(state, player.player)
    return _next_turn(state), ()


def _do_pass(state: FanTanState, action: Mapping[str, Any]) -> tuple[FanTanState, tuple[Settlement, ...]]:
    player = _turn_player(state, action, "pass")
    pay = _Payments(state)
    pay.to_pot("pass", player.player, state.chip)
    if player.hand is not None and any(_playable(state.layout, c) for c in player.hand):
        _charge_illegal_pass(state, player, pay)
    state = state.with_player(replace(player, passes_at=(*player.passes_at, len(state.played))))
    return _next_turn(pay.apply(state)), pay.done()


def _charge_illegal_pass(state: FanTanState, passer: Player, pay: _Payments) -> None:
    """Known hands: the three chips, then five to each other holder of a held 7's 6 and 8."""
    pay.to_pot("illegal_pass", passer.player, ILLEGAL_PASS_CHIPS * state.chip)
    assert passer.hand is not None
    for suit in SUITS:
        if "7" + suit not in passer.hand:
            continue
        for rank in ("6", "8"):
            holder = state.holder(rank + suit)
            if holder is not None and holder != passer.player:
                pay.to_player("seven_held", passer.player, holder, SEVEN_PENALTY_CHIPS * state.chip)


def _do_penalty(state: FanTanState, action: Mapping[str, Any]) -> tuple[FanTanState, tuple[Settlement, ...]]:
    """Count-only tracking: the dealer keys an illegal pass they caught (see the module notes).

    The penalty is judged at the pass it punishes (GAMES.md): what was on the layout then,
    and who has played which card since, decide what can be claimed and who is owed.
    """
    checks.check_phase(state.phase, "play", "key a penalty")
    if state.tracking != "count":
        raise refuse("Penalties are keyed only with count-only tracking; known hands are charged at once.")
    passer = state.get(checks.action_player(action, state.ids))
    index = _pass_index(action, passer)
    at_pass = _AtPass(state, passer, index)
    same_pass = _same_pass(action, passer, index)
    seven = None if action.get("seven") is None else _penalised_seven(action, at_pass)
    holders = [] if seven is None else [_holder(action, at_pass, rank, seven) for rank in ("6", "8")]
    pay = _Payments(state)
    if not same_pass:
        pay.to_pot("illegal_pass", passer.player, ILLEGAL_PASS_CHIPS * state.chip)
    for holder in holders:
        if holder is not None and holder != passer.player:
            pay.to_player("seven_held", passer.player, holder, SEVEN_PENALTY_CHIPS * state.chip)
    penalised = passer.penalised if same_pass else (*passer.penalised, index)
    sevens = passer.sevens if seven is None else (*passer.sevens, (index, seven))
    state = state.with_player(replace(passer, penalised=penalised, sevens=sevens))
    return pay.apply(state), pay.done()


@dataclass(frozen=True, slots=True)
class _AtPass:
    """One pass of a player as the penalty judges it: the layout then, and the plays since."""

    state: FanTanState
    passer: Player
    index: int

    @property
    def on_layout(self) -> frozenset[str]:
        return frozenset(self.state.played[: self.passer.passes_at[self.index]])

    def played_since_by(self, card: str) -> int | None:
        """Who played ``card`` after the pass, if anyone: they held it at the pass."""
        at = self.passer.passes_at[self.index]
        since = zip(self.state.played[at:], self.state.played_by[at:], strict=True)
        return next((player for played, player in since if played == card), None)

    def name(self) -> str:
        return f"player {self.passer.player}'s pass {self.index}"


def _pass_index(action: Mapping[str, Any], passer: Player) -> int:
    """The pass punished: ``pass`` (0 for the player's first pass of the round), else their last."""
    if passer.passes == 0:
        raise refuse(f"Player {passer.player} has not passed this round.")
    value = action.get("pass")
    if value is None:
        return passer.passes - 1
    if not checks.is_int(value) or not 0 <= value < passer.passes:
        raise IllegalAction(
            "illegal_action",
            f"'pass' must index one of player {passer.player}'s {passer.passes} pass(es): "
            f"0 to {passer.passes - 1}, not {value!r}.",
            {"pass": [f"0 to {passer.passes - 1}"]},
        )
    return int(value)


def _same_pass(action: Mapping[str, Any], passer: Player, index: int) -> bool:
    same_pass = action.get("same_pass", False)
    if not isinstance(same_pass, bool):
        raise refuse("'same_pass' must be true or false.")
    penalised = index in passer.penalised
    if same_pass and (action.get("seven") is None or not penalised):
        raise refuse("'same_pass' adds a further seven to a pass already penalised: name the seven.")
    if not same_pass and penalised:
        raise refuse(
            f"Player {passer.player}'s pass {index} is already penalised; name another with 'pass', "
            "or add a further seven of it with 'same_pass'."
        )
    return same_pass


def _penalised_seven(action: Mapping[str, Any], at_pass: _AtPass) -> str:
    """A seven the passer held at the pass: not on the layout then, not played since by another."""
    seven = parse_card(action.get("seven"))
    if rank_of(seven) != "7":
        raise refuse(f"'seven' must be a seven, not {card_label(seven)}.")
    if seven in at_pass.on_layout:
        raise refuse(
            f"{card_label(seven)} was already on the layout at {at_pass.name()}: they did not hold it."
        )
    player = at_pass.played_since_by(seven)
    if player is not None and player != at_pass.passer.player:
        raise refuse(
            f"{card_label(seven)} was played by player {player} after {at_pass.name()}, "
            "so the passer did not hold it."
        )
    if (at_pass.index, seven) in at_pass.passer.sevens:
        raise refuse(f"{card_label(seven)} is already penalised for {at_pass.name()}.")
    return seven


def _holder(action: Mapping[str, Any], at_pass: _AtPass, rank: str, seven: str) -> int | None:
    """Who held the seven's 6 (or 8) at the pass: nobody owed when it was on the layout then.

    The engine knows the holder of a card played since the pass; otherwise the dealer must
    name them, the passer included when it was their own card (then nothing is due).
    """
    field = "six_holder" if rank == "6" else "eight_holder"
    card = rank + suit_of(seven)
    named = (
        None if action.get(field) is None else checks.action_player(action, at_pass.state.ids, field=field)
    )
    if card in at_pass.on_layout:
        if named is not None:
            raise refuse(
                f"{card_label(card)} was on the layout at {at_pass.name()}; "
                f"nothing is due: leave out '{field}'."
            )
        return None
    played_by = at_pass.played_since_by(card)
    if played_by is not None:
        if named is not None and named != played_by:
            raise IllegalAction(
                "illegal_action",
                f"{card_label(card)} was played by player {played_by} after {at_pass.name()}, "
                "so they held it, "
                f"not player {named}.",
                {field: [f"player {played_by}"]},
            )
        return played_by
    if named is None:
        raise IllegalAction(
            "illegal_action",
            f"'{field}' is required: name who held the {card_label(card)} at {at_pass.name()} "
            f"(player {at_pass.passer.player} if it was their own).",
            {field: [f"Who held the {card_label(card)}? Required with 'seven' {card_label(seven)}."]},
        )
    return named


def _penalty_actions(state: FanTanState, p: Player) -> list[dict[str, Any]]:
    """Count-only: the penalty of a player's last pass, and a template for their earlier ones."""
    last = p.passes - 1
    actions: list[dict[str, Any]] = []
    if last >= 0 and last not in p.penalised:
        actions.append({"type": "penalty", "player": p.player} | _seven_hints(state, p, [last]))
    earlier = [i for i in range(last) if i not in p.penalised]
    if earlier:
        template = {"type": "penalty", "player": p.player, "needs": ["pass"], "choices": {"pass": earlier}}
        hints = _seven_hints(state, p, earlier)
        choices = template["choices"] | hints.get("choices", {})
        actions.append(template | hints | {"choices": choices})
    return actions


def _seven_hints(state: FanTanState, p: Player, passes: list[int]) -> dict[str, Any]:
    """The optional seven of a penalty: sevens not on the layout at one of ``passes``."""
    sevens = {
        "7" + suit
        for index in passes
        for suit in SUITS
        if "7" + suit not in state.played[: p.passes_at[index]]
    }
    if not sevens:
        return {}
    ids = list(state.ids)
    return {
        "optional": ["seven", "six_holder", "eight_holder"],
        "choices": {
            "seven": sorted(sevens, key=lambda c: SUITS.index(suit_of(c))),
            "six_holder": ids,
            "eight_holder": ids,
        },
    }


def _next_turn(state: FanTanState) -> FanTanState:
    return replace(state, turn=(state.turn + 1) % len(state.players))


_HANDLERS = {"deal": _do_deal, "play": _do_play, "pass": _do_pass, "penalty": _do_penalty}


# --- the layout ----------------------------------------------------------------------------


def _playable(layout: tuple[Span, ...], card: str) -> bool:
    """A 7 always; a 6 or 8 once its 7 is down; then outwards one card at a time."""
    rank = rank_index(rank_of(card))
    span = layout[SUITS.index(suit_of(card))]
    if span is None:
        return rank == SEVEN
    low, high = span
    return rank in (low - 1, high + 1)


def _place(layout: tuple[Span, ...], card: str) -> tuple[Span, ...]:
    rank = rank_index(rank_of(card))
    index = SUITS.index(suit_of(card))
    span = layout[index]
    new: Span = (rank, rank) if span is None else (min(span[0], rank), max(span[1], rank))
    return (*layout[:index], new, *layout[index + 1 :])


def _open_cards(layout: tuple[Span, ...]) -> list[str]:
    """The cards the layout takes now, whoever holds them."""
    return [card for card in FULL_DECK if _playable(layout, card)]


def _needs(state: FanTanState, card: str) -> str:
    span = state.layout[SUITS.index(suit_of(card))]
    if span is None:
        return f"the {card_label('7' + suit_of(card))} must be played first"
    ends = [RANKS[i - 1] + suit_of(card) for i in (span[0] - 1, span[1] + 1) if 1 <= i <= len(RANKS)]
    return "the suit takes " + (" or ".join(map(card_label, ends)) if ends else "no more cards")


# --- money ---------------------------------------------------------------------------------


class _Payments:
    """One action's payments out of reserves (paid in part if need be) and the pot they feed."""

    def __init__(self, state: FanTanState) -> None:
        self.reserves = Reserves({p.player: p.reserve_left for p in state.players})
        self.pot = state.pot

    def to_pot(self, kind: str, player: int, amount: int) -> None:
        self.pot += self.reserves.pay(kind, player, pot(MAIN), amount)

    def to_player(self, kind: str, player: int, payee: int, amount: int) -> None:
        self.reserves.pay(kind, player, wallet(payee), amount)

    def to_winner(self, winner: int, rake: PercentRake | None) -> None:
        """The whole pot to ``winner``, less the house's percent cut."""
        pay_pot(self.reserves, MAIN, self.pot, winner, rake)
        self.pot = 0

    def apply(self, state: FanTanState) -> FanTanState:
        players = tuple(replace(p, reserve_left=self.reserves.left[p.player]) for p in state.players)
        return replace(state, players=players, pot=self.pot)

    def done(self) -> tuple[Settlement, ...]:
        return tuple(self.reserves.settlements)


def _settle(state: FanTanState, winner: int) -> tuple[FanTanState, tuple[Settlement, ...]]:
    """Everyone else pays a chip per card left into the pot; the winner takes the pot."""
    pay = _Payments(state)
    for p in state.players:
        if p.player != winner:
            pay.to_pot("cards_left", p.player, p.count * state.chip)
    pay.to_winner(winner, state.rake)
    return replace(pay.apply(state), phase="settled", winner=winner), pay.done()


# --- public views --------------------------------------------------------------------------


def _public_span(span: Span) -> dict[str, str] | None:
    if span is None:
        return None
    return {"low": RANKS[span[0] - 1], "high": RANKS[span[1] - 1]}


def _public_player(p: Player, shown: bool) -> dict[str, Any]:
    return {
        "player": p.player,
        "seat": p.seat,
        "cards": p.count,
        "reserve_left": p.reserve_left,
        "passes": p.passes,
        "penalised_passes": list(p.penalised),
        "hand": list(p.hand) if shown and p.hand is not None else None,
    }


ENGINE: Engine[FanTanState] = FanTanEngine()
