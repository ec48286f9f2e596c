"""Waiting on a condition instead of for a fixed time: the test goes on as soon as it holds, and
fails saying what it waited for when it never does."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_for(condition: Callable[[], object], *, timeout: float, what: str, every: float = 0.05) -> None:
    """Check ``condition`` every ``every`` seconds until it is true; past ``timeout``, fail."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)
