"""Path converters for ids: canonical ASCII decimal only, so one row has one URL.

Python's ``int()`` reads ``+1``, `` 1``, ``1_0`` and Arabic-Indic ``١`` as numbers, so a view
that parsed a ``str`` segment itself answered for player 1 or 10 under several spellings.
Every URL of the API and the console takes its ids through these converters instead; a
segment they refuse matches no route, which is a 404 (in the error shape on ``/api/``).
"""

from __future__ import annotations

from django.urls import register_converter

BIGINT_MAX = 2**63 - 1


class IdConverter:
    """``<id:name>``: 1 to 2⁶³−1 written in ASCII digits without sign, space or leading zero."""

    regex = "[1-9][0-9]{0,18}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > BIGINT_MAX:
            raise ValueError("beyond any row id")  # Django reads this as "no match": a 404
        return number

    def to_url(self, value: int) -> str:
        return str(value)


class PlayerRefConverter(IdConverter):
    """``<player:name>``: a player id as ``<id:>`` takes it, or ``me`` for the signed-in player."""

    regex = f"(?:me|{IdConverter.regex})"

    def to_python(self, value: str) -> int | str:  # type: ignore[override]
        return value if value == "me" else super().to_python(value)

    def to_url(self, value: int | str) -> str:
        return str(value)


register_converter(IdConverter, "id")
register_converter(PlayerRefConverter, "player")
