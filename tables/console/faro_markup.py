"""The Faro screen's repeated markup, written in Python.

A console tap (but a bet, answered in part by ``faro_partial``) answers with the whole screen, and
the template engine's loops over the layout (13 cards, the spots between them, the chips, the
casekeeper's 52 beads, the bets, the card picker) were most of a tap's CPU (issue 22): about a
microsecond a variable in Python against tens in a template loop. Each function here writes the
markup its template loop wrote, from the drawing data of ``tables.console.faro``; every text is
escaped (``html.escape``, as Django's ``escape`` does), numbers are written as they are. A bet's
partial answer uses the same functions for its parts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars
from tables.console.cards import card_label, card_name, suit_class

_OOB = ' hx-swap-oob="true"'  # a part a Faro bet tap's answer sends alone (``faro_partial``)


def _joined(parts: Iterable[str]) -> SafeString:
    return mark_safe("\n".join(parts))  # every part below escapes what it writes


def _on(flag: Any, text: str) -> str:
    return text if flag else ""


def cells(layout: Sequence[Mapping[str, Any]]) -> SafeString:
    """The thirteen cards: a checkbox each, with the cards left (``faro.layout_cells``)."""

    def cell(c: Mapping[str, Any]) -> str:
        rank, dead = escape(str(c["rank"])), c["dead"]
        place = (
            f' style="grid-column: {c["grid_column"]}; grid-row: {c["grid_row"]}"' if c["grid_row"] else ""
        )
        left = "dead" if dead else f'{c["left"]}<span class="left-word"> left</span>'
        return (
            f'<label class="rank{_on(rank == "7", " seven")}{_on(dead, " dead")}" data-rank="{rank}"{place}> '
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


def _dollars(cents: int, *, short: bool = False) -> str:
    """Cents as escaped dollars; ``short``: a chip's label ($25, $2.50)."""
    return escape(format_dollars(cents, whole_if_even=short))


def _colours(bet: Mapping[str, Any]) -> str:
    """A chip's colours: its seat's, with a label colour that reads on it (``faro.colour_for_seat``)."""
    return f"--chip: {bet['colour'].background}; --chip-text: {bet['colour'].text}"


def chips(placed: Sequence[Mapping[str, Any]]) -> SafeString:
    """Every chip on the layout (``faro.layout_chips``), one span each, stacked by ``--i``."""

    def chip(c: Mapping[str, Any]) -> str:
        copper, place = c.get("coppered"), f"left: {c['x']}%; top: {c['y']}%; --i: {c['stack']}"
        name, where, bet_id = escape(c["name"]), escape(c["placement"]), escape(str(c["id"]))
        return (
            f'<span class="chip{_on(copper, " coppered")}" data-testid="chip" data-bet="{bet_id}" '
            f'style="{place}; {_colours(c)}" title="{name}: {_dollars(c["amount"])} on {where}'
            f'{_on(copper, " (coppered)")}">{_dollars(c["amount"], short=True)}</span>'
        )

    return _joined(chip(c) for c in placed)


def target_minis(target: str, bets: Sequence[Mapping[str, Any]], *, oob: bool = False) -> str:
    """A target box's bets as mini chips, in the span a bet tap's answer replaces (``faro_partial``)."""

    def mini(bet: Mapping[str, Any]) -> str:
        return (
            f'<span class="mini-chip" style="{_colours(bet)}" '
            f'title="{escape(bet["name"])}">{_dollars(bet["amount"], short=True)}</span>'
        )

    minis = "".join(mini(bet) for bet in bets)
    return f'<span class="mini" id="mini-{escape(target)}"{_on(oob, _OOB)}>{minis}</span>'


def targets(boxes: Sequence[Mapping[str, Any]], chosen: Any) -> SafeString:
    """Even, odd and high, each with its bets as mini chips (``faro.target_boxes``)."""

    def box(b: Mapping[str, Any]) -> str:
        label, target = escape(b["label"]), escape(b["target"])
        body = f"<span>{label}</span> {target_minis(b['target'], b['bets'])}"
        return _radio(
            'class="target"', "target", target, f'data-label="{label}"', chosen == b["target"], body
        )

    return _joined(box(b) for b in boxes)


def player_picks(seats: Sequence[Mapping[str, Any]], chosen: Any) -> SafeString:
    """The bet form's players: a radio each, with the seat and what the player has to play."""

    def pick(row: Mapping[str, Any]) -> str:
        pk, name = row["player"].pk, escape(row["name"])
        has = f"seat {row['seat'].number} · {pick_available(pk, row['balance'].available)}"
        body = (
            f'<span class="dot" aria-hidden="true"></span> <span>{name}<span class="sub">{has}</span></span>'
        )
        look = f'class="pick" style="--chip: {row["colour"].background}"'
        return _radio(look, "player", pk, f'data-name="{name}"', chosen == str(pk), body)

    return _joined(pick(row) for row in seats)


def pick_available(player: int, cents: int, *, oob: bool = False) -> str:
    """What a player has to play, as the bet form's pick shows it (a bet tap's answer replaces it)."""
    return f'<span id="pick-available-{int(player)}"{_on(oob, _OOB)}>{_dollars(cents)}</span>'


def _radio(label: str, name: str, value: object, data: str, checked: bool, body: str) -> str:
    """One choice of the bet form, its radio inside its label: ``label`` the label's attributes,
    ``data`` the radio's data attribute (the words console.js puts on the confirm button)."""
    return (
        f'<label {label}> <input type="radio" name="{name}" value="{value}" {data}'
        f"{_on(checked, ' checked')}> {body} </label>"
    )


_COPPERED = ' <span class="sub">coppered</span>'


def bet_rows(bets: Sequence[Mapping[str, Any]]) -> SafeString:
    """The bets table's rows. Each take-down button submits the one take-down form of the table
    (``form="take-down"``, in ``games/_faro_bets.html``) with its bet: the round's version and the
    one-time token are written once, so a bet tap's answer adds a row without touching the others."""

    def row(bet: Mapping[str, Any]) -> str:
        name, where, amount = escape(bet["name"]), escape(bet["placement"]), _dollars(bet["amount"])
        return (
            f'<tr data-testid="bet-row">\n<td><span class="dot" style="--chip: {bet["colour"].background}" '
            f'aria-hidden="true"></span> {name}</td>\n<td>{where}</td>\n'
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
            f'<span class="bead {kind}" title="{escape(card_label(g["card"]))} {how}" '
            f'aria-hidden="true">{escape(g["mark"])}</span>'
        )

    def wire(row: Mapping[str, Any]) -> str:
        left, rank = row["left"], escape(str(row["rank"]))
        said = "".join(f", {escape(card_name(g['card']))} {escape(g['how'])}" for g in row["gone"])
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
    """The manual shoe's 52 cards by suit; a card out of the shoe is greyed and cannot be tapped."""

    def card(c: Mapping[str, Any]) -> str:
        code, out = c["code"], c["out"]
        return (
            f'<button type="button" class="pcard {suit_class(code)}{_on(out, " out")}" '
            f'data-card="{escape(code)}"{_on(out, _OUT)} aria-label="{escape(card_name(code))}'
            f'{_on(out, ", already out")}">{escape(card_label(code))}</button>'
        )

    def row(r: Mapping[str, Any]) -> str:
        return f'<div class="picker-row"> {" ".join(card(c) for c in r["cards"])} </div>'

    return _joined(row(r) for r in rows)
