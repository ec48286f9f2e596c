"""Issue 44 item 16: the audit's CSV gives dollars beside cents.

Every amount was integer cents only (``cash_in_cents``): right for a program, not for the person
who opens the file. Each is now two columns side by side, ``…_cents`` for machines and
``…_dollars`` as people read it, with thousands separators ("$1,234,567.89", "−$0.02").
"""

from __future__ import annotations

import csv
import io

from tables.audit.render_csv import MONEY_FIELDS, sections
from tests.audit.test_report_outputs import _report


def _rows(files: dict[str, bytes], name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(files[name].decode())))


def test_every_amount_in_the_csv_has_its_dollars_beside_its_cents() -> None:
    files = sections(_report())
    for name, content in files.items():
        header = next(csv.reader(io.StringIO(content.decode())))
        for position, column in enumerate(header):
            if column.endswith("_cents"):
                assert header[position + 1] == column.removesuffix("_cents") + "_dollars", (name, header)
        assert not {c for c in header if c in MONEY_FIELDS}, (name, header)  # never a bare amount
    (player,) = _rows(files, "players.csv")
    assert (player["cash_in_cents"], player["cash_in_dollars"]) == ("25000", "$250.00")
    assert (player["cash_out_cents"], player["cash_out_dollars"]) == ("1500", "$15.00")
    summary = _rows(files, "summary.csv")[0]
    assert (summary["handle_cents"], summary["handle_dollars"]) == ("10000", "$100.00")
    assert (summary["win_cents"], summary["win_dollars"]) == ("", "")  # no value: both cells empty
    cage, _total = _rows(files, "trial_balance.csv")
    assert (cage["balance_cents"], cage["balance_dollars"]) == ("-2", "−$0.02")


def test_dollars_in_the_csv_have_thousands_separators() -> None:
    big = {"id": 1, "name": "Kate Elder", "cash_in": 123_456_789, "cash_out": 0, "handle": 0}
    (player,) = _rows(sections(_report(players=[big])), "players.csv")
    assert player["cash_in_dollars"] == "$1,234,567.89"
