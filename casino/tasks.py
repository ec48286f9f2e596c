"""Celery entry points for people, tokens and idempotency records; each calls one service."""

from __future__ import annotations

from celery import shared_task

from casino.services import purge_expired_tokens, purge_idempotency_records


@shared_task(acks_late=True)
def purge_expired_tokens_task() -> int:
    """Expired tokens can never sign in again; deleting them keeps the token table small."""
    return purge_expired_tokens()


@shared_task(acks_late=True)
def purge_idempotency_records_task() -> int:
    """Makes ``IDEMPOTENCY_TTL`` real: stored responses past it are deleted (beat, hourly)."""
    return purge_idempotency_records()
