"""Settings shared by every environment; everything that varies comes from the environment."""

from datetime import timedelta
from pathlib import Path

import environ
from celery.schedules import crontab
from django.utils.csp import CSP

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
# A database host that drops packets must not hold a request for the OS's connect timeout:
# after this many seconds the request answers 503 unavailable (casino.error_pages).
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = env.int("DB_CONNECT_TIMEOUT", default=3)
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
    "axes",
    "ledger",
    "casino",
    "tables",
]

MIDDLEWARE = [
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
# The casino's own zone decides the gaming day; pages show times in it too unless TIME_ZONE says otherwise.
CASINO_TIME_ZONE = env("CASINO_TIME_ZONE", default="America/Los_Angeles")
TIME_ZONE = env("TIME_ZONE", default=CASINO_TIME_ZONE)
GAMING_DAY_ROLLOVER_HOUR = env.int("GAMING_DAY_ROLLOVER_HOUR", default=6)
# Rounds whose latest engine state each process keeps (tables.state_cache); 0 refolds every read.
ROUND_STATE_CACHE_SIZE = env.int("ROUND_STATE_CACHE_SIZE", default=512)

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
# Redis has no real acks: a task a worker took (acks_late) and never acknowledged, because the
# whole worker died, goes back to its queue once it has been out this many seconds (the next
# worker to start, or any worker's periodic sweep, restores it). Keep it above the longest task
# (the audit: above its hard time limit, AUDIT_TIME_LIMIT_SECONDS + AUDIT_TIME_LIMIT_GRACE_SECONDS;
# the system check tables.E001 refuses less); a redelivery of a task still running is harmless
# but wasted. Tests set it low.
# An audit whose lock is held (a twin delivery, or a dead worker's session not yet reaped)
# is retried after this many seconds instead of being acknowledged unrun.
AUDIT_BUSY_RETRY_SECONDS = env.int("AUDIT_BUSY_RETRY_SECONDS", default=20)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TRACK_STARTED = True
CELERY_RESULT_EXTENDED = True
# casino.task_sending: a send from a request or a commit hook gets one try whose sockets time
# out after this many seconds (connect, then publish), so a broker outage never holds it up.
TASK_SEND_TIMEOUT_SECONDS = env.float("TASK_SEND_TIMEOUT_SECONDS", default=0.2)
# The Redis result backend subscribes to a task's result as the task is sent (unless the send
# ignores the result) and, Redis down, retried 20 times a second apart: a 19 s wait. One quick
# retry and a short connect instead; casino.task_sending logs the failure.
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.1, "interval_max": 0.1}
}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = TASK_SEND_TIMEOUT_SECONDS
CELERY_TIMEZONE = CASINO_TIME_ZONE
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "time-rake": {"task": "tables.tasks.charge_time_rake_task", "schedule": 60.0},
    "expire-holds": {"task": "tables.tasks.expire_holds_task", "schedule": 300.0},
    "purge-expired-tokens": {"task": "casino.tasks.purge_expired_tokens_task", "schedule": 3600.0},
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
    # casino/converters.py: ids are canonical decimals; <player:> is such an id or "me".
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}},
    # Bodies are JSON (API.md); the form parsers stay for old clients but are not the contract.
    "PARSER_WHITELIST": ["casino.api.parsers.StrictJSONParser"],
}

# The client's address (casino/client_address.py): X-Forwarded-For is believed only from these
# proxies (addresses or CIDR networks, comma list). Empty: REMOTE_ADDR is the client.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])

