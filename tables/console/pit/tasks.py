"""Celery entry points of the pit; each calls one function of theirs. Each task is registered
under the name its senders use (``REFRESH_TASK``), not one read from this module's path."""

from __future__ import annotations

from celery import shared_task

from tables.console.pit.floor import REFRESH_TASK, refresh_shared_floor


@shared_task(name=REFRESH_TASK, ignore_result=True)
def refresh_pit_floor_task(flags: list[bool]) -> None:
    """Sent by a pit poll served an aging copy of the floor (``tables.console.pit.floor``).

    Not ``acks_late``: a refresh lost with its worker is simply not done; the next poll renders.
    """
    refresh_shared_floor(flags)
