"""Issue 21 item 4: every screen says what happened in words, in Chromium at 1280×800.

Each game plays a whole round through the console (an electronic shoe, the buttons the dealer
taps), with at least one refusal, and after every screen the page's visible text is read:
no snake_case code, no card code (3S, AH AD), no bare number of cents (every amount is
dollars: $1,234.50, or a whole-dollar chip such as $25), no "…: done." receipt.
``test_the_check_catches_the_old_texts`` shows the check failing on the texts it replaced.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest

from tables.console.dealer.games import GAME_TITLES
from tables.models import Table
from tables.services import seat_player
from tests.browser import HTMX_SETTLED, open_page, place_bet, shot, sign_in
from tests.console.conftest import Floor
from tests.console.test_games import make_table

SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")
CARD_CODE = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b")
MONEY = re.compile(r"−?-?\$\d{1,3}(?:,\d{3})*(?:\.\d\d)?(?![\d,])")
NUMBER = re.compile(r"(?<![\w.,$])\d[\d,]*(?:\.\d+)?\b")
DONE = re.compile(r": done\.")


def word_problems(text: str) -> list[str]:
    """What a person should not have to read: codes, cents, card codes, "done." receipts."""
    problems = [f"code {m}" for m in SNAKE_CASE.findall(text)]
    problems += [f"card code {m}" for m in CARD_CODE.findall(text)]
    problems += [f"receipt says only done: {m}" for m in DONE.findall(text)]
    rest = MONEY.sub(" ", text)
    problems += [
        f"money not in dollars: {rest[m.start() : m.start() + 12]!r}" for m in re.finditer(r"\$", rest)
    ]
    for found in NUMBER.finditer(rest):
        if float(found.group().replace(",", "")) >= 100:  # no count on these screens reaches 100
            problems.append(f"bare number (cents?) {found.group()}")
    return problems


OLD_TEXTS = (
    "Hit Bat Masterson: done.",
    "Bid for the widow: done.",
    "Settles by: high_score",
    "Outcome: stock_out",
    "4C cannot go on the layout now (the suit takes 3S or 9S).",
    "AH AD is not a spread: three or four of a rank.",
    "Player 12 (seat 3) has only 3000 left in reserve.",
    "Refused (insufficient_funds): wallet:7 has 1500 cents available; this transfer needs 500 cents more.",
)
NEW_TEXTS = (
    "Bat Masterson hits: 7♣, total 18.",
    "Kate Elder bids $5.00 for the widow.",
    "Settles by: the highest score wins",
    "4♣ cannot go on the layout now (the suit takes 3♠ or 9♠).",
    "A♥ A♦ is not a spread: three or four of a rank.",
    "Kate Elder has only $30.00 left in reserve.",
    "Tray of Faro 1 has $50.00 available; this transfer needs $50.00 more.",
    "Seat 1 Kate Elder $1,980.00 + $20.00 in play · Limits $5.00 – $500.00 · chips $5 $25 $100 · deal #12",
)


def test_the_check_catches_the_old_texts() -> None:
    for text in OLD_TEXTS:
        assert word_problems(text), text
    for text in NEW_TEXTS:
        assert word_problems(text) == [], text


class Screens:
    """The dealer's page, read after every screen: the words on it must be words."""

    def __init__(self, page: Any, game: str) -> None:
        self.page, self.game, self.seen = page, game, 0

    def check(self, page: Any = None) -> str:
        page = page or self.page
        text = page.inner_text("body")
        problems = word_problems(text)
        if problems:
            shot(page, f"words-{self.game}-problem")
        assert problems == [], (self.game, problems, text[:1500])
        self.seen += 1
        return text

    def tap(self, button: Any, page: Any = None) -> int:
        """Tap and wait for the answer and the screen it brings; the screen's words are checked."""
        page = page or self.page
        with page.expect_response(lambda response: response.request.method == "POST") as sent:
            button.click()
        page.wait_for_function(HTMX_SETTLED)
        self.check(page)
        return int(sent.value.status)


def _named(table: Table) -> Table:
    """make_table names a table after its game's code ("fan_tan table"); a floor names it in words."""
    Table.objects.filter(pk=table.pk).update(name=f"{GAME_TITLES[table.game]} 7")
    return table


def _open_table(page: Any, world: Floor, table_id: int, screens: Screens) -> None:
    sign_in(page, world.dealer.username)
    page.goto(f"/console/tables/{table_id}/")
    screens.check()
    assert screens.tap(page.get_by_role("button", name="Start deal")) == 200
    page.get_by_role("button", name="Start deal").wait_for(state="detached")


def _settled(page: Any) -> bool:
    return page.locator("#start-title").filter(has_text="is settled").count() > 0


def _buttons(page: Any) -> Any:
    return page.locator(".action-taps form.action-tap button")


def _tap_preferred(screens: Screens, prefer: Sequence[str]) -> str:
    """Tap the first button whose words match the first pattern that matches any; return its words."""
    buttons = _buttons(screens.page)
    texts = buttons.all_inner_texts()
    for pattern in prefer:
        for index, text in enumerate(texts):
            if re.search(pattern, text):
                assert screens.tap(buttons.nth(index)) == 200, text
                return text
    raise AssertionError(f"{screens.game}: nothing to tap among {texts}")


def _stale_refusal(screens: Screens, prefer: Sequence[str]) -> None:
    """A second tablet still shows the screen before the last tap: its button is refused, in words."""
    stale = screens.page.context.new_page()
    stale.goto(screens.page.url)
    _tap_preferred(screens, prefer)
    status = screens.tap(_buttons(stale).first, stale)
    assert status in (400, 409), status
    refusal = stale.get_by_test_id("receipt")
    assert refusal.inner_text().startswith("Refused: "), refusal.inner_text()
    stale.close()


