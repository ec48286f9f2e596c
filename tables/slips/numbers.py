"""Slip numbers: ``<letter>-<year>-<6 digits>``, consecutive per kind and calendar year."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection

from tables import sql
from tables.slips.models import LETTER_OF_KIND


def series_year(at: dt.datetime) -> int:
    """A series runs by calendar year in the casino's zone (Ohio 3772-11-10), not by gaming day."""
    return at.astimezone(ZoneInfo(settings.CASINO_TIME_ZONE)).year


def format_number(kind: str, year: int, serial: int) -> str:
    return f"{LETTER_OF_KIND[kind]}-{year}-{serial:06d}"


def take_serial(kind: str, year: int) -> int:
    """The series' next serial. Locks its counter row until the caller's transaction ends: call
    it after the table's row and before any ledger account (tables.locks' order)."""
    with connection.cursor() as cursor:
        cursor.execute(sql.NEXT_SLIP_SERIAL, [kind, year])
        return int(cursor.fetchone()[0])
