"""Issue 21 item 13: the admin says "Entries", shows dollars, and a round's JSON as tables in words.

Through Django's test client as a superuser: every registered model's change list title, the
amounts in lists and on detail pages, and a whole Newmarket round's detail page.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib import admin
from django.test import Client

from casino.models import Role, User
from ledger.models import Entry
from tables.models import Round, TrayRequest
from tests import factories
from tests.console.conftest import Floor, build_floor
from tests.console.test_games import make_table, play_round

pytestmark = pytest.mark.django_db

TITLE = re.compile(r"<h1>Select (.+?) to (?:view|change)</h1>")
# What a naive "+s" gets wrong: entry → entrys, access → accesss, box → boxs, match → matchs.
NAIVE_PLURAL = re.compile(r"(?:[^aeiou]ys|[sx]s|[cs]hs)$")


@pytest.fixture
def floor(db: None) -> Floor:
    return build_floor(prefix="adm")


@pytest.fixture
def site(floor: Floor) -> Client:
    boss: User = factories.staff(Role.ADMIN, username="admsuper", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(boss)
    return client


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_every_change_list_title_is_a_proper_plural(site: Client) -> None:
    crumbs = {}
    for model in admin.site._registry:
        meta = model._meta
        page = site.get(f"/admin/{meta.app_label}/{meta.model_name}/").content.decode()
        assert TITLE.search(page) is not None, meta.label
        crumb = re.search(r'<div class="breadcrumbs">(.*?)</div>', page, re.S)
        assert crumb is not None, meta.label
        crumbs[meta.label] = " ".join(_text(crumb.group(1)).split())
        assert not NAIVE_PLURAL.search(str(meta.verbose_name_plural)), meta.label
    assert crumbs["ledger.Entry"].endswith("› Entries")
    assert crumbs["tables.TrayRequest"].endswith("› Fills and credits")
    assert crumbs["casino.ApiToken"].endswith("› API tokens")
    index = _text(site.get("/admin/").content.decode())
    for plural in ("Entries", "Holds", "Fills and credits", "API tokens", "Action log"):
        assert plural in index
    assert "Entrys" not in index
    assert "Tray requests" not in index
    assert "Api tokens" not in index


def test_amounts_show_in_dollars_in_lists_and_on_detail_pages(floor: Floor, site: Client) -> None:
    floor.open_faro(inventory=1_234_500)
    # A fill of the one-step flow before slips: history the admin still lists.
    fill = TrayRequest.objects.create(
        table=floor.faro, kind="fill", amount=250_000, requested_by=floor.dealer
    )

    tables = _text(site.get("/admin/tables/table/").content.decode())
    assert "$5.00" in tables
    assert "$500.00" in tables
    assert "50000" not in tables

    fills = _text(site.get("/admin/tables/trayrequest/").content.decode())
    assert "$2,500.00" in fills
    assert "250000" not in fills
    detail = _text(site.get(f"/admin/tables/trayrequest/{fill.pk}/change/").content.decode())
    assert "$2,500.00" in detail
    assert "250000" not in detail

    entries = _text(site.get("/admin/ledger/entry/").content.decode())
    assert "$12,345.00" in entries  # the opening bankroll, cage → tray
    assert "1234500" not in entries
    entry = Entry.objects.filter(amount=1_234_500).get()
    shown = _text(site.get(f"/admin/ledger/entry/{entry.pk}/change/").content.decode())
    assert "$12,345.00" in shown

    accounts = _text(site.get("/admin/ledger/account/").content.decode())
    assert "$12,345.00" in accounts
    sessions = _text(site.get("/admin/tables/tablesession/").content.decode())
    assert "$12,345.00" in sessions
    players = _text(site.get("/admin/casino/player/").content.decode())
    assert "$2,000.00" in players  # each player's wallet


def test_a_rounds_state_and_actions_read_as_tables_in_words(floor: Floor, site: Client) -> None:
    table, players = make_table(floor, "newmarket", 3)
    dealer = Client()
    dealer.force_login(floor.dealer)
    round_ = play_round(floor, table, dealer)
    assert Round.objects.get(pk=round_.pk).status == "settled"

    html = site.get(f"/admin/tables/round/{round_.pk}/change/").content.decode()
    text = _text(html)
    assert '"pots"' not in unescape(html)  # no raw JSON
    assert "{'" not in text  # nor a Python dict
    assert 'class="round-json"' in html
    # The pay cards by name, with their pots in dollars; players by name, their cards as A♥.
    assert re.search(r"A♥\s+\$\d+\.\d\d", text)
    for player in players:
        assert player.name in text
    assert re.search(r"play · player [A-Z][a-z]+ [A-Za-z0-9]+ · card (?:10|[2-9AJQK])[♠♥♦♣]", text)
    assert "limits $1.00–$50.00" in text
    assert "seed" not in re.findall(r'<div class="form-row field-(\w+)', html)


def test_the_one_step_fills_are_history_the_admin_cannot_decide(floor: Floor, site: Client) -> None:
    """Fills and credits are slips now: the one-step requests left in the admin are read only,
    with no action that would approve one (and move chips past the slip's signatures)."""
    floor.open_faro(inventory=100_000)
    fill = TrayRequest.objects.create(table=floor.faro, kind="fill", amount=10_000, requested_by=floor.dealer)

    page = site.post("/admin/tables/trayrequest/", {"action": "approve", "_selected_action": [fill.pk]})

    assert page.status_code in (200, 302)
    fill.refresh_from_db()
    assert (fill.status, fill.decided_by, fill.transfer) == ("pending", None, None)
    changelist = site.get("/admin/tables/trayrequest/").content.decode()
    assert 'value="approve"' not in changelist
    assert 'value="refuse"' not in changelist
