"""What is stored of a bearer token: its SHA-256 digest, so a database leak reveals no token.

Below both the service that issues tokens and the authentication that checks them.
"""

from __future__ import annotations

import hashlib


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()
