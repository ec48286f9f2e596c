"""Evidence (docs/evidence.md): the key that signs each gaming day's checkpoint.

``EVIDENCE_SIGNING_KEY`` is an Ed25519 private key, 32 raw bytes in base64, from the environment;
``manage.py check --deploy`` refuses a deployment without it (tables/evidence/checks.py), and a day
cannot close unsigned. To rotate it, put the new key there and
add the old key's public half (base64) to ``EVIDENCE_RETIRED_KEYS`` (comma-separated): the
checkpoints it signed still verify, and the auditor's page names them as signed by a retired key.
"""

from casino.settings.environment import env

EVIDENCE_SIGNING_KEY = env("EVIDENCE_SIGNING_KEY", default="")
EVIDENCE_RETIRED_KEYS = env.list("EVIDENCE_RETIRED_KEYS", default=[])
