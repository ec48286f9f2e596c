"""The pot games' tables drawn as the dealer sees them, from the public state and known hands.

Each function turns a round's public state (and, for the dealer's eyes, ``known_hands``) into
plain rows a template lays out as cards: Fan Tan's suit rows, Newmarket's pay cards and run,
Tonk's spreads and piles, Farmer's hands. No game rule is decided here; where the drawing
needs one (Newmarket's run in play, the card the shoe gave out) the engine says it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tables.console.dealer.cards import RANK_NAMES, SUIT_NAMES
from tables.console.words import player_words
from tables.games import newmarket
from tables.games.cards import RANKS, SUITS
from tables.games.registry import engine_for
from tables.models import LIVE_ROUND_STATUSES, Round
from tables.round_state import engine_state

SEVEN = RANKS.index("7")
DRAWN_GAMES = frozenset({"faro", "fan_tan", "newmarket", "tonk", "farmer"})  # each with its own template


def template_for(game: str) -> str:
    """The screen a game's live round is drawn with; the card-room games use the generic one."""
    return f"console/games/{game if game in DRAWN_GAMES else 'generic'}.html"


def fan_tan_rows(public: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Four suit rows, A to K: the cards on the layout face up, a space where none is yet, and the
    row in words ("Spades: 3 to king").

    A row grows both ways from its 7, so what is down is always one unbroken stretch.
    """
    rows = []
    for suit in SUITS:
        span = (public.get("layout") or {}).get(suit)
        low, high = (RANKS.index(span["low"]), RANKS.index(span["high"])) if span else (SEVEN, SEVEN - 1)
        slots = [
            {"code": rank + suit, "down": low <= index <= high, "seven": index == SEVEN}
            for index, rank in enumerate(RANKS)
        ]
        count = max(0, high - low + 1)
        rows.append({"suit": suit, "slots": slots, "count": count, "words": _suit_row_words(suit, low, high)})
    return rows


def _suit_row_words(suit: str, low: int, high: int) -> str:
    """One suit of the layout as a person says it: "Hearts: ace to king", "Clubs: the 7 alone"."""
    name = SUIT_NAMES[suit].capitalize()
    if high < low:
        return f"{name}: no 7 yet"
    if high == low:
        return f"{name}: the 7 alone"
    return f"{name}: {_rank_words(RANKS[low])} to {_rank_words(RANKS[high])}"


def _rank_words(rank: str) -> str:
    return RANK_NAMES.get(rank, rank)


def newmarket_board(public: Mapping[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    """The four pay cards with their pots, and the run now in play with who played each card."""
    pots = public.get("pots") or {}
    pays = [{"code": code, "amount": pots[code]} for code in newmarket.PAY_CARDS if code in pots]
    run = [
        {"code": entry["card"], "by": player_words(names, entry.get("player"))}
        for entry in newmarket.run_in_play(public.get("played") or [])
    ]
    return {"pays": pays, "run": run}


def tonk_spreads(public: Mapping[str, Any], names: Mapping[int, str]) -> list[dict[str, Any]]:
    """Each player's spreads on the table, players in turn order (a player with none shows none)."""
    spreads = public.get("spreads") or []
    rows = []
    for player in public.get("players") or []:
        own = [s["cards"] for s in spreads if s.get("owner") == player]
        counts = public.get("hand_counts") or {}
        rows.append(
            {
                "player": player,
                "name": player_words(names, player),
                "spreads": own,
                "cards": counts.get(str(player)),
                "turn": player == public.get("turn"),
            }
        )
    return rows


def farmer_hands(
    public: Mapping[str, Any], hands: Mapping[int, Sequence[str]], names: Mapping[int, str]
) -> list[dict[str, Any]]:
    """Each player's hand: the first card face down, every hit face up as it is dealt.

    At the showdown the public state shows every hand, the face-down card too.
    """
    rows = []
    for row in public.get("players") or []:
        player = row["player"]
        shown = row.get("hand")
        known = list(shown or hands.get(player) or [])
        rows.append(
            {
                "player": player,
                "name": player_words(names, player),
                "hole": known[0] if shown and known else None,
                "hidden": 1 if row.get("cards") and not shown else 0,
                "hits": known[1:],
                "total": row.get("total"),
                "done": row.get("done"),
                "farmer": player == public.get("farmer"),
                "turn": player == public.get("turn"),
            }
        )
    return rows


def last_from_shoe(round_: Round, names: Mapping[int, str]) -> list[dict[str, str]]:
    """The cards the electronic shoe gave out last and to whom: the dealer hands them out now."""
    engine = engine_for(round_.game)
    if round_.shoe != "electronic":
        return []
    dealt = engine.last_from_shoe(engine_state(round_))
    return [{"code": card, "to": player_words(names, player)} for player, card in dealt]


def drawing_context(
    round_: Round, names: Mapping[int, str], hands: Mapping[int, Sequence[str]]
) -> dict[str, Any]:
    """What a pot game's template draws: its table, the cards to hand out, whether to list hands."""
    public, game = round_.state, round_.game
    drawing: dict[str, Any] = {}
    if game == "fan_tan":
        drawing["rows"] = fan_tan_rows(public)
    elif game == "newmarket":
        drawing = newmarket_board(public, names)
    elif game == "tonk":
        drawing["players"] = tonk_spreads(public, names)
    elif game == "farmer":
        drawing["hands"] = farmer_hands(public, hands, names)
    live = round_.status in LIVE_ROUND_STATUSES
    return {
        "drawing": drawing,
        "dealt": last_from_shoe(round_, names) if live else [],
        "show_hands": game != "farmer",  # Farmer's drawing is its hands
    }
