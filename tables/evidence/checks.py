"""A deployment signs its checkpoints: ``check --deploy`` refuses one without a usable key."""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error, Tags, register
from django.core.exceptions import ImproperlyConfigured

from tables.evidence.keys import signing_key


@register(Tags.security, deploy=True)
def check_signing_key(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    try:
        signing_key()
    except ImproperlyConfigured as error:
        return [
            Error(
                str(error),
                hint="Set it to an Ed25519 private key, 32 bytes in base64 (docs/evidence.md).",
                id="tables.E010",
            )
        ]
    return []
