"""The refusal of a cash transaction that needs identification first."""

from __future__ import annotations

from typing import Any

from casino.errors import Conflict


class IdentificationRequired(Conflict):
    """409: the transaction would take a day's cash total past the CTR line and no ID is on file.

    ``refusal`` holds what ``casino.cash.services.note_refusal`` writes once the transaction has
    rolled back; ``noted`` says it was written, so the layers that catch it write it once.
    """

    code = "identification_required"

    def __init__(self, message: str, *, fields: dict[str, Any], refusal: dict[str, Any]) -> None:
        super().__init__(message, fields=fields)
        self.refusal = refusal
        self.noted = False
