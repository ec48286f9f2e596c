"""Settings shared by every environment; everything that varies comes from the environment."""

from datetime import timedelta
from pathlib import Path

import environ
from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
if env.bool("DJANGO_READ_DOT_ENV_FILE", default=False):
    env.read_env(str(BASE_DIR / ".env"))

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

# PostgreSQL only: the ledger's invariants are enforced by its triggers.
DATABASES = {"default": env.db("DATABASE_URL", default="postgres://root@127.0.0.1:5432/casekeeper")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "django_filters",
    "django_htmx",
    "ledger",
    "casino",
    "tables",
]

MIDDLEWARE = [
    "casino.observability.request_id.RequestIdMiddleware",
    "casino.observability.metrics.MetricsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
USE_I18N = True
USE_TZ = True
# The casino's own zone decides the gaming day; pages show times in it too unless TIME_ZONE says otherwise.
CASINO_TIME_ZONE = env("CASINO_TIME_ZONE", default="America/Los_Angeles")
TIME_ZONE = env("TIME_ZONE", default=CASINO_TIME_ZONE)
GAMING_DAY_ROLLOVER_HOUR = env.int("GAMING_DAY_ROLLOVER_HOUR", default=6)

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "/console/login/"

REDIS_URL = env("REDIS_URL", default="redis://127.0.0.1:6379/0")
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="casekeeper"),
    }
}

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=REDIS_URL)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TRACK_STARTED = True
CELERY_RESULT_EXTENDED = True
CELERY_TIMEZONE = CASINO_TIME_ZONE
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "time-rake": {"task": "tables.tasks.charge_time_rake_task", "schedule": 60.0},
    "expire-holds": {"task": "tables.tasks.expire_holds_task", "schedule": 300.0},
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "casino.api.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "casino.api.openapi.CasekeeperAutoSchema",
    "EXCEPTION_HANDLER": "casino.api.exceptions.render_error",
    "DEFAULT_PAGINATION_CLASS": "casino.api.pagination.NewestFirstCursorPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_RATES": {"token": env("TOKEN_THROTTLE_RATE", default="20/min")},
    # Throttles key on the client's address. Trust X-Forwarded-For only as far as our own
    # proxies go; otherwise a client evades the token rate limit with a made-up header.
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Casekeeper API",
    "DESCRIPTION": "Table games management and double-entry chip accounting. Amounts are integer cents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": True,  # api-contract-check (and API.md) want GET /api/v1/schema described too
    "COMPONENT_SPLIT_REQUEST": True,
}

# Domain settings.
TOKEN_TTL = timedelta(hours=env.float("TOKEN_TTL_HOURS", default=12))
IDEMPOTENCY_TTL = timedelta(hours=env.float("IDEMPOTENCY_TTL_HOURS", default=48))

# Structured logs: one JSON object per line with the request id (LOG_FORMAT=text for humans).
LOG_FORMAT = env("LOG_FORMAT", default="json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "casino.observability.request_id.RequestIdLogFilter"}},
    "formatters": {
        "json": {"()": "casino.observability.json_logs.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["request_id"], "formatter": LOG_FORMAT},
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django.request": {"level": env("DJANGO_REQUEST_LOG_LEVEL", default="ERROR")}},
}
AUTH_USER_MODEL = "casino.User"

# End-of-night audit (tables.audit). Amounts in cents; every threshold is strict ("above").
AUDIT_VARIANCE_THRESHOLD = env.int("AUDIT_VARIANCE_THRESHOLD", default=2500)  # count vs ledger, $25
CTR_THRESHOLD = env.int("CTR_THRESHOLD", default=1_000_000)  # cash in or out per player per day, $10,000
MTL_THRESHOLD = env.int("MTL_THRESHOLD", default=300_000)  # one cash transaction, $3,000
CELERY_IMPORTS = ["tables.audit.tasks"]  # not an app's tasks.py, so autodiscovery would miss it
# Queue for the audit task; empty = Celery's default queue (a dedicated worker may take "audit").
AUDIT_QUEUE = env("AUDIT_QUEUE", default="")
# Beat closes and audits the gaming day that just ended this many minutes after the rollover.
AUDIT_MINUTES_AFTER_ROLLOVER = env.int("AUDIT_MINUTES_AFTER_ROLLOVER", default=15)
CELERY_BEAT_SCHEDULE["gaming-day-audit"] = {
    "task": "tables.audit.tasks.audit_previous_gaming_day_task",
    "schedule": crontab(
        hour=(GAMING_DAY_ROLLOVER_HOUR + AUDIT_MINUTES_AFTER_ROLLOVER // 60) % 24,
        minute=AUDIT_MINUTES_AFTER_ROLLOVER % 60,
    ),
}
COMP_RATE = env.float("COMP_RATE", default=0.25)  # comp points per cent of theoretical win
