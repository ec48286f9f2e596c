"""The Faro screen's markup that every tap redraws, written in Python.

The template engine's loops over the layout (13 cards, the spots between them, the chips, the
casekeeper's 52 beads, the bets, the card picker) were most of a tap's CPU (issue 22): about a
microsecond a variable in Python against tens in a template loop. Then the panels a dealing tap
sends back (the bet form with its chips, the dealing panel, the bets) were most of what was left
of a turn's answer, so they are written here too, whole. Each function writes the markup its
template wrote, from the drawing data of ``tables.console.faro``; every text is escaped
(``html.escape``, as Django's ``escape`` does), numbers are written as they are; the whitespace
is the former templates', so the screen is the same byte for byte. The whole screen (through
``console_tags``) and a tap's partial answer (``faro_partial``) use the same functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils.html import json_script
from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars
from tables.console.cards import card_label, card_name, shown_card, shown_suit, suit_class
from tables.console.panel_markup import OOB as _OOB
from tables.console.panel_markup import csrf_input, inline_error, token_input
from tables.console.paths import path_to


def _joined(parts: Iterable[str]) -> SafeString:
    return mark_safe("\n".join(parts))  # every part below escapes what it writes


def _on(flag: Any, text: str) -> str:
    return text if flag else ""


_DEAD = '<span class="left-word dead-word">dead</span>'  # hidden when the card is too narrow for it


def cells(layout: Sequence[Mapping[str, Any]]) -> SafeString:
    """The thirteen cards: a checkbox each, with the cards left (``faro.layout_cells``). The
    bottom row's rank and count are along its bottom edge, the chips' band being between the rows."""

    def cell(c: Mapping[str, Any]) -> str:
        rank, dead = escape(str(c["rank"])), c["dead"]
        place = (
            f' style="grid-column: {c["grid_column"]}; grid-row: {c["grid_row"]}"' if c["grid_row"] else ""
        )
        left = _DEAD if dead else f'{c["left"]}<span class="left-word"> left</span>'
        where = f'{_on(rank == "7", " seven")}{_on(c["grid_row"] == 2, " bottom")}'
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


def _dollars(cents: int, *, short: bool = False) -> str:
    """Cents as escaped dollars; ``short``: a chip's label ($25, $2.50)."""
    return escape(format_dollars(cents, whole_if_even=short))


def _colours(bet: Mapping[str, Any]) -> str:
    """A chip's (or a player's) colours: the seat's, with a label colour that reads on it
    (``faro.colour_for_seat``)."""
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
    """The bet form's players: a radio each, with the seat (its number in the player's chip colour)
    and what the player has to play. Every seat is a button in view (console.css ``.player-picks``)."""

    def pick(row: Mapping[str, Any]) -> str:
        pk, name, seat = row["player"].pk, escape(row["name"]), row["seat"].number
        chips = pick_available(pk, row["balance"].available)
        has = f'<span class="visually-hidden">seat {seat} · </span>{chips}'
        body = (
            f'<span class="dot" aria-hidden="true">{seat}</span> '
            f'<span class="who"><span class="name">{name}</span><span class="sub">{has}</span></span>'
        )
        look = f'class="pick" style="{_colours(row)}"'
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
    """The bets table's rows: the player with the place under the name, so a row fits the side
    column with its take-down button whole. Each take-down button submits the one take-down form
    of the table (``form="take-down"``, in ``games/_faro_bets.html``) with its bet: the round's
    version and the one-time token are written once, so a bet tap's answer adds a row without
    touching the others."""

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


_KEEPER_KEY = (
    '<p class="keeper-key"><span><span class="bead losers">L</span> lost</span><span><span class="bead '
    'winners">W</span> won</span><span><span class="bead soda">S</span> soda</span><span><span class="bead '
    'hock">H</span> hock</span></p>'
)


def keeper_panel(rows: Sequence[Mapping[str, Any]], *, oob: bool) -> SafeString:
    """The casekeeper's panel around ``keeper``; a dealing tap's answer sends it whole (oob)."""
    return mark_safe(
        '\n    <section class="panel" id="casekeeper" aria-labelledby="keeper-title"'
        f"{_on(oob, _OOB)}>\n"
        '      <h2 id="keeper-title">Casekeeper</h2>\n'
        '      <div class="keeper" data-testid="casekeeper">\n'
        f"        {keeper(rows)}\n"
        "      </div>\n"
        f"      {_KEEPER_KEY}\n"
        "    </section>\n"
    )


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


def _deal_words(step: Any) -> str:
    """What a button that deals the next turn says (the dealing panel's and the card picker's)."""
    return "Deal the last turn" if step == "last_turn" else "Deal turn"


