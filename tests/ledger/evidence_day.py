"""A gaming day's evidence built in Python alone, for the verifier's own tests: two accounts'
chains of transfers, a table's chain of round actions, and a checkpoint signed with a test key."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ledger.evidence import merkle
from ledger.evidence.records import EXPORT_FORMAT, record_hash
from ledger.evidence.signing import sign

DAY = "2026-12-01"
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


class DayBuilder:
    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.heads: dict[str, tuple[int, str | None]] = defaultdict(lambda: (0, None))
        self.balances: dict[str, int] = defaultdict(int)
        self.ids: dict[str, int] = defaultdict(int)

    def _next_id(self, kind: str) -> int:
        self.ids[kind] += 1
        return self.ids[kind]

    def transfer(self, payer: str, payee: str, amount: int, *, kind: str = "bet", table: int = 1) -> None:
        entries = []
        places = {}
        for code in sorted({payer, payee}):
            seq, previous = self.heads[f"account:{code}"]
            places[code] = (seq + 1, previous)
        for code, signed in ((payee, amount), (payer, -amount)):
            self.balances[code] += signed
            seq, previous = places[code]
            entry_id = self._next_id("entry")
            entries.append(
                {"id": entry_id, "leg": 0, "account": code, "amount": signed,
                 "balance_after": self.balances[code], "hold": None, "seq": seq, "previous": previous}
            )  # fmt: skip
        record = {
            "type": "transfer",
            "id": self._next_id("transfer"),
            "fields": {
                "key": f"k{len(self.records)}", "kind": kind, "memo": "", "at": "2026-12-01T20:00:00.000000Z",
                "gaming_day": DAY, "meta": {"table": table}, "fingerprint": "f", "reverses": None,
                "entries": entries,
            },
        }  # fmt: skip
        digest = record_hash(record)
        for entry in entries:
            entry["hash"] = digest
            self.heads[f"account:{entry['account']}"] = (entry["seq"], digest)
        record["hash"] = digest
        self.records.append(record)

    def action(self, table: int, payload: dict[str, Any]) -> None:
        stream = f"table:{table}"
        seq, previous = self.heads[stream]
        record = {
            "type": "round_action", "id": self._next_id("round_action"), "stream": stream, "seq": seq + 1,
            "previous": previous,
            "fields": {"round": 1, "seq": seq + 1, "payload": payload, "actor": 7,
                       "at": "2026-12-01T20:00:01.000000Z", "transfer": None},
        }  # fmt: skip
        record["hash"] = record_hash(record)
        self.heads[stream] = (seq + 1, record["hash"])
        self.records.append(record)

    def ordered(self) -> list[dict[str, Any]]:
        order = {"transfer": 0, "round_action": 1}
        return sorted(self.records, key=lambda r: (order[r["type"]], r["id"]))

    def lines(self) -> list[str]:
        header = json.dumps({"format": EXPORT_FORMAT, "gaming_day": DAY, "root": self.root()})
        return [header, *(json.dumps(record) for record in self.ordered())]

    def root(self) -> str:
        return merkle.root([bytes.fromhex(r["hash"]) for r in self.ordered()]).hex()

    def checkpoint(
        self, previous: dict[str, Any] | None = None, key: Ed25519PrivateKey = KEY
    ) -> dict[str, Any]:
        chains: dict[str, list[list[Any]]] = {}
        for record in self.ordered():
            if record["type"] == "transfer":
                made = {
                    (f"account:{e['account']}", e["seq"], e["previous"]) for e in record["fields"]["entries"]
                }
            else:
                made = {(record["stream"], record["seq"], record["previous"])}
            for stream, seq, prev in made:
                runs = chains.setdefault(stream, [])
                if runs and runs[-1][1] == seq - 1:
                    runs[-1][1], runs[-1][3] = seq, record["hash"]
                else:
                    runs.append([seq, seq, prev, record["hash"]])
        document = {
            "format": "casekeeper-checkpoint/1", "gaming_day": DAY, "records": len(self.records),
            "root": self.root(), "previous_root": previous["root"] if previous else None,
            "previous_day": previous["gaming_day"] if previous else None, "algorithm": "test",
            "at": "2026-12-02T06:15:00+00:00", "chains": chains,
        }  # fmt: skip
        return sign(document, key)


def a_day() -> DayBuilder:
    day = DayBuilder()
    day.transfer("cage", "wallet:1", 10_000, kind="buy_in", table=0)
    for n in range(4):
        day.action(1, {"type": "bet", "player": 1, "amount": 500 + n})
        day.transfer("wallet:1", "layout:1:1", 500 + n)
        day.transfer("layout:1:1", "tray:1", 500 + n, kind="loss")
    day.action(1, {"type": "turn", "cards": ["KS", "QH"]})
    return day
