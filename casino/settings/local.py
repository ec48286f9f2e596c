"""Developer machine: DEBUG on, a random secret per run unless one is given."""

import secrets

from casino.settings.base import *  # noqa: F403
from casino.settings.base import env

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default=secrets.token_urlsafe(50))
