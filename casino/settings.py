"""Settings, all from the environment, with embedded defaults for a laptop.

Without any variable set the product runs on SQLite with an in-memory channel layer and
in-process timers (``make run``). ``DATABASE_URL`` switches to PostgreSQL (psycopg 3),
``REDIS_URL`` to Redis for the channel layer, the Celery broker and the cache (rate
limits). ``DEBUG=0`` is production: it refuses to start without a real secret key and
allowed hosts, and turns on secure cookies, HSTS and SSL redirects.
"""

import hashlib
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

from casino import intervals

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=True)

_DEV_SECRET = "dev-only-insecure-secret-key-change-me-in-production-0123456789"
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET if DEBUG else "")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else [])
if not DEBUG:
    if not SECRET_KEY or SECRET_KEY == _DEV_SECRET or len(SECRET_KEY) < 50:
        raise ImproperlyConfigured("DEBUG=0 needs SECRET_KEY (50+ characters) in the environment")
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured("DEBUG=0 needs ALLOWED_HOSTS in the environment")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The site's name, wherever a person reads it: the pages' header and titles, the admin, the
# authenticator app's entry (casino.context_processors.site gives it to every template).
CASINO_SITE_NAME = env.str("CASINO_SITE_NAME", default="Stud Casino")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from this site (/api/docs/)
    "channels",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "casino",
    "wallets",
    "jackpot",
    "tables",
    "poker",
    "backoffice",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "casino.i18n.BrowserLanguageMiddleware",  # LocaleMiddleware: the browser's language (cookie, Accept-Language)
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "casino.i18n.UserLanguageMiddleware",  # a signed-in person's language, from their preferences
    "casino.http.api.one_value_per_parameter",  # ?limit=5&limit=500 under /api/: 400, not the last read
    "casino.access.security.NoStoreMiddleware",  # every answer to a signed-in person: no-store
    "django_otp.middleware.OTPMiddleware",
    "casino.access.security.StaffOTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out sign-in into its page
]

# Static files from the application itself, under any server (daphne serves none): in
# DEBUG straight from the source folders, in production from `collectstatic`'s STATIC_ROOT.
MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"
ASGI_APPLICATION = "casino.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "casino.access.policy.policy_context",
                "casino.context_processors.site",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One writer at a time; wait for the lock instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
else:
    # No persistent connections (Django's advice under ASGI, where every request has a
    # connection object of its own): each process keeps a bounded psycopg pool instead,
    # and a request or a database job returns its connection to the pool when it ends.
    # A process never holds more than DB_POOL_MAX_SIZE connections; one that needs more
    # waits up to DB_POOL_TIMEOUT seconds for one, then fails that request.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env.int("DB_POOL_MIN_SIZE", default=1),
        "max_size": env.int("DB_POOL_MAX_SIZE", default=8),
        "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
        "max_idle": 300.0,
    }
    # The pool checks a connection before handing it out: with health checks on, Django
    # gives the pool psycopg_pool's check_connection (an empty query, one round trip,
    # ~80 us on a local server; a "check" among the pool options would be passed twice).
    # A connection killed while it waited in the pool (a restart, pg_terminate_backend, a
    # failover) is then replaced instead of failing the request that drew it.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # No JIT compilation: PostgreSQL compiles a statement whose estimated cost passes
    # jit_above_cost, and the casino's statements are short. Measured on bench_history's
    # casino (210,000 legs): a day's ledger rollup 83 ms with JIT, 10 ms without; a pool
    # reconciled from every leg 133 ms / 77 ms; the report over every hand 791 / 732 ms.
    if not env.bool("DB_JIT", default=False):
        options = DATABASES["default"].setdefault("OPTIONS", {})
        options["options"] = f"{options.get('options', '')} -c jit=off".strip()
    # No parallel workers either: the pages read small index ranges, but on a long ledger
    # the planner's estimate for "since this morning" grows and it starts two workers for
    # them. Measured on bench_history's casino (10 M legs): the reports' two open-day
    # statements 12.7 and 16.9 ms with workers (their start-up), 0.4 and 1.2 ms without.
    # (Cursors, which the exports and the full verification read through, never use them.)
    if not env.bool("DB_PARALLEL", default=False):
        options = DATABASES["default"].setdefault("OPTIONS", {})
        options["options"] = f"{options.get('options', '')} -c max_parallel_workers_per_gather=0".strip()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The lockout backend first: it refuses a locked-out username+IP before any password check.
