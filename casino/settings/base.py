"""Settings shared by every environment; everything that varies comes from the environment.

This module holds core Django (apps, middleware, database, templates, auth, static files, API,
logging) and the floor's own settings, then takes in the other concerns, each its own module:
``security`` (client address, sign-in lockouts, CSP), ``audit`` (the end-of-night audit, CTR
and MTL), ``detection`` (the ``DETECTION`` thresholds) and ``celery`` (broker, sends, beat).
``local``, ``test`` and ``production`` start from this one.
"""

from datetime import timedelta

from casino.settings.environment import BASE_DIR, CASINO_TIME_ZONE, REDIS_URL, env

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

# PostgreSQL only: the ledger's invariants are enforced by its triggers.
DATABASES = {"default": env.db("DATABASE_URL", default="postgres://root@127.0.0.1:5432/casekeeper")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
# A database host that drops packets must not hold a request for the OS's connect timeout:
# after this many seconds the request answers 503 unavailable (casino.error_pages).
# A database host gone silent on a live connection (unacknowledged data) is given up after
# tcp_user_timeout, and an idle one is probed by keepalives, instead of the OS's minutes.
DATABASES["default"].setdefault("OPTIONS", {}).update(
    {
        "connect_timeout": env.int("DB_CONNECT_TIMEOUT", default=3),
        "tcp_user_timeout": env.int("DB_TCP_USER_TIMEOUT_MS", default=3000),
        "keepalives": 1,
        "keepalives_idle": 10,
        "keepalives_interval": 2,
        "keepalives_count": 3,
    }
)
# Parameters bound on the server, so that psycopg prepares a statement once a connection has
# run it more than DB_PREPARE_THRESHOLD times: the floor's few hot statements are then parsed
# and planned once per connection instead of on every tap. Set it empty behind a
# transaction-mode pooler, which cannot keep a session's prepared statements.
_PREPARE_THRESHOLD = env("DB_PREPARE_THRESHOLD", default="2")
if _PREPARE_THRESHOLD:
    DATABASES["default"]["OPTIONS"] |= {
        "server_side_binding": True,
        "prepare_threshold": int(_PREPARE_THRESHOLD),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A streaming replica of the primary (deploy/compose.yaml's db-replica): the audit's, detection's,
# reports' and ratings' reads go to it while it is at most REPLICA_MAX_LAG_SECONDS behind
# (casino.replica; lag measured at most every REPLICA_LAG_CHECK_SECONDS per process), else to the
# primary; writes never do. Unset: everything reads the primary.
REPLICA_DATABASE_URL = env("REPLICA_DATABASE_URL", default="")
REPLICA_MAX_LAG_SECONDS = env.float("REPLICA_MAX_LAG_SECONDS", default=5.0)
REPLICA_LAG_CHECK_SECONDS = env.float("REPLICA_LAG_CHECK_SECONDS", default=1.0)
if REPLICA_DATABASE_URL:
    DATABASES["replica"] = {
        **env.db_url_config(REPLICA_DATABASE_URL),
        "ATOMIC_REQUESTS": False,
        "CONN_MAX_AGE": DATABASES["default"]["CONN_MAX_AGE"],
        # A replica that has gone away must cost a report little: its reads then go to the primary.
        "OPTIONS": DATABASES["default"]["OPTIONS"]
        | {"connect_timeout": env.int("REPLICA_CONNECT_TIMEOUT", default=1)},
        "TEST": {"MIRROR": "default"},
    }
DATABASE_ROUTERS = ["casino.db_router.ReplicaRouter"]

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
    "drf_spectacular_sidecar",  # Swagger UI's files served from our static files (no CDN)
    "django_filters",
    "django_htmx",
    "axes",
    "ledger",
    "casino",
    "tables",
]

MIDDLEWARE = [
    "casino.client_address.ForwardedProtoMiddleware",  # first: X-Forwarded-Proto only from TRUSTED_PROXIES
    "casino.observability.request_id.RequestIdMiddleware",
    "casino.observability.metrics.MetricsMiddleware",
    "casino.error_pages.DatabaseUnavailableMiddleware",  # database down: 503, not 500
    "casino.api.caching.NoStoreApiMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "casino.nul_guard.NulRefusalMiddleware",  # NUL in a page's query or form: a 400 page, not a 500
    "axes.middleware.AxesMiddleware",  # last, as axes asks: turns a lockout into casino.login_guard's page
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
# The casino's own zone (casino.settings.environment) decides the gaming day; pages show times
# in it too unless TIME_ZONE says otherwise.
TIME_ZONE = env("TIME_ZONE", default=CASINO_TIME_ZONE)
# Rounds whose latest engine state each process keeps (tables.state_cache); 0 refolds every read.
ROUND_STATE_CACHE_SIZE = env.int("ROUND_STATE_CACHE_SIZE", default=512)
# The pit's shared floor (tables.console.pit.floor): a poll served a copy older than this many
# seconds has a worker render the next one; a copy is never served past one poll interval (5 s).
# Lower: fresher cards, more of the worker's CPU (bench/run-floor measures it).
PIT_FLOOR_REFRESH_SECONDS = env.float("PIT_FLOOR_REFRESH_SECONDS", default=2.5)
# How often a console screen polls (the pit's floor, the Faro bet form's chips), and how long a
# success receipt stays before it fades. Tests shorten both (casino/settings/test.py).
CONSOLE_POLL_SECONDS = env.int("CONSOLE_POLL_SECONDS", default=5)
RECEIPT_FADE_MS = env.int("RECEIPT_FADE_MS", default=6000)

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

LOGIN_URL = "/console/login/"

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="casekeeper"),
    }
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "casino.api.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "casino.api.openapi.CasekeeperAutoSchema",
    "EXCEPTION_HANDLER": "casino.api.exceptions.render_error",
    # DRF's parsers, refusing NUL in text and absurd nesting with a 400 (casino/api/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "casino.api.parsers.StrictJSONParser",
        "casino.api.parsers.StrictFormParser",
        "casino.api.parsers.StrictMultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "casino.api.pagination.NewestFirstCursorPagination",
    "PAGE_SIZE": 50,
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Casekeeper API",
    "DESCRIPTION": "Table games management and double-entry chip accounting. Amounts are integer cents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": True,  # api-contract-check (and API.md) want GET /api/v1/schema described too
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from drf-spectacular-sidecar's static files: the docs work with no internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # casino/converters.py: ids are canonical decimals; <player:> is such an id or "me".
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}},
    # Bodies are JSON (API.md); the form parsers stay for old clients but are not the contract.
    "PARSER_WHITELIST": ["casino.api.parsers.StrictJSONParser"],
    # The audit report's choice sets get their own schema names (``status`` and ``kind`` are common words).
    "ENUM_NAME_OVERRIDES": {
        "AuditStatusEnum": "tables.audit.models.AuditStatus",
        "AuditSeverityEnum": "tables.audit.report.SEVERITIES",
        "AuditCountStageEnum": "tables.audit.report.COUNT_STAGES",
        "AuditCashKindEnum": "tables.audit.report.CASH_KINDS",
        "AuditCashDirectionEnum": "tables.audit.report.CASH_DIRECTIONS",
        "AuditCorrectionStatusEnum": "tables.audit.report.CORRECTION_STATUSES",
        "AuditSlipKindEnum": "tables.audit.report.SLIP_KINDS",
        "AuditCreditBucketEnum": "tables.audit.report.CREDIT_BUCKETS",
        "SlipKindEnum": "tables.slips.models.SlipKind",
        "SlipStatusEnum": "tables.slips.models.SlipStatus",
        "DropBoxStatusEnum": "tables.drop.models.DropBoxStatus",
        "IdentificationKindEnum": "casino.cash.models.IdentificationKind",
        "AuditCashLineKindEnum": "tables.audit.report.CASH_LINE_KINDS",
    },
}

# Domain settings.
TOKEN_TTL = timedelta(hours=env.float("TOKEN_TTL_HOURS", default=12))
# How long a stored first response answers retries of its Idempotency-Key (or console form
# token); beat purges older ones hourly (casino.tasks.purge_idempotency_records_task).
IDEMPOTENCY_TTL = timedelta(hours=env.float("IDEMPOTENCY_TTL_HOURS", default=48))
COMP_RATE = env.float("COMP_RATE", default=0.25)  # comp points per cent of theoretical win

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

# The other concerns. Each reads casino.settings.environment (and the concerns it builds on),
# never this module, and no name is set in two places (tests/casino/test_settings.py), so the
# order is free.
from casino.settings.audit import *  # noqa: E402, F403
from casino.settings.books import *  # noqa: E402, F403
from casino.settings.celery import *  # noqa: E402, F403
from casino.settings.detection import *  # noqa: E402, F403
from casino.settings.environment import *  # noqa: E402, F403
from casino.settings.evidence import *  # noqa: E402, F403
from casino.settings.security import *  # noqa: E402, F403
