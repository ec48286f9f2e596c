"""Console URLs written without a ``reverse`` per use.

Django's ``reverse`` walks the URL patterns each time (tens of microseconds); a Faro tap's answer
writes the same few URLs into several forms and the pit's floor one per table (issue 22). The
answers are Django's own: ``path_to`` keeps each ``reverse`` it made, and ``per_table`` splits one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from django.urls import get_script_prefix, get_urlconf, reverse

_SAMPLE_ID = 987_654_321  # a table id no URL holds otherwise: where ``per_table`` puts the id


@lru_cache(maxsize=4096)
def _reversed(prefix: str, urlconf: object, view: str, args: tuple[object, ...]) -> str:
    return reverse(view, args=list(args))


def path_to(view: str, *args: object) -> str:
    """``reverse(view, args=args)``, kept for the process: a URL changes only with the URL
    configuration or the script prefix, which the key holds."""
    return _reversed(get_script_prefix(), get_urlconf(), view, args)


def per_table(view: str) -> Callable[[int], str]:
    """``reverse(view, args=[table_id])`` for many tables at the cost of one: a floor of
    cards would otherwise resolve the URL once per card."""
    head, tail = reverse(view, args=[_SAMPLE_ID]).split(str(_SAMPLE_ID))
    return lambda table_id: f"{head}{table_id}{tail}"
