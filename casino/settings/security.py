"""Who the client is, who may read /metrics, sign-in lockouts (django-axes) and the CSP.

Production's cookie, HSTS and TLS settings are in ``production.py``; the API's no-store
header is ``casino.api.caching.NoStoreApiMiddleware`` (in ``base.MIDDLEWARE``).
"""

from datetime import timedelta

from django.utils.csp import CSP

from casino.settings.environment import env

# The client's address (casino/client_address.py): X-Forwarded-For is believed only from these
# proxies (addresses or CIDR networks, comma list). Empty: REMOTE_ADDR is the client.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])

# Who may read /metrics (casino/observability/metrics.py): the bearer of METRICS_TOKEN (empty:
# no token is accepted), or a client at one of these addresses or CIDR networks.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
METRICS_ALLOWED_ADDRESSES = env.list("METRICS_ALLOWED_ADDRESSES", default=["127.0.0.1", "::1"])

# Sign-in brute-force protection on every path (API token, console, admin): django-axes with
# casino/login_guard.py's policy. Failures count per account only (a floor's dealers share one
# address, so an address is never locked out); an admin or a pit boss can unlock an account in
# the admin. Lockouts double per further limit's worth of failures, at most LOGIN_LOCKOUT_MAX.
LOGIN_FAILURES_PER_USERNAME = env.int("LOGIN_FAILURES_PER_USERNAME", default=5)
LOGIN_LOCKOUT = timedelta(minutes=env.float("LOGIN_LOCKOUT_MINUTES", default=15))
LOGIN_LOCKOUT_MAX = timedelta(hours=env.float("LOGIN_LOCKOUT_MAX_HOURS", default=1))
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out client before any password check
    "casino.request_user.UserBackend",  # Django's ModelBackend, the session's user read in plain SQL
    "casino.admin_access.RoleAdminPermissions",  # permissions only (authenticates no one)
]
# Django's database sessions, the row a request loads read in plain SQL (casino/request_user.py).
SESSION_ENGINE = "casino.request_user"
AXES_HANDLER = "casino.login_guard.LoginGuardHandler"  # PostgreSQL, not the cache: works without Redis
AXES_LOCKOUT_PARAMETERS = ["username"]  # never the address: one typist must not lock out a floor
# axes warns when the address is not a lockout parameter; leaving it out is the policy above.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
AXES_FAILURE_LIMIT = LOGIN_FAILURES_PER_USERNAME
AXES_COOLOFF_TIME = "casino.login_guard.lockout_time"
AXES_USE_ATTEMPT_EXPIRATION = True  # each failure row expires on its own lockout time
AXES_CLIENT_IP_CALLABLE = "casino.client_address.client_address"
AXES_LOCKOUT_CALLABLE = "casino.login_guard.lockout_response"
AXES_RESET_ON_SUCCESS = False  # a success erases nothing: the owner signing in gives a guesser no fresh tries
AXES_DISABLE_ACCESS_LOG = True  # a success writes nothing

# Content-Security-Policy (Django's own middleware) on every page: the console, the pit, the
# audit pages and the admin run scripts and styles from our static files only, no inline
# <script>, no on*= handlers, no eval (htmx is configured without it in console/base.html).
# Inline style *attributes* stay allowed (style-src-attr): the Faro layout places each chip
# and colours each seat per element; <style> blocks are refused. The Swagger UI at
# /api/v1/docs (served from drf-spectacular-sidecar, no CDN) needs its inline <style>:
# casino/api/docs.py gives it that one addition.
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