AUTHENTICATION_BACKENDS = [
    "casino.access.security.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# English and German (Django's i18n): the browser chooses (Accept-Language, the language
# cookie set by the switcher on every page); a signed-in person's choice is kept on their
# preferences (casino.i18n). Catalogs in locale/, compiled by `make run`/`make test`.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates and numbers as each language writes them (casino/formats/<lang>/formats.py).
FORMAT_MODULE_PATH = ["casino.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
# Files the product writes (auditors' exports). Web and worker processes must share it.
MEDIA_ROOT = env.path("MEDIA_ROOT", default=BASE_DIR / "media")
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# --- The casino -------------------------------------------------------------------------
CASINO_CURRENCY = env.str("CASINO_CURRENCY", default="EUR")
# Deposits and withdrawals above this (cents) wait for a second staff member's approval.
CASHIER_APPROVAL_THRESHOLD = env.int("CASHIER_APPROVAL_THRESHOLD", default=100_000)
# Play actions per player (sit, leave, bet, fold, raise; REST and the table's websocket
# share one budget), "N/period" ("120/min", "5/s"): N at once, then one every period/N
# seconds, and never a wait above one second (casino.access.security.play_rate_take), so a
# refused action can be retried well within the shortest time to act (3 s). The default
# covers four tables at the fastest settings (3 s windows: 8 actions per 6 s) for good.
# Empty turns the limit off (benchmarks).
CASINO_PLAY_RATE = env.str("CASINO_PLAY_RATE", default="120/min")
# When a poker hand's server seed reaches its players (SPEC B4, "Seed reveal"): this many
# seconds after the hand ended (a revealed seed recomputes the folded and mucked cards).
# Auditors see it at once. Never below zero: the seed is never revealed before the hand ends.
_POKER_SEED_REVEAL_SECONDS = env.int("POKER_SEED_REVEAL_DELAY", default=24 * 3600)
if _POKER_SEED_REVEAL_SECONDS < 0:
    raise ImproperlyConfigured("POKER_SEED_REVEAL_DELAY is a number of seconds, 0 or more")
POKER_SEED_REVEAL_DELAY = timedelta(seconds=_POKER_SEED_REVEAL_SECONDS)
# Key of the ledger's row MACs (wallets.integrity); keep it apart from SECRET_KEY in production.
LEDGER_MAC_KEY = env.str("LEDGER_MAC_KEY", default=hashlib.sha256(f"ledger-mac:{SECRET_KEY}".encode()).hexdigest())

# --- REST API ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # First, so that a call without credentials is 401 with WWW-Authenticate: Token.
        # A token is one factor: refused for staff who have turned on two-factor sign-in.
        "casino.access.security.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "casino.http.parsers.DecimalJSONParser",
        "casino.http.parsers.OneValueFormParser",
        "casino.http.parsers.OneValueMultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "casino.http.pagination.CursorPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "casino.http.api.exception_handler",
    "COERCE_DECIMAL_TO_STRING": True,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Only the play endpoints (sit, leave, bet, fold, raise) are throttled: CASINO_PLAY_RATE.
    "DEFAULT_THROTTLE_CLASSES": ["casino.access.security.PlayThrottle"],
}
# An API token works for this long after it was issued (then: 401 token_expired; signing
# in again issues a new one); DELETE /api/auth/token/ revokes it at once.
API_TOKEN_LIFETIME = timedelta(days=env.int("API_TOKEN_LIFETIME_DAYS", default=30))
# Sign-up attempts (successful or not) per client address and per e-mail address, "N/period";
# beyond either: a 429 page. A registered address is never refused as such (no tell-tale).
SIGNUP_RATE_PER_IP = env.str("SIGNUP_RATE_PER_IP", default="10/hour")
SIGNUP_RATE_PER_EMAIL = env.str("SIGNUP_RATE_PER_EMAIL", default="3/day")
SPECTACULAR_SETTINGS = {
    "TITLE": f"{CASINO_SITE_NAME} table service",
    "DESCRIPTION": (
        "Lobby, seats, bets, decisions, hands, wallets. Amounts are decimal strings in the "
        "deployment's currency.\n\n"
        "- **Sign-in**: a session, or `Authorization: Token …` from `POST /api/auth/token/` (it "
        "expires after `expires_at`; `DELETE /api/auth/token/` revokes it). Without credentials: "
        "401 with `WWW-Authenticate: Token`.\n"
        "- **Errors** are always `{code, message, extra}` with a 4xx/5xx status; a refused body "
        "names each field's code in `extra.codes` (`seat_invalid`, `ante_required`).\n"
        "- **Retries**: send an `Idempotency-Key` with every POST; a retry gets the first answer, "
        "byte for byte.\n"
        "- **Playing without polling**: hand answers carry `turn` (who must act until when), "
        "`allowed_actions`, `next_hand` once settled, `server_time`; bets and decisions carry the "
        "wallet.\n"
        "- **Rate**: play actions share one budget per player with the websocket; a 429 says "
        "`Retry-After` (never longer than the time to act). 503 `cache_unavailable`: retry.\n"
        "- **Lists**: `limit` is 1 to `max_limit` (a larger one is a 400 `limit_too_large`)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Schema lint is not a deployment check: `manage.py spectacular --validate` runs it.
    "ENABLE_DJANGO_DEPLOY_CHECK": False,
    # Swagger UI from drf-spectacular-sidecar's static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # OpenAPI 3.1: its schemas are JSON Schema (null as a type), so live responses can be
    # validated against them as they are (tests/tables/test_api_schema.py).
    "OAS_VERSION": "3.1.0",
    "ENUM_NAME_OVERRIDES": {
        "HandStateEnum": "tables.models.Hand.State",
        "TransactionKindEnum": "wallets.models.Transaction.Kind",
        "GamingLimitKindEnum": "wallets.models.GamingLimit.Kind",
        "FoldOrRaiseEnum": ["fold", "raise"],
        "CashRequestKindEnum": "wallets.models.CashRequest.Kind",
        "CashRequestStatusEnum": "wallets.models.CashRequest.Status",
        "PokerHandStateEnum": "poker.models.PokerHand.State",
        "PokerGameEnum": ["five_stud", "soko", "seven_stud"],
        "PokerActionEnum": ["all_in", "bet", "bring_in", "call", "check", "complete", "fold", "raise"],
        "PokerPreactionEnum": ["call", "call_any", "check", "check_fold", "fold"],
        "ExportFormatEnum": "backoffice.models.ExportJob.Format",
        "LedgerExportFormatEnum": ["csv", "jsonl"],
    },
    # Every operation lists the errors every endpoint can give, in the one error shape.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "casino.http.api.schema_postprocess"],
}

# --- Channels and Celery ----------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
CHANNEL_LAYER = env.str("CHANNEL_LAYER", default="pubsub")


def channel_layers(redis_url: str, kind: str) -> dict:
    """CHANNEL_LAYERS for a Redis URL (none: in memory) and CHANNEL_LAYER's kind."""
    if kind not in ("pubsub", "lists"):
        raise ImproperlyConfigured(f"CHANNEL_LAYER is 'pubsub' or 'lists', not {kind!r}")
    if not redis_url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1000}}}
    if kind == "pubsub":
        # Redis pub/sub: a group message is one PUBLISH, which each server process receives
        # once and hands to its own sockets in memory; table events are live or worthless, so
        # its at-most-once delivery is what they need (a reconnect gets a snapshot). The
        # list-based layer (CHANNEL_LAYER=lists) costs a Redis round trip per member.
        # Pub/sub channels ignore Redis's database number: the prefix carries it, so that
        # deployments on different databases of one Redis never hear each other's tables.
        database = urlsplit(redis_url).path.strip("/") or "0"
        return {
            "default": {
                "BACKEND": "casino.live.layers.PubSubChannelLayer",  # + group_send_many
                "CONFIG": {"hosts": [redis_url], "prefix": f"asgi:db{database}:"},
            }
        }
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py's default 5 s socket timeout equals channels_redis's 5 s blocking
                # read: a quiet socket would be dropped. A pool that waits, not one that fails.
                "hosts": [{"address": redis_url, "socket_timeout": 30, "max_connections": 1000}],
                "capacity": 1000,
            },
        }
    }


