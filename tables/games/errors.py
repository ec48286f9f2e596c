"""The one error an engine raises: the action is not legal now, with a reason for the dealer."""

from __future__ import annotations

from typing import Any


class IllegalAction(Exception):
    """Refused action. ``code`` is snake_case for clients; nothing has changed when raised.

    The HTTP layer maps ``status`` 400 and renders ``{"error": {code, message, fields}}``.
    Codes used: ``illegal_action`` (generic), ``bad_card``, ``bad_rank``, ``bad_placement``,
    ``dead_rank``, ``limit_exceeded``, ``below_minimum``, ``card_not_in_shoe``.
    """

    status = 400

    def __init__(self, code: str, message: str, fields: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields or {}


def refuse(message: str, code: str = "illegal_action") -> IllegalAction:
    """Shorthand for ``raise refuse(...)``: most refusals are the generic code."""
    return IllegalAction(code, message)