def _slot(number: int, words: str) -> str:
    name = f"card_{number}"
    return (
        f'<input type="hidden" name="{name}" value=""><button type="button" class="slot" data-slot="{name}">'
        f'<span>{words}</span><span class="slot-card">tap a card</span></button>'
    )


def panel_args(screen: Any, *, oob: bool = False) -> dict[str, Any]:
    """The panels' arguments after the request, from the table screen's context (a template's, or
    ``views.table_context``'s for a tap's partial answer)."""
    table, round_, faro = screen["table"], screen["round"], screen["faro"]
    return {"table": table, "round_": round_, "faro": faro, "flash": screen.get("flash"), "oob": oob}


def picker_panel(
    request: HttpRequest, *, table: Any, round_: Any, faro: Mapping[str, Any], flash: Any, oob: bool
) -> SafeString:
    """A manual shoe's card picker: the slots this step keys, then the 52 cards (``picker``). A
    dealing tap's answer sends it whole (oob); an electronic shoe has none."""
    if round_.shoe != "manual":
        return mark_safe("\n\n")
    step = round_.state.get("next_action")
    url = _faro_url(table.pk, round_.pk, str(step))
    if step == "soda":
        title, label, verbs = "the soda", "Burn the soda", '["burned"]'
        slots = f"\n          {_slot(0, 'Soda')}"
    else:
        last = step == "last_turn"
        title = "banker, player, hock" if last else "banker's card, then player's card"
        label, verbs = _deal_words(step), '["loses", "wins", "hock"]'
        hock = _slot(2, "Hock") if last else ""
        banker, player = _slot(0, "Banker's card (loses)"), _slot(1, "Player's card (wins)")
        slots = f"\n          {banker}\n          {player}\n          {hock}"
    return mark_safe(
        f'\n\n<section class="panel" aria-labelledby="picker-title" id="card-picker"{_on(oob, _OOB)}>\n'
        f'    <h2 id="picker-title">Card picker: {title}</h2>\n'
        f"    {inline_error(flash, step)}\n\n"
        f'    <form id="picker-form" method="post" action="{url}" hx-post="{url}"\n'
        '          hx-disabled-elt="find button[type=submit]" data-card-slots\n'
        f'          data-label="{label}"\n'
        f"          data-verbs='{verbs}'>\n"
        f"      {csrf_input(request)}{token_input()}"
        f'<input type="hidden" id="version-picker" name="version" value="{round_.version}">\n'
        f'      <div class="slots">\n        {slots}\n        \n      </div>\n'
        '      <div class="picker" role="group" aria-label="Cards">\n'
        f"        {picker(faro['picker'])}\n"
        "      </div>\n"
        '      <div class="confirm-bar"><button type="submit" class="btn btn-primary btn-xl" data-confirm'
        ' data-testid="deal-manual">Deal</button></div>\n'
        "    </form>\n"
        "</section>\n\n"
    )


def _faro_url(table_id: int, round_id: int, kind: str) -> str:
    return escape(path_to("console:faro", table_id, round_id, kind))


def _card_chip(code: Any) -> str:
    """A card as the templates' ``card_class`` and ``card`` filters draw it."""
    return f'<span class="cardchip {escape(shown_suit(code))}">{escape(shown_card(code))}</span>'


def _recent_turn(t: Mapping[str, Any]) -> str:
    split = " · <strong>split</strong>" if t.get("split") else ""
    hock = f" · hock {_card_chip(t['hock'])}" if t.get("hock") else ""
    return (
        f"\n        <li>Turn {escape(str(t.get('number')))}: {_card_chip(t.get('banker'))} loses, "
        f"{_card_chip(t.get('player'))} wins{split}{hock}</li>\n        "
    )


_KEY_ON_PICKER = '<p class="muted">Key the cards on the card picker as they leave the shoe.</p>'
_DEAL_TITLES = {"soda": "Burn the soda", "last_turn": "The last turn"}


