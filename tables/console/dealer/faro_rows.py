"""The Faro screen's repeated items written in Python: the players to bet for, the thirteen cards,
the spots between them, every chip on the layout, even/odd/high with their chips, the chips to bet
with, every bet's row, the casekeeper's wires, the card picker's 52 cards and the recent turns.

Everything else of the screen is its template (``console/games/faro.html``), which calls these
as filters (``console_tags``) where it would loop. A dealing tap's answer redraws all of them,
and there the template engine costs about ten times what the same markup costs written here (a
variable looked up and escaped in a template loop against a string format): ``bench/run-markup``
renders each one from its template twin (``bench/markup/``) and from here, checks that both
write the same bytes, and prints both times. Every text is escaped (``html.escape``, as Django's
``escape`` does); numbers are written as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars
from tables.console.dealer.cards import shown_card, shown_suit


def _joined(parts: Iterable[str]) -> SafeString:
    return mark_safe("\n".join(parts))  # every part below escapes what it writes


def _on(flag: Any, text: str) -> str:
    return text if flag else ""


def _dollars(cents: int, *, short: bool = False) -> str:
    """Cents as escaped dollars; ``short``: a chip's label ($25, $2.50)."""
    return escape(format_dollars(cents, whole_if_even=short))


def _colours(item: Mapping[str, Any]) -> str:
    """A chip's (or a player's) colours: the seat's, with a label colour that reads on it."""
    return f"--chip: {item['colour'].background}; --chip-text: {item['colour'].text}"


_OOB = ' hx-swap-oob="true"'  # a part a tap's answer sends alone, out of band (``answers``)


def player_picks(seats: Sequence[Mapping[str, Any]], chosen: Any) -> SafeString:
    """The bet form's players (``screen.seat_rows``): a radio each, with the seat (its number in the
    player's chip colour) and what the player has to play; ``chosen``: the player a refused bet
    named. Every seat is a button in view (console.css ``.player-picks``)."""

    def pick(row: Mapping[str, Any]) -> str:
        pk, name, seat = row["player"].pk, escape(row["name"]), row["seat"].number
        checked = _on(str(chosen) == str(pk), " checked")
        has = pick_available(pk, row["balance"].available)
        return (
            f'<label class="pick" style="{_colours(row)}"> <input type="radio" name="player" value="{pk}"'
            f' data-name="{name}"{checked}> <span class="dot" aria-hidden="true">{seat}</span> '
            f'<span class="who"><span class="name">{name}</span><span class="sub">'
            f'<span class="visually-hidden">seat {seat} · </span>{has}'
            "</span></span> </label>"
        )

    return _joined(pick(row) for row in seats)


def pick_available(player: int, cents: int, *, oob: bool = False) -> SafeString:
    """What a player has to play, in their pick (a bet's answer sends it alone, out of band)."""
    return mark_safe(f'<span id="pick-available-{int(player)}"{_on(oob, _OOB)}>{_dollars(cents)}</span>')


def targets(boxes: Sequence[Mapping[str, Any]]) -> SafeString:
    """Even, odd and high (``faro.target_boxes``), each with its bets as mini chips."""

    def box(b: Mapping[str, Any]) -> str:
        label, target = escape(b["label"]), escape(b["target"])
        return (
            f'<label class="target"> <input type="radio" name="target" value="{target}" data-label="{label}"'
            f"{_on(b['selected'], ' checked')}> <span>{label}</span> {target_minis(b)} </label>"
        )

    return _joined(box(b) for b in boxes)


def target_minis(box: Mapping[str, Any], *, oob: bool = False) -> SafeString:
    """A target box's bets as mini chips, in the span a bet's answer replaces."""
    minis = "".join(
        f'<span class="mini-chip" style="{_colours(bet)}" title="{escape(bet["name"])}">'
        f"{_dollars(bet['amount'], short=True)}</span>"
        for bet in box["bets"]
    )
    return mark_safe(f'<span class="mini" id="mini-{escape(box["target"])}"{_on(oob, _OOB)}>{minis}</span>')


def amount_picks(amounts: Sequence[int], chosen: Any) -> SafeString:
    """The chips to bet with (``faro.chip_amounts``); ``chosen``: the one a refused bet named."""

    def pick(value: int) -> str:
        checked = _on(str(chosen) == str(value), "checked")
        return (
            f'<label class="pick"><input type="radio" name="amount" value="{value}"'
            f' data-label="{_dollars(value)}" {checked}>{_dollars(value, short=True)}</label>'
        )

    return _joined(pick(value) for value in amounts)


def _card_chip(code: Any) -> str:
    """A card face up in a line of text (the ``card_class`` and ``card`` filters' look)."""
    return f'<span class="cardchip {escape(shown_suit(code))}">{escape(shown_card(code))}</span>'


def recent_turns(turns: Sequence[Mapping[str, Any]]) -> SafeString:
    """The last turns dealt, newest first: the banker's card, the player's, a split, the hock."""

    def turn(t: Mapping[str, Any]) -> str:
        split = " · <strong>split</strong>" if t.get("split") else ""
        hock = f" · hock {_card_chip(t['hock'])}" if t.get("hock") else ""
        return (
            f"<li>Turn {escape(str(t.get('number')))}: {_card_chip(t.get('banker'))} loses, "
            f"{_card_chip(t.get('player'))} wins{split}{hock}</li>"
        )

    return _joined(turn(t) for t in turns)


_DEAD = '<span class="left-word dead-word">dead</span>'  # hidden when the card is too narrow for it


