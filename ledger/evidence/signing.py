"""A checkpoint's signature: Ed25519 over the canonical bytes of the checkpoint without it.

A key is 32 raw bytes, written in base64. Its id is the first 32 hex digits of SHA-256 of the
raw public key, so anyone can tell which key signed from the public key the checkpoint carries,
and an auditor checks that id against the keys the casino published (docs/evidence.md, rotation).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from ledger.evidence.canonical import canonical_bytes

UNSIGNED = ("signature",)


class BadKey(ValueError):
    """A key that is not 32 bytes of base64."""


def _raw(text: str) -> bytes:
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadKey("an Ed25519 key is 32 bytes written in base64") from error
    if len(raw) != 32:
        raise BadKey("an Ed25519 key is 32 bytes written in base64")
    return raw


def private_key(text: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(_raw(text))


def public_key_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return base64.b64encode(public.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def key_id(public_text: str) -> str:
    return hashlib.sha256(_raw(public_text)).hexdigest()[:32]


def signed_bytes(document: Mapping[str, Any]) -> bytes:
    return canonical_bytes({name: value for name, value in document.items() if name not in UNSIGNED})


def sign(document: Mapping[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """The document with the signer's public key and id, and the signature over all of it."""
    public = public_key_text(key)
    signed = {**document, "key_id": key_id(public), "public_key": public}
    signed.pop("signature", None)
    signed["signature"] = base64.b64encode(key.sign(signed_bytes(signed))).decode()
    return signed


def signature_problem(document: Mapping[str, Any]) -> str | None:
    """Why the document's signature does not hold (None: it does, by the key it names)."""
    try:
        public_text = str(document["public_key"])
        if key_id(public_text) != document.get("key_id"):
            return "its key_id is not the id of the public key it carries"
        public = Ed25519PublicKey.from_public_bytes(_raw(public_text))
        signature = base64.b64decode(str(document["signature"]), validate=True)
        public.verify(signature, signed_bytes(document))
    except KeyError as missing:
        return f"it has no {missing.args[0]}"
    except (BadKey, binascii.Error, ValueError):
        return "its public key or signature is not valid base64 of the right length"
    except InvalidSignature:
        return "the signature does not match its contents"
    return None
