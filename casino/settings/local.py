"""Developer machine: DEBUG on, a random secret per run unless one is given."""

import secrets

from casino.settings.base import *  # noqa: F403
from casino.settings.base import env

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default=secrets.token_urlsafe(50))
# The demo's own checkpoint key (settings/evidence.py), fixed so that yesterday's checkpoint still
# verifies after a restart; never a real casino's.
EVIDENCE_SIGNING_KEY = env("EVIDENCE_SIGNING_KEY", default="NCBf7iY6EqArmJw4u9QkXL9MxWa0KLZYQhH4gFa9Pxk=")
