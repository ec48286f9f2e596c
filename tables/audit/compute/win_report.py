"""Win and hold for a gaming day as rows: by table, game or shift, the day's totals, month and
year to date (``GET /gaming-days/{date}/win`` and the audit report's "Win and hold"), and each
table's and game's month-to-date hold against its band (hold investigations).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.conf import settings

from casino.money import format_dollars
from tables.audit import report as shape
from tables.audit.compute.drop import drop_boxes
from tables.audit.compute.state import AuditState
from tables.audit.compute.win import WinFigures, hold_band, total
from tables.audit.compute.win_data import Key, Periods, figures, round_spread, shifts_of, table_names
from tables.models import Game

GAME_NAMES = dict(Game.choices)


class DayWin:
    """Every table's figures for each day of the year up to ``day``, read once, then summed as asked."""

    def __init__(self, day: dt.date) -> None:
        self.day = day
        self.month_start = day.replace(day=1)
        self.daily: dict[Key, WinFigures] = figures(Periods(first=dt.date(day.year, 1, 1), last=day))
        self.names = table_names()

    def _tables(self, since: dt.date) -> dict[int, WinFigures]:
        out: dict[int, WinFigures] = defaultdict(WinFigures)
        for (table_id, ordinal), item in self.daily.items():
            if since.toordinal() <= ordinal <= self.day.toordinal():
                out[table_id] = out[table_id] + item
        return dict(out)

    def by_table(self, since: dt.date | None = None) -> dict[int, WinFigures]:
        return self._tables(since or self.day)

    def by_game(self, since: dt.date | None = None) -> dict[str, WinFigures]:
        out: dict[str, WinFigures] = defaultdict(WinFigures)
        for table_id, item in self.by_table(since).items():
            out[self.names[table_id][1]] = out[self.names[table_id][1]] + item
        return dict(out)

    def table_rows(self) -> list[shape.WinRowData]:
        rows = [item.row(str(pk), self.names[pk][0]) for pk, item in self.by_table().items()]
        return sorted(rows, key=lambda r: r["label"])

    def game_rows(self) -> list[shape.WinRowData]:
        return [item.row(game, GAME_NAMES.get(game, game)) for game, item in sorted(self.by_game().items())]

    def shift_rows(self) -> list[shape.WinRowData]:
        shifts = shifts_of(self.day)
        per_shift: dict[int, WinFigures] = defaultdict(WinFigures)
        for (_, index), item in figures(Periods(first=self.day, last=self.day, shifts=shifts)).items():
            per_shift[index] = per_shift[index] + item
        zone = shifts[0][1].tzinfo
        return [
            per_shift.get(index, WinFigures()).row(
                name, f"{name} ({start.astimezone(zone):%H:%M}–{end.astimezone(zone):%H:%M})"
            )
            for index, (name, start, end) in enumerate(shifts)
        ]

    def rows(self, by: str) -> list[shape.WinRowData]:
        return {"table": self.table_rows, "game": self.game_rows, "shift": self.shift_rows}[by]()

    def totals(self) -> shape.WinRowData:
        return total(list(self.by_table().values())).row("day", f"Gaming day {self.day:%-d %B %Y}")

    def month_to_date(self) -> shape.WinRowData:
        return total(list(self.by_table(self.month_start).values())).row(
            "month_to_date", f"{self.month_start:%B %Y} to the {self.day:%-d}{_nth(self.day.day)}"
        )

    def year_to_date(self) -> shape.WinRowData:
        return total(list(self.by_table(dt.date(self.day.year, 1, 1)).values())).row(
            "year_to_date", f"{self.day.year} to {self.day:%-d %B}"
        )

    def hold_checks(self) -> list[shape.HoldCheckData]:
        """Every table and game with a month-to-date drop, against its band (``win.hold_band``)."""
        spread = round_spread(self.month_start, self.day)
        z = float(settings.HOLD_BAND_Z)
        out: list[shape.HoldCheckData] = []
        tables = self.by_table(self.month_start)
        games: dict[str, list[int]] = defaultdict(list)
        for table_id in tables:
            games[self.names[table_id][1]].append(table_id)
        subjects: list[tuple[str, str, str, int | None, list[int]]] = [
            ("table", str(pk), self.names[pk][0], pk, [pk])
            for pk in sorted(tables, key=lambda p: self.names[p][0])
        ]
        subjects += [
            ("game", game, GAME_NAMES.get(game, game), None, ids) for game, ids in sorted(games.items())
        ]
        for scope, key, label, subject_table, ids in subjects:
            item = total([tables[pk] for pk in ids])
            if not item.drop:
                continue
            theos = [spread[pk][0] for pk in ids if pk in spread]
            has_theo = bool(theos) and all(theo is not None for theo in theos)
            band = hold_band(
                theo=sum(t or 0.0 for t in theos) if has_theo else None,
                theo_variance=sum(spread[pk][1] for pk in ids if pk in spread),
                electronic_win=item.electronic_win,
                win_squares=sum(spread[pk][2] for pk in ids if pk in spread),
                drop=item.drop,
                z=z,
            )
            out.append(
                {
                    "scope": scope,
                    "key": key,
                    "label": label,
                    "table": subject_table,
                    "drop": item.drop,
                    "win": item.win,
                    "hold": item.hold,
                    "expected_hold": round(band.expected / item.drop, 4),
                    "low": None if band.low is None or band.sigma <= 0 else round(band.low, 4),
                    "high": None if band.high is None or band.sigma <= 0 else round(band.high, 4),
                    "basis": "theo" if has_theo else "ledger",
                    "outside": not band.holds(item.hold),
                }
            )
        return out


