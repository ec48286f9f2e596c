"""Settings for the django-hordak side of the ledger benchmark (run only under .bench-venv).

The database comes from ``HORDAK_BENCH_DB_URL`` (``postgres://user@host:port/name``), the same
server as Casekeeper's bench database. DEBUG is off, as it is for the Casekeeper side.
"""

import os
from urllib.parse import unquote, urlsplit

_url = urlsplit(
    os.environ.get("HORDAK_BENCH_DB_URL", "postgres://root@127.0.0.1:5432/casekeeper_bench_hordak")
)

DEBUG = False
SECRET_KEY = "bench-only-not-a-secret"
USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "mptt",
    "djmoney",
    "hordak",
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": _url.path.lstrip("/"),
        "USER": unquote(_url.username or ""),
        "PASSWORD": unquote(_url.password or ""),
        "HOST": _url.hostname or "",
        "PORT": str(_url.port or ""),
        "CONN_MAX_AGE": 60,
    }
}
DEFAULT_CURRENCY = "EUR"
HORDAK_INTERNAL_CURRENCY = "EUR"
CURRENCIES = ["EUR"]
HORDAK_CURRENCIES = ["EUR"]
