"""The console's panels (templates and their partials: the receipt, the correction panel, a seat's
chips, the tray, the Faro dealing panel, card picker and casekeeper) escape what people typed,
show a refusal only under the form that was refused, and offer only what applies.

The screens' own tests check them in place, and a dealing tap's partial answer against the whole
screen (``test_faro_partial``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.test import RequestFactory

from casino.selectors import Balance
from tables.console.dealer.cards import picker_rows
from tables.console.taps import Flash

ODD = '<b>"Al"</b> & O\'Neil'
ESCAPED = "&lt;b&gt;&quot;Al&quot;&lt;/b&gt; &amp; O&#x27;Neil"


def request() -> Any:
    return RequestFactory().get("/console/")


def drawn(template: str, **context: Any) -> str:
    """``template`` (a file, or a partial as ``file#name``) drawn with ``context``, as a screen does."""
    return render_to_string(template, context, request())


def correction_panel(*, correction: dict[str, Any], flash: Flash | None, oob: bool = False) -> str:
    return drawn(
        "console/_correction.html", table=SimpleNamespace(pk=3), correction=correction, flash=flash, oob=oob
    )


def inline_error(flash: Flash | None, here: str) -> str:
    return drawn("console/_inline_error.html", flash=flash, here=here)


def receipt(flash: Flash | None, table: Any = None) -> str:
    return drawn("console/_receipt.html", flash=flash, table=table)


def seat_balance(player: int, balance: Balance, *, oob: bool = False) -> str:
    row = {"player": SimpleNamespace(pk=player), "balance": balance}
    return drawn("console/_seats.html#seat_balance", row=row, oob=oob)


def tray_balance(cents: int, *, oob: bool = False) -> str:
    table = SimpleNamespace(tray=SimpleNamespace(balance=cents))
    return drawn("console/_screen.html#tray_balance", table=table, oob=oob)


def faro_panel(
    name: str, *, table: Any, round_: Any, faro: dict[str, Any], flash: Flash | None, oob: bool
) -> str:
    return drawn(
        f"console/games/faro.html#{name}", table=table, round=round_, faro=faro, flash=flash, oob=oob
    )


def refused(form: str) -> Flash:
    return Flash(ok=False, headline=f"{ODD} cannot bet that.", form=form)


def test_the_correction_panel_escapes_the_last_action_and_offers_the_last_action_or_the_deal() -> None:
    deal = SimpleNamespace(pk=41, number=7)
    html = correction_panel(
        correction={"round": deal, "last": f"{ODD} bet $5.00", "pending": False}, flash=None
    )
    assert f'<span class="sub">{ESCAPED} bet $5.00</span>' in html
    assert ODD not in html
    assert 'action="/console/tables/3/rounds/41/correction/"' in html
    assert 'value="last" checked' in html
    assert 'value="round">' in html  # the whole deal is offered, not chosen
    assert "The whole deal #7" in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'name="token"' in html
    assert "hx-swap-oob" not in html


def test_the_correction_panel_with_no_last_action_chooses_the_deal_and_a_waiting_one_has_no_form() -> None:
    deal = SimpleNamespace(pk=41, number=7)
    fresh = correction_panel(correction={"round": deal, "last": "", "pending": False}, flash=None, oob=True)
    assert 'value="last"' not in fresh
    assert 'value="round" checked>' in fresh
    assert (
        'id="correction" aria-labelledby="correction-title" data-testid="correction-panel" hx-swap-oob="true"'
        in fresh
    )
    waiting = correction_panel(
        correction={"round": deal, "last": "x", "pending": True}, flash=refused("correction")
    )
    assert "<form" not in waiting
    assert "A correction of deal #7 is waiting for the pit" in waiting
    assert f'data-testid="inline-error">{ESCAPED} cannot bet that.</p>' in waiting


def test_a_refusal_shows_only_under_its_own_form() -> None:
    assert inline_error(refused("bet"), "bet").startswith('<p class="inline-error" role="alert"')
    assert f"{ESCAPED} cannot bet that." in inline_error(refused("bet"), "bet")
    assert inline_error(refused("bet"), "turn") == ""
    assert inline_error(Flash(ok=True, headline="Done.", form="bet"), "bet") == ""
    assert inline_error(None, "bet") == ""


def faro_round(*, shoe: str, **state: Any) -> Any:
    public = {"next_action": "turn", "turn": 3, "cards_remaining": 44, **state}
    return SimpleNamespace(pk=9, version=12, shoe=shoe, state=public)


def test_the_dealing_panel_offers_deal_turn_only_on_an_electronic_shoe_and_lists_the_recent_turns() -> None:
    table = SimpleNamespace(pk=3)
    turns = [
        {"number": 3, "banker": "QH", "player": "3S", "split": False},
        {"number": 2, "banker": "7D", "player": "7C", "split": True},
    ]
    faro = {"recent_turns": turns}
    electronic = faro_panel(
        "deal_panel",
        table=table,
        round_=faro_round(shoe="electronic", latest_turn=turns[0], soda="KS"),
        faro=faro,
        flash=refused("turn"),
        oob=True,
    )
    assert 'action="/console/tables/3/rounds/9/faro/turn/"' in electronic
    assert 'id="version-deal" name="version" value="12"' in electronic
    assert ">Deal turn</button>" in electronic
    assert "Turn <strong>3</strong>/25 · <strong>44</strong> cards left" in electronic
    assert electronic.count("<li>Turn ") == 2
    assert "wins · <strong>split</strong>" in electronic
    assert 'Soda: <span class="cardchip' in electronic
    assert f"{ESCAPED} cannot bet that." in electronic  # the turn was refused: its error shows here
    assert 'id="deal-panel" aria-labelledby="deal-title" hx-swap-oob="true"' in electronic

    manual = faro_panel(
        "deal_panel",
        table=table,
        round_=faro_round(shoe="manual", next_action="last_turn"),
        faro=faro,
        flash=None,
        oob=False,
    )
    assert "<form" not in manual
    assert "Key the cards on the card picker" in manual
    assert ">The last turn</h2>" in manual
    assert "recent-turns" not in manual  # no turn dealt yet


def test_a_seats_chips_show_what_is_in_play_only_when_there_is_some() -> None:
    idle = seat_balance(12, Balance(12, 123_450, 0, 123_450, None))
    assert idle.strip() == (
        '<span class="nowrap" id="seat-available-12" title="Available to play">$1,234.50</span>'
    )
    betting = seat_balance(12, Balance(12, 5, 700, 705, None), oob=True)
    assert 'id="seat-available-12" title="Available to play" hx-swap-oob="true">$0.05' in betting
    assert '<span class="muted">+ $7.00 in play</span></span>' in betting


def test_a_receipt_escapes_its_words_says_a_refusal_and_a_replay_and_offers_the_fill_a_tray_lacks() -> None:
    done = receipt(Flash(ok=True, headline=f"Paid {ODD}", lines=(ODD, "Bank took $5.00")))
    assert f"<p>Paid {ESCAPED}</p>" in done
    assert f"<ul><li>{ESCAPED}</li><li>Bank took $5.00</li></ul>" in done
    assert 'role="status"' in done
    assert f'data-fade-after="{settings.RECEIPT_FADE_MS}"' in done  # a success fades; a refusal stays
    assert ODD not in done
    no = receipt(refused("bet"), SimpleNamespace(pk=3))
    assert f"<p>Refused: {ESCAPED} cannot bet that.</p>" in no
    assert 'role="alert"' in no
    assert "data-fade-after" not in no
    assert "<ul>" not in no
    assert "request-fill" not in no  # nothing short
    again = receipt(Flash(ok=True, headline="Kate bet $5.00.", replayed=True))
    assert "(already done — shown again, nothing posted twice)" in again
    short = Flash(ok=False, headline="The tray is short.", fill_cents=123_450)
    fill = receipt(short, SimpleNamespace(pk=3))
    assert 'action="/console/tables/3/fill/"' in fill
    assert 'name="amount" value="1234.50"' in fill
    assert 'name="csrfmiddlewaretoken"' in fill
    assert "request-fill" not in receipt(short)  # no table: nowhere to ask
    assert receipt(None).strip() == ""  # no tap yet: nothing said


def test_the_tray_balance_is_in_dollars_and_out_of_band_only_when_asked() -> None:
    assert tray_balance(123_450) == '<strong data-testid="tray" id="tray-balance">$1,234.50</strong>'
    assert 'id="tray-balance" hx-swap-oob="true">−$5.00<' in tray_balance(-500, oob=True)


def _manual(step: str) -> SimpleNamespace:
    return SimpleNamespace(pk=41, shoe="manual", version=9, state={"next_action": step})


def test_the_card_picker_keys_the_cards_this_step_takes_and_shows_its_refusal_under_it() -> None:
    table = SimpleNamespace(pk=3)
    faro = {"picker": picker_rows(["AS"], ("AS", "KH"))}  # the king is out of the shoe
    soda = faro_panel("picker_panel", table=table, round_=_manual("soda"), faro=faro, flash=None, oob=False)
    assert "Card picker: the soda" in soda
    assert soda.count('class="slot"') == 1
    assert 'action="/console/tables/3/rounds/41/faro/soda/"' in soda
    assert 'data-label="Burn the soda"' in soda
    assert 'id="version-picker" name="version" value="9"' in soda
    assert 'data-card="KH" disabled aria-disabled="true" aria-label="king of hearts, already out"' in soda
    assert "hx-swap-oob" not in soda
    last = faro_panel(
        "picker_panel",
        table=table,
        round_=_manual("last_turn"),
        faro=faro,
        flash=refused("last_turn"),
        oob=True,
    )
    assert "Card picker: banker, player, hock" in last
    assert [name for name in ("card_0", "card_1", "card_2") if f'data-slot="{name}"' in last] == [
        "card_0",
        "card_1",
        "card_2",
    ]
    assert f'data-testid="inline-error">{ESCAPED} cannot bet that.</p>' in last
    assert 'id="card-picker" hx-swap-oob="true"' in last
    turn = faro_panel("picker_panel", table=table, round_=_manual("turn"), faro=faro, flash=None, oob=False)
    assert 'data-slot="card_2"' not in turn
    assert "inline-error" not in turn
    electronic = SimpleNamespace(pk=41, shoe="electronic", version=9, state={"next_action": "turn"})
    assert "card-picker" not in faro_panel(
        "picker_panel", table=table, round_=electronic, faro=faro, flash=None, oob=False
    )


def test_the_casekeeper_panel_wraps_its_wires_and_goes_out_of_band_only_when_asked() -> None:
    rows = [{"rank": "Q", "left": 0, "gone": [], "remaining": range(0)}]
    keeper = {"casekeeper": rows}
    panel = faro_panel("keeper_panel", table=None, round_=None, faro=keeper, flash=None, oob=True)
    assert 'id="casekeeper" aria-labelledby="keeper-title" hx-swap-oob="true">' in panel
    assert 'class="wire dead" aria-label="Q: 0 left"' in panel
    assert "hx-swap-oob" not in faro_panel(
        "keeper_panel", table=None, round_=None, faro=keeper, flash=None, oob=False
    )