def _nth(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def win_for_day(day: dt.date, *, by: str) -> shape.WinData:
    """``GET /gaming-days/{date}/win?by=…``."""
    books = DayWin(day)
    return {
        "gaming_day": day.isoformat(),
        "by": by,
        "rows": books.rows(by),
        "totals": books.totals(),
        "month_to_date": books.month_to_date(),
        "year_to_date": books.year_to_date(),
    }


def win_section(day: dt.date) -> tuple[shape.WinSectionData, list[shape.HoldCheckData]]:
    """The report's "Win and hold", and the holds outside their band."""
    books = DayWin(day)
    section: shape.WinSectionData = {
        "by_table": books.table_rows(),
        "by_game": books.game_rows(),
        "by_shift": books.shift_rows(),
        "totals": books.totals(),
        "month_to_date": books.month_to_date(),
        "year_to_date": books.year_to_date(),
    }
    return section, [check for check in books.hold_checks() if check["outside"]]


def investigation_summary(check: shape.HoldCheckData) -> str:
    """ "Faro 1's month-to-date hold is 4.1 % on a drop of $12,000.00; its band is 9.8 % to 21.3 %." """

    def pct(value: float | None) -> str:
        return "—" if value is None else f"{100 * value:.1f} %".replace("-", "−")  # dollars' minus

    return (
        f"{check['label']}'s month-to-date hold is {pct(check['hold'])} on a drop of "
        f"{format_dollars(check['drop'])}; its 95 % band is {pct(check['low'])} to {pct(check['high'])}."
    )


def section_drop_and_win(audit: AuditState) -> None:
    """The report's "Drop and count" and "Win and hold", and the holds that left their band."""
    audit.drop = drop_boxes(audit.day)
    audit.win, audit.hold_investigations = win_section(audit.day)
    for check in audit.hold_investigations:
        audit.add(
            shape.finding(
                "hold_investigation",
                "warning",
                investigation_summary(check),
                table=check["table"],
                table_name=check["label"] if check["scope"] == "table" else None,
                evidence={"scope": check["scope"], "key": check["key"], "hold": check["hold"]},
            )
        )
    for box in audit.drop:
        if box["variance"]:
            audit.add(
                shape.finding(
                    "drop_count_variance",
                    "warning",
                    f"Drop box {box['number']} from {box['table_name']} counted "
                    f"{format_dollars(box['counted'])} against {format_dollars(box['recorded'])} recorded.",
                    table=box["table"],
                    table_name=box["table_name"],
                    amount=box["variance"],
                    evidence={"box": box["number"], "slip": box["slip"]},
                )
            )
