import sys; sys.path.insert(0, "/tmp/errors"); import probe2  # noqa
import json
import pytest
from django.test import Client
from tests.factories import ApiFloor


@pytest.fixture
def floor(system_accounts):
    return ApiFloor()


def show(label, r):
    print("\n###", label, r.status_code, r.get("Content-Type"), r.content[:200])


def test_probe(floor, settings):
    t = floor.open_table(game="stakes", min_bet=100, max_bet=1000, ante=100, rules={}, inventory=10000)
    p = [floor.new_player(buy_in=5000) for _ in range(2)]
    for i, pl in enumerate(p, 1):
        floor.seat(t["id"], pl, i)
    rnd = floor.start_round(t["id"], "manual")
    c = floor.client(floor.dealer)
    c.raise_request_exception = False
    r = c.post(f"/api/v1/rounds/{rnd['id']}/actions", data=b"[" * 100000 + b"]" * 100000, content_type="application/json")
    show("deep", r)
    r = c.post(f"/api/v1/rounds/{rnd['id']}/actions", data=b'{"type":"' + b"x" * 3_000_000 + b'"}', content_type="application/json")
    show("big", r)
    r = c.get("/api/v1/nope")
    show("404", r)
    r = c.put("/api/v1/me")
    show("405", r)
    r = c.get(f"/api/v1/players/{p[0]}/transactions?cursor=zzz")
    show("cursor", c.get(f"/api/v1/players/{p[0]}/transactions?cursor=zzz"))
    show("limit", c.get(f"/api/v1/players/{p[0]}/transactions?limit=null"))
    show("limit2", c.get(f"/api/v1/players/{p[0]}/transactions?limit=-2e-297"))
    for s in ["+1", "%201", "1_0", "\u0661"]:
        show("id " + s, c.get(f"/api/v1/players/{s.replace('1', str(p[0])) if s != chr(0x661) else s}"))
    r = c.post(f"/api/v1/rounds/{rnd['id']}/actions", {"type": "result", "winner": p[0], "stop": "a\x00b"}, format="json")
    show("nul", r)
    show("host", Client(raise_request_exception=False, HTTP_HOST="evil.example").get("/api/v1/me"))