CHANNEL_LAYERS = channel_layers(REDIS_URL, CHANNEL_LAYER)

# The cache holds the API rate-limit counters: shared through Redis when there is one.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Without a broker (make run) tasks run in the web process; with REDIS_URL, on workers.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not REDIS_URL)
# A broker outage is waited out, at start-up and later, for as long as it lasts; the
# sweeper then enforces every deadline that passed meanwhile (tests/tables/test_redis_outage.py).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A lost broker connection: its tasks' channel is closed, then it is let go, never closed
# after (casino.celery.Consumer); closed after, it crashed a worker holding countdowns on Redis.
CELERY_WORKER_CONSUMER = "casino.celery:Consumer"
CELERY_BEAT_SCHEDULE = {
    # Each run expires when the next is due: after an outage one sweep catches up, not a backlog.
    "sweep-deadlines": {
        "task": "casino.live.tasks.sweep_deadlines",
        "schedule": intervals.DEADLINE_SWEEP_BEAT_EVERY,
        "options": {"expires": intervals.DEADLINE_SWEEP_BEAT_EVERY},
    },
    "seal-ledger": {
        "task": "wallets.tasks.seal_ledger",
        "schedule": intervals.SEAL_EVERY,
        "options": {"expires": intervals.SEAL_EVERY},
    },
    "broadcast-meters": {
        "task": "tables.tasks.broadcast_meters",
        "schedule": intervals.METERS_EVERY,
        "options": {"expires": intervals.METERS_EVERY},
    },
    "sweep-exports": {"task": "backoffice.tasks.sweep_exports", "schedule": intervals.EXPORTS_SWEEP_EVERY},
    "checkpoint-ledger": {
        "task": "wallets.tasks.checkpoint_ledger",
        "schedule": intervals.CHECKPOINT_EVERY,
        "options": {"expires": intervals.CHECKPOINT_EVERY},
    },
    "close-days": {
        "task": "backoffice.tasks.close_days",
        "schedule": intervals.CLOSE_DAYS_EVERY,
        "options": {"expires": intervals.CLOSE_DAYS_EVERY},
    },
}
# Deadlines: "celery" sends a countdown task per deadline a hand still waits for, shortly
# before it (workers run them; beat runs the sweeper, which sends most of them:
# casino.live.deadlines); "local" relies on the periodic loop (casino.live.periodic) alone.
CASINO_TIMERS = env.str("CASINO_TIMERS", default="celery" if REDIS_URL else "local")
# The periodic work (deadlines, meters, seal) inside the web server process. Needed, and
# on by default, with the in-memory channel layer (no REDIS_URL): its events reach only
# the sockets of the process that sends them. With Redis, beat (or run_periodic) does it.
CASINO_PERIODIC_IN_SERVER = env.bool("CASINO_PERIODIC_IN_SERVER", default=not REDIS_URL)
# The demo (make run): the regulars load_demo seats at the poker tables are played by the
# stud engine's bots, at a human pace, topped up between hands (poker.demo_bots), by the
# server's periodic work. Development only: production settings (DEBUG=0) refuse it.
POKER_DEMO_BOTS = env.bool("POKER_DEMO_BOTS", default=DEBUG)
if POKER_DEMO_BOTS and not DEBUG:
    raise ImproperlyConfigured("POKER_DEMO_BOTS is for the demo (make run, DEBUG on), never for production")