def _play_out(screens: Screens, prefer: Sequence[str], *, limit: int = 200, late: Sequence[str] = ()) -> None:
    """Tap the preferred buttons until the round is settled (``late`` patterns first after 12 taps)."""
    for step in range(limit):
        if _settled(screens.page):
            return
        _tap_preferred(screens, [*late, *prefer] if step >= 12 else prefer)
    raise AssertionError(f"{screens.game}: not settled after {limit} taps")


GAMES = {
    "farmer": (4, {"ante": 500}, ["^Deal the cards$", " stays$", "^Hit "]),
    "fan_tan": (3, {}, ["^Deal the cards$", " plays ", " passes$"]),
    "tonk": (
        2,
        {"ante": 500},
        ["^Deal the cards$", " spreads ", " puts ", "draws from the stock", " discards "],
    ),
    "newmarket": (
        3,
        {},
        ["^Deal the cards$", "Close the auction", " plays ", "Nobody has", "no card to lead"],
    ),
}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_round_of_a_pot_game_reads_in_words(
    browser: Any, live_server: Any, world: Floor, game: str
) -> None:
    players, spec, prefer = GAMES[game]
    table = _named(make_table(world, game, players, **spec)[0])
    page = open_page(browser, live_server)
    screens = Screens(page, game)
    _open_table(page, world, table.pk, screens)
    if game == "newmarket":
        _tap_preferred(screens, ["^Deal the cards$"])
        _tap_preferred(screens, ["keeps the hand"])
        # A bid beyond the bidder's reserve: refused, in dollars and with the bidder's name.
        bid = page.locator("form.action-form").filter(has_text="bids for the widow").first
        bid.locator("input[name=amount]").fill("100")
        assert screens.tap(bid.locator("button[type=submit]")) == 400
        refusal = page.get_by_test_id("receipt").inner_text()
        assert re.search(r"has only \$\d+\.\d\d left in reserve", refusal), refusal
        assert "Player " not in refusal, refusal
        bid = page.locator("form.action-form").filter(has_text="bids for the widow").first
        bid.locator("input[name=amount]").fill("2")
        assert screens.tap(bid.locator("button[type=submit]")) == 200
        headline = page.get_by_test_id("receipt").inner_text()
        assert re.search(r"bids \$2\.00 for the widow\.", headline), headline
        _tap_preferred(screens, ["Close the auction"])
        assert re.search(r"The widow goes to .+ for \$2\.00\.", page.get_by_test_id("receipt").inner_text())
    else:
        _stale_refusal(screens, prefer)
    _play_out(screens, prefer, late=[" drops$"] if game == "tonk" else ())
    shot(page, f"words-{game}-settled")
    assert screens.seen > 5


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_farmer_hit_says_the_card_and_the_total(browser: Any, live_server: Any, world: Floor) -> None:
    table = _named(make_table(world, "farmer", 2, ante=500)[0])
    page = open_page(browser, live_server)
    screens = Screens(page, "farmer-hit")
    _open_table(page, world, table.pk, screens)
    _tap_preferred(screens, ["^Deal the cards$"])
    hit = _tap_preferred(screens, ["^Hit "])
    who = hit.removeprefix("Hit ")
    headline = page.get_by_test_id("receipt").locator("p").first.inner_text()
    assert re.fullmatch(rf"{re.escape(who)} hits: (10|[2-9AJQK])[♠♥♦♣], total \d+\.", headline), headline


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_card_room_round_reads_in_words(browser: Any, live_server: Any, world: Floor) -> None:
    table, seated = make_table(world, "stakes", 2, rules={"variant": "page_one"})
    _named(table)
    page = open_page(browser, live_server)
    screens = Screens(page, "stakes")
    _open_table(page, world, table.pk, screens)
    form = page.locator("form.action-form").filter(has_text="Record the result")
    # Refused: nobody chosen (the browser's own check is bypassed: the server must refuse too).
    form.evaluate("f => f.noValidate = true")
    assert screens.tap(form.locator("button[type=submit]")) == 400
    assert page.get_by_test_id("receipt").inner_text().startswith("Refused: ")
    form = page.locator("form.action-form").filter(has_text="Record the result")
    form.locator("label.pick", has_text=seated[1].name).click()
    assert screens.tap(form.locator("button[type=submit]")) == 200
    receipt = page.get_by_test_id("receipt").inner_text()
    assert f"Result: {seated[1].name} went out first." in receipt
    assert _settled(page)
    shot(page, "words-stakes-settled")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_whole_faro_deal_reads_in_words(browser: Any, live_server: Any, world: Floor) -> None:
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    page = open_page(browser, live_server)
    screens = Screens(page, "faro")
    _open_table(page, world, world.faro.pk, screens)
    with page.expect_response(lambda response: response.request.method == "POST") as sent:
        place_bet(page, "Kate Elder", ["K"], "$600")  # over the $500 maximum
    assert sent.value.status == 400
    page.wait_for_function(HTMX_SETTLED)
    assert "The table maximum is $500.00" in screens.check()
    page.reload()  # a fresh form (the refused one keeps its choices, K included)
    with page.expect_response(lambda response: response.request.method == "POST"):
        place_bet(page, "Kate Elder", ["K"], "$25")
    page.wait_for_function(HTMX_SETTLED)
    assert "Kate Elder bet $25.00 on K" in screens.check()
    for _ in range(30):
        if _settled(page):
            break
        assert screens.tap(page.get_by_test_id("deal-turn")) == 200
    assert _settled(page)
    shot(page, "words-faro-settled")
