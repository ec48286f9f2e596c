"""Issue 44 items 10 to 12: the Faro dealer screen on a tablet in a noisy room, measured in Chromium.

Big targets, few taps, no surprises, no scrolling, at 1280x800 and 810x1080:

- every seated player is a button in view (seats 5 and 6 hid behind a sideways scroll);
- "Clear" after a refused bet clears (it brought the refused player, place and chip back, and
  the next player's bet landed on the refused place too);
- the layout keeps its size whatever the message above it (a refusal squeezed it until chips
  covered the ranks and the cards-left counts and the call-the-turn buttons lay over Even / Odd /
  High card), "Take down" buttons are whole, and a manual shoe's card picker and Deal are in
  view, not in a 214 px pane scrolling on its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Player
from casino.selectors import get_player_balances
from casino.services import buy_in, create_player
from tables.console.dealer.games import legal_actions_of
from tables.games.cards import FULL_DECK
from tables.models import Round
from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
from tests.browser import PORTRAIT, TABLET, confirmed, dealer_at_faro, open_page, place_bet, shot
from tests.console.conftest import PASSWORD, Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TABLETS = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
SIZE = "{width}x{height}".format
# Seated after Kate Elder and Wyatt Earp (seats 1 and 2), in seats 3 to 12.
MORE_PLAYERS = (
    "Doc Holliday",
    "Bat Masterson",
    "Josephine Marcus",
    "Morgan Earp",
    "Virgil Earp",
    "Johnny Ringo",
    "Ike Clanton",
    "Luke Short",
    "Lottie Deno",
    "Poker Alice",
)
SEATED = ("Kate Elder", "Wyatt Earp", *MORE_PLAYERS)
# A known electronic deck: the last three cards are 5 9 K (six orders to call at the last turn).
THREE_RANKS_LAST = f"{3:064x}"
OVER_THE_MAX = "$600"  # the floor's Faro table takes $5 to $500
REFUSAL = "The table maximum is $500.00"

# Each ancestor that clips what overflows it and cuts the element's box. clientWidth and
# clientHeight are whole pixels, hence a pixel of slack.
CLIPPED_BY = """el => {
    const box = el.getBoundingClientRect(), cuts = [];
    for (let up = el.parentElement; up; up = up.parentElement) {
        const style = getComputedStyle(up);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const r = up.getBoundingClientRect();
        const left = r.left + up.clientLeft, top = r.top + up.clientTop;
        if (box.left < left - 1 || box.top < top - 1
            || box.right > left + up.clientWidth + 1 || box.bottom > top + up.clientHeight + 1)
            cuts.push(up.tagName + '.' + up.className + '#' + up.id);
    }
    return cuts; }"""
# Each ancestor that is a pane scrolling on its own: it holds more than it shows.
SCROLL_PANES = """el => {
    const panes = [];
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up);
        const tall = style.overflowY !== 'visible' && up.scrollHeight > up.clientHeight + 1;
        const wide = style.overflowX !== 'visible' && up.scrollWidth > up.clientWidth + 1;
        if (tall || wide) panes.push(`${up.tagName}.${up.className} ${up.clientHeight}/${up.scrollHeight}`);
    }
    return panes; }"""
# Each ancestor scrolled sideways to show the element: it did not fit across.
SCROLLED_SIDEWAYS = """el => {
    const scrolled = [];
    for (let up = el.parentElement; up; up = up.parentElement)
        if (up.scrollLeft > 0) scrolled.push(up.tagName + '.' + up.className + ' ' + up.scrollLeft);
    return scrolled; }"""
# What a finger at the element's centre hits: the element itself, not something drawn over it.
UNCOVERED = """el => { const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !!hit && (el === hit || el.contains(hit)); }"""
BOXES = """els => els.map(e => {
    const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"""
WHAT_IS_CHOSEN = """form => ({
    player: [...form.querySelectorAll('input[name=player]:checked')].map(i => i.value),
    ranks: [...form.querySelectorAll('input[name=ranks]:checked')].map(i => i.value),
    target: [...form.querySelectorAll('input[name=target]:checked')].map(i => i.value),
    amount: [...form.querySelectorAll('input[name=amount]:checked')].map(i => i.value),
    typed: form.querySelector('input[name=custom_amount]').value,
    spot: [...form.querySelectorAll('[data-spot].chosen')].map(s => s.dataset.spot),
    coppered: form.querySelector('input[name=coppered]').checked })"""
NOTHING = {"player": [], "ranks": [], "target": [], "amount": [], "typed": "", "spot": [], "coppered": False}


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="fds")


def _seat_players(world: Floor, count: int) -> None:
    """Kate Elder and Wyatt Earp, then more funded players, in seats 1 to ``count``."""
    for kate_or_wyatt in (world.kate, world.wyatt):
        seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=kate_or_wyatt.pk)
    for name in MORE_PLAYERS[: count - 2]:
        username = "fds." + name.lower().replace(" ", ".")
        player = create_player(actor=world.cashier, username=username, password=PASSWORD, name=name)
        buy_in(actor=world.cashier, player=player, amount=200_000)
        seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=player.pk)


def _player(name: str) -> int:
    return int(Player.objects.get(user__name=name).pk)


def _deal(world: Floor, *, players: int = 2, shoe: str = "electronic") -> Round:
    """The floor's Faro table open with ``players`` seated and a deal under way (an electronic
    shoe's deck is known)."""
    world.open_faro()
    _seat_players(world, players)
    seed = THREE_RANKS_LAST if shoe == "electronic" else None
    return start_round(actor=world.dealer, table_id=world.faro.pk, shoe=shoe, seed=seed)


def _act(world: Floor, deal: Round, action: dict[str, Any]) -> Round:
    return apply_round_action(actor=world.dealer, round_id=deal.pk, action=action)


def _to_the_last_turn(world: Floor, deal: Round) -> Round:
    """Deal turns until the last is next: a manual shoe keys the deck in order."""
    rest = [card for card in FULL_DECK if card != deal.state.get("soda")]
    while deal.state["next_action"] != "last_turn":
        cards, rest = rest[:2], rest[2:]
        turn = {"type": "turn", "cards": cards} if deal.shoe == "manual" else {"type": "turn"}
        deal = _act(world, deal, turn)
    return deal


def _placements(deal: Round) -> list[list[str]]:
    """What the layout takes a bet on now (the engine's ``bet`` choices)."""
    return list(next(e for e in legal_actions_of(deal) if e["type"] == "bet")["choices"]["ranks"])


def _bet_everywhere(world: Floor, deal: Round) -> Round:
    """A $5 stack on every placement the layout takes now, and three more on the first (a stack
    of four chips), Kate Elder's and Wyatt Earp's in turn."""
    placements = _placements(deal)
    bettors = [world.kate.pk, world.wyatt.pk]
    for number, ranks in enumerate([*placements, *[placements[0]] * 3]):
        bet = {"type": "bet", "player": bettors[number % 2], "ranks": ranks, "amount": 500}
        deal = _act(world, deal, bet)
    return deal


def _live_rank(deal: Round) -> str:
    return next(ranks[0] for ranks in _placements(deal) if len(ranks) == 1)


def _refuse_a_bet(page: Any, rank: str = "K", *, spot: str | None = None) -> None:
    """Kate Elder's bet over the table maximum on ``rank`` (or the ``spot`` between cards) from the
    bet form, refused on the same screen."""
    with page.expect_response(lambda response: response.request.method == "POST") as sent:
        if spot is None:
            place_bet(page, "Kate Elder", [rank], OVER_THE_MAX)
        else:
            form = page.locator("#bet-form")
            form.locator(".bet-players label.pick", has_text="Kate Elder").click()
            form.locator(f'[data-spot="{spot}"]').click()
            form.locator("#custom-amount").fill(OVER_THE_MAX[1:])
            form.locator("[data-confirm]").click()
    assert sent.value.status == 400
    page.locator("#bet-form").get_by_test_id("inline-error").filter(has_text=REFUSAL).wait_for()
    page.get_by_test_id("receipt").filter(has_text=REFUSAL).wait_for()


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not laid out"
    return {key: round(value, 1) for key, value in box.items()}


def _in_view(page: Any, locator: Any) -> None:
    """Every element of ``locator`` inside the viewport, cut by no ancestor, uncovered."""
    size = page.viewport_size
    assert locator.count() > 0, locator
    for element in locator.all():
        box = _box(element)
        assert box["x"] >= -0.5, (element, box)
        assert box["y"] >= -0.5, (element, box)
        assert box["x"] + box["width"] <= size["width"] + 0.5, (element, box)
        assert box["y"] + box["height"] <= size["height"] + 0.5, (element, box)
        assert element.evaluate(CLIPPED_BY) == [], element
        assert element.evaluate(UNCOVERED), f"{element} is covered at its centre"


def _overlap(first: list[float], second: list[float]) -> bool:
    """Two boxes (left, top, right, bottom) share some area; touching edges do not count."""
    across = min(first[2], second[2]) - max(first[0], second[0])
    down = min(first[3], second[3]) - max(first[1], second[1])
    return across > 0.5 and down > 0.5


def _covered_labels(page: Any) -> list[tuple[str, str]]:
    """Each rank label or cards-left count with a chip drawn over it, and that chip's title."""
    chips = page.locator("#layout-chips [data-testid=chip]")
    chip_boxes = chips.evaluate_all(BOXES)
    titles = chips.evaluate_all("els => els.map(e => e.title)")
    covered = []
    for part in ("rank-label", "left"):
        labels = page.locator(f"#bet-form .layout-grid .{part}")
        ranks = labels.evaluate_all("els => els.map(e => e.closest('.rank').dataset.rank)")
        for rank, label in zip(ranks, labels.evaluate_all(BOXES), strict=True):
            over = [title for title, chip in zip(titles, chip_boxes, strict=True) if _overlap(label, chip)]
            covered += [(f"{rank} {part}", title) for title in over]
    return covered


# --------------------------------------------------------------------------- item 10: every player


@TABLETS
@pytest.mark.parametrize("seated", [6, 12])
def test_every_seated_player_is_a_button_in_view_and_takes_a_tap_without_scrolling(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int], seated: int
) -> None:
    _deal(world, players=seated)
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    picks = page.locator("#bet-form .bet-players label.pick")
    assert picks.count() == seated
    shot(page, f"faro-ds-{SIZE(**viewport)}-{seated}-players")
    _in_view(page, picks)
    strip = page.get_by_test_id("bet-players")
    assert strip.evaluate("el => el.scrollWidth <= el.clientWidth"), "the players scroll sideways"
    assert strip.evaluate("el => el.scrollHeight <= el.clientHeight"), "the players scroll"

    # A finger on seat 6's button and on the last seat's, where they are drawn now.
    for seat in sorted({6, seated}):
        box = _box(picks.filter(has_text=f"seat {seat} "))
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        chosen = page.locator("#bet-form input[name=player]:checked")
        assert chosen.evaluate("i => i.dataset.name") == SEATED[seat - 1]
    assert page.evaluate("document.scrollingElement.scrollTop") == 0
    assert strip.evaluate("el => el.scrollLeft") == 0


# --------------------------------------------------------------------------- item 11: Clear clears


@TABLETS
def test_clear_after_a_refused_bet_clears_and_the_next_bet_goes_where_it_is_tapped(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    deal = _deal(world, players=2)
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    form = page.locator("#bet-form")
    _refuse_a_bet(page, spot="Q K")
    before = get_player_balances(players=[world.kate, world.wyatt])

    form.get_by_role("button", name="Clear").click()
    assert form.evaluate(WHAT_IS_CHOSEN) == NOTHING
    assert form.locator("[data-confirm]").is_disabled()
    assert form.get_by_test_id("inline-error").count() == 0

    # Wyatt Earp's $25 on the J: player, card, chip, confirm. Nothing of the refused bet comes along.
    form.locator(".bet-players label.pick", has_text="Wyatt").click()
    form.locator('label.rank[data-rank="J"]').click()
    form.locator(".amount-picks label.pick").filter(has_text="$25").first.click()
    assert form.locator("[data-confirm]").inner_text() == "Bet $25.00 on J for Wyatt Earp"
    form.locator("[data-confirm]").click()
    confirmed(page, "Wyatt Earp bet $25.00 on J.")

    bets = Round.objects.get(pk=deal.pk).state["bets"]
    assert [(b["player"], b["ranks"], b["amount"]) for b in bets] == [(world.wyatt.pk, ["J"], 2_500)]
    after = get_player_balances(players=[world.kate, world.wyatt])
    assert after[world.kate.pk].available == before[world.kate.pk].available
    assert after[world.wyatt.pk].available == before[world.wyatt.pk].available - 2_500
    shot(page, f"faro-ds-{SIZE(**viewport)}-after-clear")


# --------------------------------------------------------------------------- item 12: the layout holds


@TABLETS
def test_the_layout_keeps_its_size_whatever_the_message_and_chips_leave_the_ranks_readable(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    _bet_everywhere(world, _deal(world, players=6))
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    felt = page.get_by_test_id("layout")
    quiet = _box(felt)
    assert _covered_labels(page) == []

    place_bet(page, "Wyatt Earp", ["Q"], "25")
    confirmed(page, "Wyatt Earp bet $25.00 on Q.")
    assert _box(felt) == quiet
    _refuse_a_bet(page)
    shot(page, f"faro-ds-{SIZE(**viewport)}-refusal-chips")
    assert _box(felt) == quiet
    assert _covered_labels(page) == []
    _in_view(page, page.locator("#bet-form label.target"))
    _in_view(page, page.locator("#bet-form [data-confirm]"))


@TABLETS
def test_on_the_last_turn_with_a_refusal_the_calls_and_even_odd_high_do_not_overlap(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    deal = _to_the_last_turn(world, _deal(world, players=6))
    _bet_everywhere(world, deal)
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    felt = page.get_by_test_id("layout")
    quiet = _box(felt)
    _refuse_a_bet(page, _live_rank(deal))
    shot(page, f"faro-ds-{SIZE(**viewport)}-last-turn-refusal")
    assert _box(felt) == quiet
    calls = page.locator("#call-turn label.pick")
    targets = page.locator("#bet-form label.target")
    assert calls.count() == 6
    _in_view(page, calls)
    _in_view(page, targets)
    call_boxes, target_boxes = calls.evaluate_all(BOXES), targets.evaluate_all(BOXES)
    assert [(c, t) for c in call_boxes for t in target_boxes if _overlap(c, t)] == []
    assert _covered_labels(page) == []
    _in_view(page, page.locator("#bet-form [data-confirm]"))
    _in_view(page, page.get_by_test_id("deal-turn"))


@TABLETS
def test_every_take_down_button_is_whole_where_the_bets_are_listed(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    """The longest rows: a called turn, a coppered stack at the table maximum, long names."""
    deal = _to_the_last_turn(world, _deal(world, players=6))
    josephine, bat = _player("Josephine Marcus"), _player("Bat Masterson")
    for action in (
        {"type": "call_turn", "player": josephine, "order": ["K", "9", "5"], "amount": 50_000},
        {"type": "bet", "player": bat, "ranks": ["5", "9"], "amount": 50_000, "coppered": True},
        {"type": "bet", "player": world.kate.pk, "target": "high", "amount": 1_500},
    ):
        deal = _act(world, deal, action)
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    _refuse_a_bet(page, "K")
    buttons = page.locator("#bet-rows button", has_text="Take down")
    assert buttons.count() == 3
    for button in buttons.all():
        # Brought into view as a dealer does: the side column scrolled up or down, never sideways.
        button.evaluate("b => b.scrollIntoView({block: 'nearest', inline: 'nearest'})")
        assert button.evaluate(SCROLLED_SIDEWAYS) == [], button.get_attribute("aria-label")
        _in_view(page, button)
    shot(page, f"faro-ds-{SIZE(**viewport)}-take-down")


@TABLETS
@pytest.mark.parametrize("step", ["turn", "last_turn"])
def test_a_manual_shoes_card_picker_and_deal_are_in_view_in_no_pane_of_their_own(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int], step: str
) -> None:
    deal = _act(world, _deal(world, players=6, shoe="manual"), {"type": "soda", "card": "KS"})
    if step == "last_turn":
        deal = _to_the_last_turn(world, deal)
    page = open_page(browser, live_server, viewport)
    dealer_at_faro(page, world)
    felt = page.get_by_test_id("layout")
    quiet = _box(felt)
    _refuse_a_bet(page, _live_rank(deal))
    shot(page, f"faro-ds-{SIZE(**viewport)}-manual-{step}")
    assert _box(felt) == quiet
    picker = page.locator("#card-picker")
    assert picker.locator(".slot").count() == (3 if step == "last_turn" else 2)
    for part in (picker.locator(".slot"), picker.locator(".pcard"), page.get_by_test_id("deal-manual")):
        _in_view(page, part)
        for element in part.all():
            assert element.evaluate(SCROLL_PANES) == [], element
    _in_view(page, page.locator("#bet-form [data-confirm]"))