# --- Sign-in: lockout (django-axes) and two-factor (django-otp) ----------------------------
# After AXES_FAILURE_LIMIT failed sign-ins for one username from one IP address, that pair
# is refused for AXES_COOLOFF_TIME, right password or not; a success resets the count.
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=30))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "casino.access.security.lockout_response"
AXES_VERBOSE = False
# The address a lockout counts by: REMOTE_ADDR, or behind a reverse proxy the request
# header it sets (e.g. CLIENT_IP_HEADER=HTTP_X_REAL_IP; only where the proxy overwrites it).
CLIENT_IP_HEADER = env.str("CLIENT_IP_HEADER", default="")
AXES_CLIENT_IP_CALLABLE = "casino.access.security.client_ip"
# Staff who confirmed a TOTP device enter its code after the password (casino.access.security).
OTP_TOTP_ISSUER = env.str("OTP_TOTP_ISSUER", default=CASINO_SITE_NAME)

# --- Headers and cookies ----------------------------------------------------------------
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"  # the page scripts read it (X-CSRFToken), so not HttpOnly
CSRF_FAILURE_VIEW = "casino.http.api.api_csrf_failure"  # JSON under /api/, the page elsewhere
# Scripts, styles and everything else from this site only: no inline script, no framing.
# The Swagger page (/api/docs/) too: its viewer and its start script are files of this site.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# --- Production hardening (DEBUG=0) -------------------------------------------------------
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=12 * 3600)
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["upgrade-insecure-requests"] = True
    # collectstatic names each file by its content's hash (casino/staticfiles.py).
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "casino.staticfiles.HashedStaticFiles"},
    }

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Django's own loggers write through the root's console alone: Django's default console
    # handler on "django" printed each of them a second time (every request line of the
    # development server, which Daphne logs to "django.channels.server", came out twice).
    "loggers": {"django": {"handlers": [], "level": LOG_LEVEL, "propagate": True}},
}