# Sign-in brute-force protection on every path (API token, console, admin): django-axes with
# casino/login_guard.py's policy. Failures only count; a floor's dealers share one address, so
# it gets a larger allowance than one username. Lockouts double per further limit's worth.
LOGIN_FAILURES_PER_USERNAME = env.int("LOGIN_FAILURES_PER_USERNAME", default=5)
LOGIN_FAILURES_PER_ADDRESS = env.int("LOGIN_FAILURES_PER_ADDRESS", default=20)
LOGIN_LOCKOUT = timedelta(minutes=env.float("LOGIN_LOCKOUT_MINUTES", default=15))
LOGIN_LOCKOUT_MAX = timedelta(hours=env.float("LOGIN_LOCKOUT_MAX_HOURS", default=24))
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out client before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "casino.login_guard.LoginGuardHandler"  # PostgreSQL, not the cache: works without Redis
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one locks out on its own
AXES_FAILURE_LIMIT = LOGIN_FAILURES_PER_USERNAME  # the address's count is scaled to it (login_guard)
AXES_COOLOFF_TIME = "casino.login_guard.lockout_time"
AXES_USE_ATTEMPT_EXPIRATION = True  # each failure row expires on its own lockout time
AXES_CLIENT_IP_CALLABLE = "casino.client_address.client_address"
AXES_LOCKOUT_CALLABLE = "casino.login_guard.lockout_response"
AXES_RESET_ON_SUCCESS = False  # a success must not wash an address's failures (password spraying)
AXES_DISABLE_ACCESS_LOG = True  # a success writes nothing

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
# A run past this many seconds fails (soft limit, recorded on the report); the worker kills it
# GRACE seconds later. The broker's visibility_timeout must exceed both (check tables.E001).
AUDIT_TIME_LIMIT_SECONDS = env.int("AUDIT_TIME_LIMIT_SECONDS", default=1800)
AUDIT_TIME_LIMIT_GRACE_SECONDS = env.int("AUDIT_TIME_LIMIT_GRACE_SECONDS", default=60)
# A running audit writes heartbeat_at this often; one silent for AUDIT_STALE_SECONDS (several
# beats, check tables.E002) has lost its worker, and the sweep restarts it, at most
# AUDIT_MAX_RESTARTS times per close before marking it failed.
AUDIT_HEARTBEAT_SECONDS = env.float("AUDIT_HEARTBEAT_SECONDS", default=10.0)
AUDIT_STALE_SECONDS = env.float("AUDIT_STALE_SECONDS", default=60.0)
AUDIT_MAX_RESTARTS = env.int("AUDIT_MAX_RESTARTS", default=3)
# Beat: send what the broker never took (a close during an outage) and restart dead runs.
AUDIT_SWEEP_SECONDS = env.float("AUDIT_SWEEP_SECONDS", default=30.0)
CELERY_BEAT_SCHEDULE["audit-sweep"] = {
    "task": "tables.audit.tasks.sweep_audits_task",
    "schedule": AUDIT_SWEEP_SECONDS,
}
# The report's choice sets get their own schema names (``status`` and ``kind`` are common words).
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] = {
    **dict(SPECTACULAR_SETTINGS.get("ENUM_NAME_OVERRIDES") or {}),  # type: ignore[call-overload]
    "AuditStatusEnum": "tables.models.AuditStatus",
    "AuditSeverityEnum": "tables.audit.report.SEVERITIES",
    "AuditCountStageEnum": "tables.audit.report.COUNT_STAGES",
    "AuditCashKindEnum": "tables.audit.report.CASH_KINDS",
    "AuditCashDirectionEnum": "tables.audit.report.CASH_DIRECTIONS",
    "AuditCorrectionStatusEnum": "tables.audit.report.CORRECTION_STATUSES",
}
CELERY_BEAT_SCHEDULE["gaming-day-audit"] = {
    "task": "tables.audit.tasks.audit_previous_gaming_day_task",
    "schedule": crontab(
        hour=(GAMING_DAY_ROLLOVER_HOUR + AUDIT_MINUTES_AFTER_ROLLOVER // 60) % 24,
        minute=AUDIT_MINUTES_AFTER_ROLLOVER % 60,
    ),
}
COMP_RATE = env.float("COMP_RATE", default=0.25)  # comp points per cent of theoretical win
# Ratings sweep (tables.ratings.services.rate_unrated_rounds): settled rounds with no stats yet,
# whose task a broker outage lost. Rounds settled in the last GRACE seconds are left to their
# own task; only the last LOOKBACK hours are walked, at most BATCH rounds a run.
RATINGS_SWEEP_SECONDS = env.float("RATINGS_SWEEP_SECONDS", default=30.0)
RATINGS_SWEEP_GRACE_SECONDS = env.float("RATINGS_SWEEP_GRACE_SECONDS", default=15.0)
RATINGS_SWEEP_LOOKBACK_HOURS = env.float("RATINGS_SWEEP_LOOKBACK_HOURS", default=24.0)
RATINGS_SWEEP_BATCH = env.int("RATINGS_SWEEP_BATCH", default=500)
CELERY_BEAT_SCHEDULE["ratings-sweep"] = {
    "task": "tables.tasks.rate_unrated_rounds_task",
    "schedule": RATINGS_SWEEP_SECONDS,
    "options": {"expires": RATINGS_SWEEP_SECONDS},  # a run queued behind a stopped worker is dropped
}

# Cheating-pattern and AML detection (tables.detection; README there). Cents for amounts,
# z-scores and p-values for the statistical rules; every one can be overridden from the env.
CELERY_IMPORTS = [*CELERY_IMPORTS, "tables.detection.tasks"]
# Faro dealing integrity: a dealer's splits over the window against 25/17 per deal (sd 1.19).
DETECT_SPLIT_Z = env.float("DETECT_SPLIT_Z", default=3.0)
DETECT_SPLIT_MIN_DEALS = env.int("DETECT_SPLIT_MIN_DEALS", default=3)
DETECT_SPLIT_DEAL_MIN = env.int("DETECT_SPLIT_DEAL_MIN", default=7)  # one deal: P(>= 7) = 0.0006
# Hold: a table's or dealer's Faro win against its theoretical win, in standard deviations.
DETECT_HOLD_Z = env.float("DETECT_HOLD_Z", default=3.29)  # 99.9 % two-sided
DETECT_HOLD_MIN_HANDLE = env.int("DETECT_HOLD_MIN_HANDLE", default=100_000)
DETECT_HOLD_MIN_ROUNDS = env.int("DETECT_HOLD_MIN_ROUNDS", default=3)
DETECT_HOLD_TURNS_P = env.float("DETECT_HOLD_TURNS_P", default=0.0001)  # turn orders, each side
DETECT_HOLD_MIN_TURNS = env.int("DETECT_HOLD_MIN_TURNS", default=20)
# Collusion and chip dumping (pot and stakes games; Faro for dealer affinity and never-loses).
DETECT_FLOW_P = env.float("DETECT_FLOW_P", default=0.003)  # each side of the pair (by wins)
DETECT_FLOW_TOP_P = env.float("DETECT_FLOW_TOP_P", default=0.001)  # the largest payer (by amounts)
DETECT_FLOW_TOP_ELSEWHERE_P = env.float("DETECT_FLOW_TOP_ELSEWHERE_P", default=0.05)
DETECT_FLOW_MIN_ROUNDS = env.int("DETECT_FLOW_MIN_ROUNDS", default=6)
DETECT_FLOW_MAX_REVERSE = env.float("DETECT_FLOW_MAX_REVERSE", default=0.2)
DETECT_FLOW_MIN_AMOUNT = env.int("DETECT_FLOW_MIN_AMOUNT", default=1_000)
DETECT_AFFINITY_P = env.float("DETECT_AFFINITY_P", default=0.0001)
DETECT_AFFINITY_ELSEWHERE_P = env.float("DETECT_AFFINITY_ELSEWHERE_P", default=0.01)
DETECT_AFFINITY_MIN_ROUNDS = env.int("DETECT_AFFINITY_MIN_ROUNDS", default=6)
DETECT_AFFINITY_MIN_OTHER_ROUNDS = env.int("DETECT_AFFINITY_MIN_OTHER_ROUNDS", default=3)
DETECT_NEVER_LOSES_P = env.float("DETECT_NEVER_LOSES_P", default=0.0001)
DETECT_NEVER_LOSES_MIN_ROUNDS = env.int("DETECT_NEVER_LOSES_MIN_ROUNDS", default=6)
# Betting limits.
DETECT_LIMIT_REFUSALS = env.int("DETECT_LIMIT_REFUSALS", default=3)
DETECT_UNDER_MAX_RATIO = env.float("DETECT_UNDER_MAX_RATIO", default=0.9)
DETECT_UNDER_MAX_MIN_BETS = env.int("DETECT_UNDER_MAX_MIN_BETS", default=4)
DETECT_UNDER_MAX_MIN_TABLES = env.int("DETECT_UNDER_MAX_MIN_TABLES", default=2)
# Fills and credits.
DETECT_FILL_NEED_RATIO = env.float("DETECT_FILL_NEED_RATIO", default=0.5)  # tray / opening count
DETECT_FILL_PAIR_MIN = env.int("DETECT_FILL_PAIR_MIN", default=3)
DETECT_FILL_PAIR_SHARE = env.float("DETECT_FILL_PAIR_SHARE", default=0.75)
DETECT_FILL_PAIR_DAYS = env.int("DETECT_FILL_PAIR_DAYS", default=7)
DETECT_CREDIT_CLOSE_MIN = env.int("DETECT_CREDIT_CLOSE_MIN", default=100_000)
DETECT_SHORT_COUNT = env.int("DETECT_SHORT_COUNT", default=AUDIT_VARIANCE_THRESHOLD)
# AML (CTR_THRESHOLD above is the reporting line).
DETECT_STRUCTURING_LOW = env.float("DETECT_STRUCTURING_LOW", default=0.8)  # share of the CTR line
DETECT_STRUCTURING_MIN_COUNT = env.int("DETECT_STRUCTURING_MIN_COUNT", default=2)
DETECT_STRUCTURING_DAYS = env.int("DETECT_STRUCTURING_DAYS", default=2)
DETECT_MINPLAY_MIN_CASH_OUT = env.int("DETECT_MINPLAY_MIN_CASH_OUT", default=500_000)
DETECT_MINPLAY_RATIO = env.float("DETECT_MINPLAY_RATIO", default=0.1)  # handle / cash-out
DETECT_WALK_MIN_BUY_IN = env.int("DETECT_WALK_MIN_BUY_IN", default=500_000)
DETECT_WALK_PLAY_RATIO = env.float("DETECT_WALK_PLAY_RATIO", default=0.25)  # handle / buy-in
DETECT_WALK_UNREDEEMED_RATIO = env.float("DETECT_WALK_UNREDEEMED_RATIO", default=0.5)
# Beat: the day that just ended, after its audit; and the day in progress every few minutes.
DETECT_MINUTES_AFTER_ROLLOVER = env.int("DETECT_MINUTES_AFTER_ROLLOVER", default=45)
DETECT_LIVE_MINUTES = env.int("DETECT_LIVE_MINUTES", default=15)  # 0: no live runs
CELERY_BEAT_SCHEDULE["gaming-day-detection"] = {
    "task": "tables.detection.tasks.detect_previous_gaming_day_task",
    "schedule": crontab(
        hour=(GAMING_DAY_ROLLOVER_HOUR + DETECT_MINUTES_AFTER_ROLLOVER // 60) % 24,
        minute=DETECT_MINUTES_AFTER_ROLLOVER % 60,
    ),
}
if DETECT_LIVE_MINUTES:
    CELERY_BEAT_SCHEDULE["live-detection"] = {
        "task": "tables.detection.tasks.detect_live_task",
        "schedule": DETECT_LIVE_MINUTES * 60.0,
    }

# Content-Security-Policy (Django's own middleware) on every page: the console, the pit, the
# audit pages and the admin run scripts and styles from our static files only, no inline
# <script>, no on*= handlers, no eval (htmx is configured without it in console/base.html).
# Inline style *attributes* stay allowed (style-src-attr): the Faro layout places each chip
# and colours each seat per element; <style> blocks are refused. The Swagger UI at
# /api/v1/docs needs its inline script and CDN: casino/api/urls.py gives it DOCS_CSP.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "style-src-attr": [CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
