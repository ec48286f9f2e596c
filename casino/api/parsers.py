"""Request parsers that refuse what PostgreSQL or Python cannot hold, as a 400 before any view runs.

Bodies land in ``jsonb`` and ``text`` columns (round actions, refused-action logs, idempotency
records), and PostgreSQL refuses the NUL character in both; a NUL in any string or key was a
500 from the database. JSON nested deeper than the interpreter's recursion limit made
``json.loads`` raise ``RecursionError``, another 500. No body of this API is deeper than a few
levels, so anything past ``MAX_DEPTH`` is refused with the same ``malformed_request`` code.
DRF reads JSON and form bodies through ``request.body``, so ``DATA_UPLOAD_MAX_MEMORY_SIZE``
still bounds them before these run (413 ``too_large``, casino/api/exceptions.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.http import QueryDict
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles, FormParser, JSONParser, MultiPartParser

MAX_DEPTH = 32


def refuse_unstorable(data: Any) -> None:
    """Raise ParseError if any string or key holds NUL, or containers nest past MAX_DEPTH.

    Iterative, so checking a deep document cannot itself exhaust the stack.
    """
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise ParseError("Text may not contain the NUL character (\\u0000).")
            continue
        children = _children(value)
        if children is None:
            continue
        if depth >= MAX_DEPTH:
            raise ParseError(f"The body nests deeper than {MAX_DEPTH} levels.")
        stack.extend((child, depth + 1) for child in children)


def _children(value: Any) -> list[Any] | None:
    """Keys and values of a mapping (every value of a form field), items of a list, else None."""
    if isinstance(value, QueryDict):
        return [part for key, values in value.lists() for part in (key, values)]
    if isinstance(value, Mapping):
        return [part for pair in value.items() for part in pair]
    if isinstance(value, list):
        return value
    return None


class StrictJSONParser(JSONParser):
    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError(f"The body nests deeper than {MAX_DEPTH} levels.") from error
        refuse_unstorable(data)
        return data


class StrictFormParser(FormParser):
    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Any = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        refuse_unstorable(data)
        return data


class StrictMultiPartParser(MultiPartParser):
    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Any = None) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        refuse_unstorable(parsed.data if isinstance(parsed, DataAndFiles) else parsed)
        return parsed
