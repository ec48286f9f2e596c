"""What a table card shows, now that ``tables.console.pit.floor.card_html`` writes it in Python.

The cards were a template, which escaped every variable by itself; written by hand, each text must
be escaped by the code, and each form shown only to a reader the policy lets use it. The markup
was checked byte for byte against the former template's on the bench floor when it changed.
"""

from __future__ import annotations

import itertools
import re

import pytest

from casino.models import Role
from tables import services
from tables.console.pit.floor import CSRF_SLOT, TOKEN_SLOT, CardForms, render_cards
from tables.models import Round, Table
from tables.rounds import apply_round_action
from tests import factories
from tests.console.conftest import Floor, build_floor
from tests.console.test_views import live_faro

pytestmark = pytest.mark.django_db

ALL_FORMS = CardForms(
    can_request_tray=True, can_change_limits=True, can_use_admin=True, can_assign_dealer=True
)


def cards() -> dict[str, str]:
    """Each card of a floor rendered with every form, by the table's id."""
    _, html = render_cards(forms=ALL_FORMS)
    return dict(re.findall(r'<article [^>]*aria-labelledby="pit-table-(\d+)">(.*?)</article>', html, re.S))


def field(card: str, label: str) -> str:
    found = re.search(rf"<dt>{label}</dt><dd[^>]*>(.*?)</dd>", card, re.S)
    assert found is not None, label
    return found.group(1)


def test_a_card_escapes_every_text_it_shows(floor: Floor) -> None:
    dealer = factories.staff(Role.DEALER, username="ohara", name='O\'Hara <Jack> & "Co"')
    table = services.create_table(
        actor=floor.pit_boss, name='Tom\'s <Faro> & "Co"', game="faro", min_bet=500, max_bet=50_000
    )
    services.assign_dealer(actor=floor.pit_boss, table_id=table.pk, dealer_id=dealer.pk)
    services.open_table(actor=dealer, table_id=table.pk, opening_inventory=100_000)
    relief = factories.staff(Role.DEALER, username="relief", name="<Rita> & 'Relief'")

    _, html = render_cards(forms=ALL_FORMS)
    card = cards()[str(table.pk)]

    name = "Tom&#x27;s &lt;Faro&gt; &amp; &quot;Co&quot;"
    assert f'<h2 id="pit-table-{table.pk}">{name} <span class="badge open">Open</span></h2>' in card
    assert field(card, "Dealer") == "O&#x27;Hara &lt;Jack&gt; &amp; &quot;Co&quot;"
    assert f'aria-label="Hourly win and hold at {name}"' in card
    assert f'aria-label="Ask for a fill or credit at {name}"' in card
    assert f'aria-label="Change limits at {name}"' in card
    assert f"Open {name} in the admin</a>" in card
    assert f'<option value="{relief.pk}">&lt;Rita&gt; &amp; &#x27;Relief&#x27;</option>' in card
    assert "<li><strong>O&#x27;Hara &lt;Jack&gt; &amp; &quot;Co&quot;</strong> since " in card
    for raw in ("<Faro>", "<Jack>", "Tom's", "O'Hara", '"Co"', "<Rita>"):
        assert raw not in html, raw


def test_a_card_shows_the_table_dealer_deal_and_money_as_words() -> None:
    floor = build_floor("m", more_tables=True)
    live_faro(floor)
    nobody = services.create_table(
        actor=floor.pit_boss, name="Nobody deals", game="fan_tan", min_bet=100, max_bet=10_000
    )
    room = Table.objects.get(name="Card room m")
    shown = cards()

    faro = shown[str(floor.faro.pk)]
    assert (field(faro, "Game"), field(faro, "Dealer")) == ("Faro", "Dana Dealer")
    assert (field(faro, "Limits"), field(faro, "Tray"), field(faro, "Players")) == (
        "$5.00 – $500.00",
        "$10,000.00",
        "2",
    )
    assert re.fullmatch(r"#\d+ · betting · turn \d+/25 · 0 bets", field(faro, "Live deal"))
    assert field(faro, "Win tonight") == "$0.00"
    assert 'class="win-pos">$0.00</dd>' in faro
    assert field(faro, "Occupancy").startswith("2 seated · ")
    assert field(shown[str(room.pk)], "Game") == "Card room (gops)"
    lonely = shown[str(nobody.pk)]
    assert field(lonely, "Dealer") == field(lonely, "Live deal") == '<span class="muted">none</span>'
    assert field(lonely, "Dealer pace") == '<span class="muted">—</span>'
    assert '<span class="badge closed">Closed</span>' in lonely
    assert 'Rated rounds today: win <strong class="win-pos">$0.00</strong> on $0.00 handle · hold —' in lonely


def test_a_live_deal_is_told_by_its_phase_turn_and_bets_on_the_layout(floor: Floor) -> None:
    round_ = live_faro(floor)
    for version, (player, rank) in enumerate(((floor.kate, "3"), (floor.wyatt, "Q"))):
        apply_round_action(
            actor=floor.dealer,
            round_id=round_.pk,
            action={"type": "bet", "player": player.pk, "ranks": [rank], "amount": 500},
            version=version,
        )
    state = Round.objects.get(pk=round_.pk).state
    said = f"#{round_.number} · {state['phase']} · turn {state['turn']}/25 · 2 bets"
    assert field(cards()[str(floor.faro.pk)], "Live deal") == said


@pytest.mark.parametrize("flags", list(itertools.product((False, True), repeat=4)))
def test_a_card_has_only_the_forms_its_reader_may_use(flags: tuple[bool, bool, bool, bool]) -> None:
    """The tray form on an open table only, for a role that may ask; limits, the admin link and a
    dealer to swap in for roles that may use them. Every form carries the slots each answer fills."""
    floor = build_floor("f", more_tables=True)  # Faro closed; the card room open
    factories.staff(Role.DEALER, name="Rita Relief")  # deals no table: free to swap in
    forms = CardForms(*flags)
    _, html = render_cards(forms=forms)
    tables = Table.objects.count()
    open_tables = Table.objects.filter(status="open").count()
    assert html.count('<article class="tcard"') == tables
    assert html.count('data-testid="pit-tray-request"') == (open_tables if forms.can_request_tray else 0)
    assert html.count('name="min_bet"') == (tables if forms.can_change_limits else 0)
    assert html.count("in the admin</a>") == (tables if forms.can_use_admin else 0)
    assert html.count('data-testid="pit-dealer-form"') == (tables if forms.can_assign_dealer else 0)
    forms_shown = html.count("<form ")
    assert html.count(f'name="csrfmiddlewaretoken" value="{CSRF_SLOT}"') == forms_shown
    assert html.count(f'name="token" value="{TOKEN_SLOT}-') == forms_shown
    if forms.can_change_limits:
        faro = cards()[str(floor.faro.pk)]
        assert f'id="min-{floor.faro.pk}" name="min_bet" value="5" required' in faro
        assert f'id="max-{floor.faro.pk}" name="max_bet" value="500" required' in faro
        assert (
            f'action="/pit/tables/{floor.faro.pk}/limits/" hx-post="/pit/tables/{floor.faro.pk}/limits/"'
            in faro
        )
    if forms.can_request_tray:
        assert f'value="{TOKEN_SLOT}-tray{floor.faro.pk}"' not in html  # closed: no fill or credit to ask