def deal_panel(
    request: HttpRequest, *, table: Any, round_: Any, faro: Mapping[str, Any], flash: Any, oob: bool
) -> SafeString:
    """The dealing panel: the turn count, an electronic shoe's "Deal turn" form, the recent turns.
    A dealing tap's answer sends it whole (``faro_partial``)."""
    state = round_.state
    step = state.get("next_action")
    if round_.shoe == "electronic":
        url = _faro_url(table.pk, round_.pk, str(step))
        label = _deal_words(step)
        shoe = (
            f'\n        <form id="deal-form" method="post" action="{url}" hx-post="{url}"'
            ' hx-disabled-elt="find button">\n'
            f"          {csrf_input(request)}{token_input()}"
            f'<input type="hidden" id="version-deal" name="version" value="{round_.version}">\n'
            '          <button type="submit" class="btn btn-primary btn-xl" data-testid="deal-turn">'
            f"{label}</button>\n"
            "        </form>\n      "
        )
    else:
        shoe = f"\n        {_KEY_ON_PICKER}\n      "
    turns = ""
    if state.get("latest_turn"):
        listed = "".join(_recent_turn(t) for t in faro["recent_turns"])
        turns = f'\n      <ul class="history recent-turns">\n        {listed}\n      </ul>\n      '
    soda = f'<p class="muted soda">Soda: {_card_chip(state["soda"])}</p>' if state.get("soda") else ""
    return mark_safe(
        '\n    <section class="panel deal-panel" id="deal-panel" aria-labelledby="deal-title"'
        f"{_on(oob, _OOB)}>\n"
        f'      <h2 id="deal-title">{_DEAL_TITLES.get(step, "Next turn")}</h2>\n'
        f'      <p class="stat" data-testid="deal-count">Turn <strong>{escape(str(state.get("turn")))}'
        f"</strong>/25 · <strong>{escape(str(state.get('cards_remaining')))}</strong> cards left</p>\n"
        f"      {inline_error(flash, step)}\n\n"
        f"      {shoe}\n"
        f"      {turns}\n"
        f"      {soda}\n"
        "    </section>\n"
    )


def bets_panel(
    request: HttpRequest, *, table: Any, round_: Any, faro: Mapping[str, Any], flash: Any, oob: bool
) -> SafeString:
    """The bets on the layout, with the one take-down form their rows' buttons submit. A bet tap's
    answer sends it whole for the deal's first bet, then only the new row (``faro_partial``)."""
    bets = faro["bets"]
    if bets:
        url = _faro_url(table.pk, round_.pk, "remove_bet")
        listed = (
            "\n    \n    \n"
            f'    <form id="take-down" method="post" action="{url}" hx-post="{url}"'
            ' hx-disabled-elt="#bet-rows button">\n'
            f"      {csrf_input(request)}{token_input()}"
            f'<input type="hidden" id="version-take-down" name="version" value="{round_.version}">\n'
            "    </form>\n"
            '    <div class="table-scroll">\n'
            '    <table class="bets-table">\n'
            '      <thead><tr><th scope="col">Player and place</th>'
            '<th scope="col">Amount</th><th scope="col"><span class="visually-hidden">Take down</span></th>'
            "</tr></thead>\n"
            '      <tbody id="bet-rows">\n'
            f"      {bet_rows(bets)}\n"
            "      </tbody>\n"
            "    </table>\n"
            "    </div>\n    "
        )
    else:
        listed = '<p class="muted">No bets down.</p>'
    return mark_safe(
        f'\n<section class="panel" aria-labelledby="bets-title" id="bets"{_on(oob, _OOB)}>\n'
        f'    <h2 id="bets-title">Bets on the layout (<span id="bets-count">{len(bets)}</span>)</h2>\n'
        f"    {inline_error(flash, 'remove_bet')}\n\n"
        f"    {listed}\n"
        "</section>\n"
    )


def amounts(table_id: int, faro: Mapping[str, Any], sticky: Mapping[str, Any]) -> SafeString:
    """The bet form's chips, which poll the table's limits: a pit boss's change swaps in new chips
    (``views.bet_amounts`` answers 204 while the limits are unchanged)."""
    low, high = faro["limits"]["min_bet"], faro["limits"]["max_bet"]
    url = escape(path_to("console:amounts", table_id))
    chosen, custom = sticky.get("amount"), escape(str(sticky.get("custom_amount") or ""))
    picks = "".join(
        f'\n        <label class="pick"><input type="radio" name="amount" value="{value}"'
        f' data-label="{_dollars(value)}" {_on(chosen == str(value), "checked")}>'
        f"{_dollars(value, short=True)}</label>\n        "
        for value in faro["amounts"]
    )
    return mark_safe(
        "\n    \n"
        f'    <fieldset id="bet-amounts" hx-get="{url}?limits={low}-{high}"'
        f' hx-trigger="every {settings.CONSOLE_POLL_SECONDS}s"'
        ' hx-target="this" hx-swap="outerHTML" data-testid="bet-amounts">\n'
        f'      <legend>Chip <span class="muted">(limits {_dollars(low)} – {_dollars(high)})</span>'
        "</legend>\n"
        '      <div class="amount-picks">\n'
        f"        {picks}\n"
        '        <label class="visually-hidden" for="custom-amount">Other amount in dollars</label>\n'
        '        <input class="custom" type="text" inputmode="decimal" id="custom-amount"'
        f' name="custom_amount" placeholder="Other $" value="{custom}">\n'
        '        <label class="copper-toggle"><input type="checkbox" name="coppered" value="1"'
        f" {_on(sticky.get('coppered'), 'checked')}> Copper"
        ' <span class="sub muted">(bet to lose)</span></label>\n'
        "      </div>\n"
        "    </fieldset>\n"
    )


