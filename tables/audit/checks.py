"""System checks that the Celery settings fit the audit, a long task that must run to the end once.

Redis has no real acknowledgements: a message a worker took (``acks_late``) goes back to the
queue once it has been out ``visibility_timeout`` seconds, whether or not its worker is alive.
An audit allowed to run longer than that would be handed to a second worker mid-run.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

KOMBU_DEFAULT_VISIBILITY_TIMEOUT = 3600  # kombu's Redis and SQS transports
VISIBILITY_BROKERS = ("redis", "rediss", "sentinel", "sqs")


@register("celery")
def check_audit_fits_the_broker(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    longest = settings.AUDIT_TIME_LIMIT_SECONDS + settings.AUDIT_TIME_LIMIT_GRACE_SECONDS
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None) or {}
    visibility = options.get("visibility_timeout", KOMBU_DEFAULT_VISIBILITY_TIMEOUT)
    scheme = str(getattr(settings, "CELERY_BROKER_URL", "")).split(":", 1)[0].split("+")[0]
    if scheme in VISIBILITY_BROKERS and visibility <= longest:
        errors.append(
            Error(
                f"The broker's visibility_timeout ({visibility} s) must exceed the audit's hard time limit "
                f"({longest} s = AUDIT_TIME_LIMIT_SECONDS + AUDIT_TIME_LIMIT_GRACE_SECONDS), or Redis "
                "redelivers an audit that is still running.",
                hint="Raise CELERY_VISIBILITY_TIMEOUT or lower AUDIT_TIME_LIMIT_SECONDS.",
                id="tables.E001",
            )
        )
    if settings.AUDIT_STALE_SECONDS < 2 * settings.AUDIT_HEARTBEAT_SECONDS:
        errors.append(
            Error(
                f"AUDIT_STALE_SECONDS ({settings.AUDIT_STALE_SECONDS}) must be at least twice "
                f"AUDIT_HEARTBEAT_SECONDS ({settings.AUDIT_HEARTBEAT_SECONDS}), or one late heartbeat "
                "makes a live audit look dead and the sweep restarts it.",
                id="tables.E002",
            )
        )
    return errors
