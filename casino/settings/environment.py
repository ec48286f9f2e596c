"""Where settings come from (the environment), and the few values several setting modules read.

Every other settings module imports from here, never from ``base``, so none of them depends
on the order ``base`` assembles them in.
"""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
if env.bool("DJANGO_READ_DOT_ENV_FILE", default=False):
    env.read_env(str(BASE_DIR / ".env"))

# The cache, and by default Celery's broker and results.
REDIS_URL = env("REDIS_URL", default="redis://127.0.0.1:6379/0")

# The casino's own zone decides the gaming day; pages show times in it too unless TIME_ZONE says
# otherwise. Beat's end-of-day runs are timed from the rollover hour.
CASINO_TIME_ZONE = env("CASINO_TIME_ZONE", default="America/Los_Angeles")
GAMING_DAY_ROLLOVER_HOUR = env.int("GAMING_DAY_ROLLOVER_HOUR", default=6)
