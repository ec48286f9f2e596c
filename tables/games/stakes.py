"""The card room's result-keyed games (GAMES.md "Other games of the card room").

Old Maid, Gops, Fifty-One and the rest are played with no rules engine: the dealer keys
one ``result`` and the round settles stakes at once, wallet to wallet out of each
player's reserve. ``rules.variant`` names the game and picks how the result settles.

Decisions where GAMES.md is silent:

* ``rules.point_value`` is cents per point, as GAMES.md writes it: a player owes
  ``(top - own) * point_value`` cents. Left unset (null), the default "1 chip per 100
  points, rounded down to the cent" applies: ``(top - own) * chip // 100``. The state
  keeps one exact integer rate, cents per 100 points, for both cases.
* When several players share the winning score, each payer's stake (or points debt) is
  collected first, and the *total* is split evenly among the winners, the odd cent one at a
  time from the dealer's left (``payments.share_among``). Shares differ by at most
  one cent and every cent collected is paid out.
* ``loser_pays``: the loser pays the others one at a time from the dealer's left; if the
  reserve runs dry the later players get part or nothing ("paid in part").
* A percent rake is refused: there is no pot to take it from (a time rake is allowed and
  charged by the Django side).
* ``stop`` is only accepted for Fifty-One settled by high score. If the Stop caller is
  among the tied top scores they drop out of the tie (they then pay, like any loser).
* At least two players; no upper bound (GAMES.md gives none).
* The reserve is ``required_reserve``: ``reserve_chips`` chips raised to the most the
  settle can ask of one player, so stakes are always paid in full; only a ``points`` debt
  can exceed it and be paid in part.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from tables.games import input_checks as checks
from tables.games.base import Engine, NoHandsToShow, Settlement, TableContext, seats_from_left_of, wallet
from tables.games.errors import IllegalAction, refuse
from tables.games.payments import Reserves, share_among

FIRST_OUT = "first_out"
LOSER_PAYS = "loser_pays"
HIGH_SCORE = "high_score"
POINTS = "points"
SETTLE_MODES = (FIRST_OUT, LOSER_PAYS, HIGH_SCORE, POINTS)

# variant key -> (display name, default settle mode)
VARIANTS: dict[str, tuple[str, str]] = {
    "old_maid": ("Old Maid", LOSER_PAYS),
    "gops": ("Gops", HIGH_SCORE),
    "concentration": ("Concentration", HIGH_SCORE),
    "page_one": ("Page One", FIRST_OUT),
    "fifty_one": ("Fifty-One", HIGH_SCORE),
    "piquet": ("Piquet", POINTS),
    "jack_change_it": ("Jack Change It", FIRST_OUT),
    "500_rummy": ("500 Rummy", POINTS),
    "trex": ("Trex", POINTS),
    "crazy_eights": ("Crazy Eights", FIRST_OUT),
    "egyptian_ratscrew": ("Egyptian Ratscrew", FIRST_OUT),
}
DEFAULT_VARIANT = "page_one"
# The field each mode's result needs; the others are refused.
RESULT_FIELD = {FIRST_OUT: "winner", LOSER_PAYS: "loser", HIGH_SCORE: "scores", POINTS: "scores"}


@dataclass(frozen=True, slots=True)
class StakesState:
    variant: str
    settle: str
    stake: int
    cents_per_100_points: int
    dealer_seat: int
    players: tuple[int, ...]  # from the dealer's left; the dealer last
    reserve_left: tuple[int, ...]  # aligned with players
    result: tuple[tuple[str, Any], ...] | None = None  # the keyed result, canonical
    winners: tuple[int, ...] = ()


def variant_key(value: object) -> str:
    """Accept the key or the display name ("Fifty-One", "500 Rummy")."""
    if not isinstance(value, str):
        raise IllegalAction("bad_rules", "rules.variant must be a string naming the game.")
    key = value.strip().lower().replace("-", "_").replace(" ", "_")
    if key not in VARIANTS:
        names = ", ".join(name for name, _ in VARIANTS.values())
        raise IllegalAction("bad_rules", f"Unknown game '{value}'. Known: {names}.")
    return key


Step = tuple[StakesState, tuple[Settlement, ...]]


def settle_mode(rules: Mapping[str, Any]) -> str:
    """The table's ``settle``, or its variant's own mode when the table set none."""
    return str(rules["settle"] or VARIANTS[rules["variant"]][1])


def required_reserve(rules: Mapping[str, Any], *, stake: int, players: int) -> int:
    """Cents each player's wallet must cover to be dealt in (GAMES.md "Reserves").

    ``reserve_chips`` chips, but never less than the most a player can owe under the
    table's settle: one stake for ``first_out`` and ``high_score``, players - 1 stakes for
    the ``loser_pays`` loser. A ``points`` debt has no bound but the reserve: it is paid in
    part. ``reserve`` holds this for every player, so a reserve never silently shortens a
    stake (an ante of 5,000 against the default 30 chips used to pay 3,000).
    """
    chips = int(rules["reserve_chips"]) * int(rules["chip"])
    owed = {FIRST_OUT: stake, HIGH_SCORE: stake, LOSER_PAYS: (players - 1) * stake, POINTS: 0}
    return max(chips, owed[settle_mode(rules)])


class StakesEngine(NoHandsToShow):
    """One keyed result per round (no hands: the dealer keys only the result); settles at once."""

    game = "stakes"

    def default_rules(self) -> dict[str, Any]:
        return {
            "variant": DEFAULT_VARIANT,
            "settle": None,  # None: the variant's own mode
            "point_value": None,  # None: one chip per 100 points
            "reserve_chips": 30,
            "chip": checks.DEFAULT_CHIP,
            "rake": None,
        }

    def validate_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        merged = checks.check_rule_keys(rules, self.default_rules())
        merged["variant"] = variant_key(merged["variant"])
        if merged["settle"] is not None and merged["settle"] not in SETTLE_MODES:
            raise IllegalAction("bad_rules", f"rules.settle must be one of {', '.join(SETTLE_MODES)}.")
        merged["chip"] = checks.rules_int(merged, "chip", low=1)
        merged["reserve_chips"] = checks.rules_int(merged, "reserve_chips", low=1, high=100_000)
        if merged["point_value"] is not None:
            merged["point_value"] = checks.rules_int(merged, "point_value", low=1, high=10**7)
        merged["rake"] = checks.check_time_rake(merged["rake"])
        return merged

    def reserve(self, ctx: TableContext) -> dict[int, int]:
        """``reserve_chips`` chips, raised to the most a player can owe under the table's settle."""
        rules, stake = checks.stakes_table(self, ctx, most=None)
        hold = required_reserve(rules, stake=stake, players=len(ctx.seats))
        return {player: hold for player in ctx.seats.values()}

    def start(self, ctx: TableContext) -> Step:
        reserves = self.reserve(ctx)
        rules, stake = checks.stakes_table(self, ctx, most=None)
        dealer_seat = checks.dealer_seat_for(ctx.seats, ctx.carry)
        players = tuple(seats_from_left_of(dealer_seat, ctx.seats))
        state = StakesState(
            variant=rules["variant"],
            settle=settle_mode(rules),
            stake=stake,
            cents_per_100_points=rules["chip"]
            if rules["point_value"] is None
            else rules["point_value"] * 100,
            dealer_seat=dealer_seat,
            players=players,
            reserve_left=tuple(reserves[p] for p in players),
        )
        return state, ()

    def apply(self, state: StakesState, action: Mapping[str, Any]) -> Step:
        kind = checks.action_type(action)
        if kind != "result":
            raise refuse(f"A stakes round takes only 'result', not {kind!r}.")
        if state.result is not None:
            raise refuse("This round already has its result; it is settled.")
        self._refuse_other_fields(state, action)
        handler = {
            FIRST_OUT: self._first_out,
            LOSER_PAYS: self._loser_pays,
            HIGH_SCORE: self._by_scores,
            POINTS: self._by_scores,
        }[state.settle]
        return handler(state, action)

    def _refuse_other_fields(self, state: StakesState, action: Mapping[str, Any]) -> None:
        """A result field meant for another mode means the dealer picked the wrong game."""
        wanted = RESULT_FIELD[state.settle]
        for field in ("winner", "loser", "scores"):
            if field != wanted and checks.present(action, field):
                raise refuse(
                    f"{VARIANTS[state.variant][0]} settles by {state.settle}: key '{wanted}', not '{field}'."
                )
        if not checks.present(action, wanted):
            raise refuse(f"The result needs '{wanted}'.")
        if checks.present(action, "stop") and (state.variant != "fifty_one" or state.settle != HIGH_SCORE):
            raise refuse("'stop' applies only to Fifty-One settled by high score.")

    def _finish(
        self, state: StakesState, reserves: Reserves, result: dict[str, Any], winners: tuple[int, ...]
    ) -> Step:
        new_state = replace(
            state,
            reserve_left=reserves.remaining(state.players),
            result=tuple(sorted(result.items())),
            winners=winners,
        )
        return new_state, tuple(reserves.settlements)

    def _reserves(self, state: StakesState) -> Reserves:
        return Reserves(zip(state.players, state.reserve_left, strict=True))

    def _first_out(self, state: StakesState, action: Mapping[str, Any]) -> Step:
        winner = checks.player_field(action, "winner", state.players)
        reserves = self._reserves(state)
        for payer in state.players:
            if payer != winner:
                reserves.pay("win", payer, wallet(winner), state.stake)
        return self._finish(state, reserves, {"winner": winner}, (winner,))

    def _loser_pays(self, state: StakesState, action: Mapping[str, Any]) -> Step:
        loser = checks.player_field(action, "loser", state.players)
        reserves = self._reserves(state)
        others = tuple(p for p in state.players if p != loser)
        for payee in others:
            reserves.pay("win", loser, wallet(payee), state.stake)
        return self._finish(state, reserves, {"loser": loser}, others)

    def _top_scorers(self, state: StakesState, scores: dict[int, int], stop: int | None) -> tuple[int, ...]:
        """Highest score; Fifty-One: a tie with the Stop caller goes to the other player(s)."""
        top = max(scores.values())
        tied = tuple(p for p in state.players if scores[p] == top)
        if stop is not None and stop in tied and len(tied) > 1:
            tied = tuple(p for p in tied if p != stop)
        return tied

    def _by_scores(self, state: StakesState, action: Mapping[str, Any]) -> Step:
        """The top scores win: each other player pays a stake (``high_score``) or the points they
        are behind (``points``; no ``stop`` there, ``_refuse_other_fields`` saw to it)."""
        scores = checks.int_map_for_all(action["scores"], state.players, "scores")
        stop = checks.player_field(action, "stop", state.players) if checks.present(action, "stop") else None
        winners = self._top_scorers(state, scores, stop)
        top = scores[winners[0]]
        reserves, rate = self._reserves(state), state.cents_per_100_points
        dues = [
            (p, (top - scores[p]) * rate // 100 if state.settle == POINTS else state.stake)
            for p in state.players
            if p not in winners
        ]
        share_among(reserves, dues, winners, "win")
        result: dict[str, Any] = {"scores": tuple(sorted(scores.items()))}
        if stop is not None:
            result["stop"] = stop
        return self._finish(state, reserves, result, winners)

    def public_state(self, state: StakesState) -> dict[str, Any]:
        name = VARIANTS[state.variant][0]
        return {
            "game": self.game,
            "variant": state.variant,
            "variant_name": name,
            "settle": state.settle,
            "stake": state.stake,
            "cents_per_100_points": state.cents_per_100_points,
            "dealer_seat": state.dealer_seat,
            "dealer": state.players[-1],
            "players": list(state.players),
            "reserve_left": {str(p): left for p, left in zip(state.players, state.reserve_left, strict=True)},
            "result": _result_json(state.result),
            "winners": list(state.winners),
            "over": self.is_over(state),
        }

    def legal_actions(self, state: StakesState) -> list[dict[str, Any]]:
        """One ``result`` template until the result is keyed, then nothing.

        ``needs`` names the one field the settle mode takes (``winner``, ``loser`` or
        ``scores``) and ``choices`` lists the players dealt in: the winner or loser is one of
        them, ``scores`` gives every one of them a whole number. Fifty-One settled by high
        score also offers ``optional: ["stop"]``, the player who called Stop.
        """
        if state.result is not None:
            return []
        wanted = RESULT_FIELD[state.settle]
        players = list(state.players)
        action: dict[str, Any] = {"type": "result", "needs": [wanted], "choices": {wanted: players}}
        if state.variant == "fifty_one" and state.settle == HIGH_SCORE:
            action["optional"] = ["stop"]
            action["choices"]["stop"] = list(players)
        return [action]

    def is_over(self, state: StakesState) -> bool:
        return state.result is not None

    def carry_out(self, state: StakesState) -> dict[str, Any]:
        return {"dealer_seat": state.dealer_seat}


def _result_json(result: tuple[tuple[str, Any], ...] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    out: dict[str, Any] = {}
    for key, value in result:
        out[key] = {str(p): n for p, n in value} if key == "scores" else value
    return out


ENGINE: Engine[StakesState] = StakesEngine()