def _call_order(order: Mapping[str, Any], chosen: Any) -> str:
    ranks = [escape(str(rank)) for rank in order["ranks"]]
    value, label, pays = escape(str(order["value"])), escape(str(order["label"])), escape(str(order["pays"]))
    return (
        '\n        <label class="pick order">\n'
        f'          <input type="radio" name="order" value="{value}" data-label="{label}"'
        f" {_on(chosen == order['value'], 'checked')}\n"
        f'                 aria-label="Call {ranks[0]} loses, {ranks[1]} wins, {ranks[2]} hock:'
        f' pays {pays} to 1">\n'
        f'          <span aria-hidden="true">{label}<span class="sub">'
        f"{'cat-hop' if order['cat_hop'] else 'pays'} {pays} to 1</span></span>\n"
        "        </label>\n        "
    )


def _call_turn(orders: Sequence[Mapping[str, Any]], chosen: Any) -> str:
    """The last turn's call: the orders it may name, with their odds."""
    if orders:
        listed = "".join(_call_order(order, chosen) for order in orders)
        body = (
            '\n      <legend>Call the turn <span class="muted">loser · winner · hock</span></legend>\n'
            f'      <div class="order-picks">\n        {listed}\n      </div>\n      '
        )
    else:
        body = (
            "\n      <legend>Call the turn</legend>\n"
            '      <p class="muted">The last three cards are all one rank: no calls.</p>\n      '
        )
    return (
        '\n    <fieldset class="call-orders" id="call-turn" data-testid="call-turn">\n'
        f"      {body}\n    </fieldset>\n    "
    )


def bet_form(
    request: HttpRequest,
    *,
    table: Any,
    round_: Any,
    faro: Mapping[str, Any],
    seats: Sequence[Mapping[str, Any]],
    sticky: Mapping[str, Any],
    flash: Any,
    oob: bool,
) -> SafeString:
    """The bet form: players, the layout, chips and what the engine takes a bet on now
    (``faro-placements``, read by console.js). A dealing tap's answer sends it whole."""
    bet_url, call_url = _faro_url(table.pk, round_.pk, "bet"), _faro_url(table.pk, round_.pk, "call_turn")
    last_turn = round_.state.get("next_action") == "last_turn"
    return mark_safe(
        f'\n  <form class="panel faro-bet" id="bet-form"{_on(oob, _OOB)} data-faro-bet method="post"\n'
        f'        action="{bet_url}" hx-post="{bet_url}"\n'
        f'        data-call-url="{call_url}"\n'
        '        hx-disabled-elt="find button[type=submit]" aria-labelledby="bet-title">\n'
        f"    {json_script(faro['placements'], 'faro-placements')}\n"
        f"    {csrf_input(request)}{token_input('bet-token')}"
        f'<input type="hidden" id="version-bet" name="version" value="{round_.version}">\n'
        '    <h2 id="bet-title" class="visually-hidden">Place a bet</h2>\n'
        '    <fieldset class="bet-players">\n'
        '      <legend class="visually-hidden">Player</legend>\n'
        f"      {_on(not seats, _NO_SEATS)}\n"
        '      <div class="player-picks" data-testid="bet-players">\n'
        f"        {player_picks(seats, sticky.get('player'))}\n"
        "      </div>\n"
        "    </fieldset>\n\n"
        '    <fieldset class="bet-place">\n'
        '      <legend class="visually-hidden">Place: tap a card, or every card one stack covers</legend>\n'
        '      <div class="felt" data-testid="layout">\n'
        '        <div class="layout-grid">\n'
        f"          {cells(faro['cells'])}\n"
        "        </div>\n"
        '        <div class="spots">\n'
        f"          {spots(faro['spots'])}\n"
        "        </div>\n"
        '        <div class="chips" id="layout-chips">\n'
        f"          {chips(faro['chips'])}\n"
        "        </div>\n"
        "      </div>\n"
        '      <div class="targets">\n'
        f"        {targets(faro['targets'], sticky.get('target'))}\n"
        "      </div>\n"
        "    </fieldset>\n\n"
        f"    {_call_turn(faro['call_orders'], sticky.get('order')) if last_turn else ''}\n\n"
        f"    {amounts(table.pk, faro, sticky)}\n\n"
        '    <div class="bet-message">\n'
        '    <p class="placement-hint" data-hint aria-live="polite"></p>\n'
        f"    {inline_error(flash, 'bet')}\n\n"
        f"    {inline_error(flash, 'call_turn')}\n"
        "    </div>\n\n"
        '    <div class="confirm-bar">\n'
        '      <button type="submit" class="btn btn-primary btn-xl" data-confirm>Place bet</button>\n'
        '      <button type="reset" class="btn">Clear</button>\n'
        "    </div>\n"
        "  </form>\n"
    )


_NO_SEATS = '<p class="muted">Seat players first (Players, in the side column).</p>'
