"""The checkpoint signing key from the settings, and which keys the casino has signed with."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from ledger.evidence.signing import BadKey, Ed25519PrivateKey, key_id, private_key, public_key_text


def signing_key() -> Ed25519PrivateKey:
    """``EVIDENCE_SIGNING_KEY`` (settings/evidence.py); a checkpoint is never made unsigned."""
    text = settings.EVIDENCE_SIGNING_KEY
    if not text:
        raise ImproperlyConfigured("EVIDENCE_SIGNING_KEY is not set: no checkpoint can be signed.")
    try:
        return private_key(text)
    except BadKey as error:
        raise ImproperlyConfigured(f"EVIDENCE_SIGNING_KEY: {error}") from error


def known_keys() -> dict[str, str]:
    """Key id → "current" or "retired", for every key whose checkpoints this casino stands by."""
    keys = {}
    for text in settings.EVIDENCE_RETIRED_KEYS:
        try:
            keys[key_id(text)] = "retired"
        except BadKey:
            continue
    if settings.EVIDENCE_SIGNING_KEY:
        keys[key_id(public_key_text(signing_key()))] = "current"
    return keys