def cells(layout: Sequence[Mapping[str, Any]]) -> SafeString:
    """The thirteen cards (``faro.layout_cells``): a checkbox each, with the cards left. The
    bottom row's rank and count are along its bottom edge, the chips' band being between the rows."""

    def cell(c: Mapping[str, Any]) -> str:
        rank, dead = escape(str(c["rank"])), c["dead"]
        place = (
            f' style="grid-column: {c["grid_column"]}; grid-row: {c["grid_row"]}"' if c["grid_row"] else ""
        )
        left = _DEAD if dead else f'{c["left"]}<span class="left-word"> left</span>'
        where = f"{_on(rank == '7', ' seven')}{_on(c['grid_row'] == 2, ' bottom')}"
        return (
            f'<label class="rank{where}{_on(dead, " dead")}" data-rank="{rank}"{place}> '
            f'<input type="checkbox" name="ranks" value="{rank}"{_on(dead, " disabled")}'
            f'{_on(c["selected"], " checked")} aria-label="{rank}, {c["left"]} left{_on(dead, ", dead")}"> '
            f'<span class="face" aria-hidden="true"><span class="rank-label">{rank}</span>'
            f'<span class="left">{left}</span></span> </label>'
        )

    return _joined(cell(c) for c in layout)


def spots(made: Sequence[Mapping[str, Any]]) -> SafeString:
    """The taps between cards that place one stack on them (``faro.spots``)."""

    def spot(s: Mapping[str, Any]) -> str:
        ranks, label = escape(" ".join(s["ranks"])), escape(s["label"])
        return (
            f'<button type="button" class="spot" data-spot="{ranks}" style="left: {s["x"]}%; '
            f'top: {s["y"]}%" aria-label="One stack on {label}"></button>'
        )

    return _joined(spot(s) for s in made)


def chips(placed: Sequence[Mapping[str, Any]]) -> SafeString:
    """Chips on the layout (``faro.layout_chips``), one span each, stacked by ``--i``, in their
    player's colours (``faro.colour_for_seat``)."""

    def chip(c: Mapping[str, Any]) -> str:
        copper, place = c.get("coppered"), f"left: {c['x']}%; top: {c['y']}%; --i: {c['stack']}"
        name, where, bet_id = escape(c["name"]), escape(c["placement"]), escape(str(c["id"]))
        return (
            f'<span class="chip{_on(copper, " coppered")}" data-testid="chip" data-bet="{bet_id}" '
            f'style="{place}; {_colours(c)}" title="{name}: {_dollars(c["amount"])} on {where}'
            f'{_on(copper, " (coppered)")}">{_dollars(c["amount"], short=True)}</span>'
        )

    return _joined(chip(c) for c in placed)


_COPPERED = ' <span class="sub">coppered</span>'


def bet_rows(bets: Sequence[Mapping[str, Any]]) -> SafeString:
    """The bets table's rows (``faro.bet_row``): the player with the place under the name, so a row
    fits the side column with its take-down button whole. Each button submits the table's one
    take-down form (``form="take-down"``) with its bet, so a bet's answer adds a row alone."""

    def row(bet: Mapping[str, Any]) -> str:
        name, where, amount = escape(bet["name"]), escape(bet["placement"]), _dollars(bet["amount"])
        return (
            f'<tr data-testid="bet-row">\n<td><div class="bet-who"><span class="dot" '
            f'style="--chip: {bet["colour"].background}" aria-hidden="true"></span> '
            f'<span>{name}<span class="sub">{where}</span></span></div></td>\n'
            f"<td>{amount}{_on(bet.get('coppered'), _COPPERED)}</td>\n"
            f'<td><button type="submit" form="take-down" name="bet" value="{escape(str(bet["id"]))}" '
            f'class="btn" aria-label="Take down {name}\'s {amount} on {where}">Take down</button></td>\n</tr>'
        )

    return _joined(row(bet) for bet in bets)


def keeper(rows: Sequence[Mapping[str, Any]]) -> SafeString:
    """The casekeeper (``faro.casekeeper_rows``): a wire per rank, its beads still in the shoe,
    then a bead per card gone, marked with how it went."""

    def gone(g: Mapping[str, Any]) -> str:
        kind, how = escape(g["kind"]), escape(g["how"])
        return (
            f'<span class="bead {kind}" title="{escape(g["label"])} {how}" '
            f'aria-hidden="true">{escape(g["mark"])}</span>'
        )

    def wire(row: Mapping[str, Any]) -> str:
        left, rank = row["left"], escape(str(row["rank"]))
        said = "".join(f", {escape(g['name'])} {escape(g['how'])}" for g in row["gone"])
        beads = '<span class="bead" aria-hidden="true"></span>' * len(row["remaining"])
        out = "".join(gone(g) for g in row["gone"])
        return (
            f'<div class="wire{_on(left == 0, " dead")}" aria-label="{rank}: {left} left{said}" role="img"> '
            f'<span class="wrank">{rank}</span> <span class="beads">{beads}<span class="gap"></span>'
            f'{out}</span> <span class="wleft">{left}</span> </div>'
        )

    return _joined(wire(row) for row in rows)


_OUT = ' disabled aria-disabled="true"'


def picker(rows: Sequence[Mapping[str, Any]]) -> SafeString:
    """The manual shoe's 52 cards by suit (``cards.picker_rows``); a card out of the shoe is greyed
    and cannot be tapped."""

    def card(c: Mapping[str, Any]) -> str:
        out = c["out"]
        return (
            f'<button type="button" class="pcard {c["suit_class"]}{_on(out, " out")}" '
            f'data-card="{escape(c["code"])}"{_on(out, _OUT)} aria-label="{escape(c["name"])}'
            f'{_on(out, ", already out")}">{escape(c["label"])}</button>'
        )

    def row(r: Mapping[str, Any]) -> str:
        return f'<div class="picker-row"> {" ".join(card(c) for c in r["cards"])} </div>'

    return _joined(row(r) for r in rows)
