"""Django settings, read from the environment.

One module for every environment. The embedded default (no variable set but
``DJANGO_DEBUG=1``) is SQLite under ``var/`` and Celery's filesystem broker, so the
project runs on a laptop with no services. Production sets ``DATABASE_URL``
(PostgreSQL), ``CELERY_BROKER_URL`` (Redis), ``DJANGO_SECRET_KEY``,
``DJANGO_ALLOWED_HOSTS`` and leaves ``DJANGO_DEBUG`` unset or ``0``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from config.csp import SITE_POLICY

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("LEAGUE_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable ("1", "true", "yes", "on" are true)."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    """Read a comma-separated environment variable into a list of non-empty items."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG", default=False)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is not set. Set it (a long random string) in production, "
            "or set DJANGO_DEBUG=1 for local development."
        )
    # Only ever used with DEBUG on: never a production key.
    SECRET_KEY = "django-insecure-local-development-only-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    # The admin without its discovery at start-up: config/admin.py.
    "config.admin.LazyAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "axes",
    "corsheaders",
    "league",
    "ratings",
    "ratings.backtest",
    "notifications",
    "web",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before anything that can answer on its own (WhiteNoise, CommonMiddleware's redirects),
    # so that every API response to an allowed origin carries its CORS headers.
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before CommonMiddleware (Django's documented place): it activates
    # the language of the request and adds Content-Language and Vary: Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication (it reads the account's language) and before any view: it settles
    # the language once the URL names a league, whose default applies when the visitor
    # expressed no preference (config/language.py).
    "config.language.LeagueLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A view's database outage becomes 503 with Retry-After (config/db_outage.py; handler500
    # answers one raised by a middleware). Its place is irrelevant: no other middleware
    # handles a view's exceptions.
    "config.db_outage.DatabaseOutageMiddleware",
    # Last, as django-axes requires: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]
# Seconds a client is asked to wait (Retry-After) when the database cannot be reached.
DB_RETRY_AFTER_SECONDS = int(os.environ.get("LEAGUE_DB_RETRY_AFTER_SECONDS", "5"))

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# --- Database -------------------------------------------------------------------------
DEFAULT_SQLITE_PATH = VAR_DIR / "db.sqlite3"
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{DEFAULT_SQLITE_PATH}"),
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers go on while a replay writes; IMMEDIATE takes the write lock at
    # BEGIN so two writers queue on busy_timeout instead of failing on lock upgrade.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": (
            "PRAGMA journal_mode=WAL;"
            "PRAGMA synchronous=NORMAL;"
            "PRAGMA foreign_keys=ON;"
            "PRAGMA cache_size=-64000;"
        ),
    }
    # The test database is a file (not :memory:) so that a real Celery worker process
    # started by the integration tests can open the same database.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("DJANGO_TEST_SQLITE", str(VAR_DIR / "test.sqlite3"))
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
#: The languages a visitor may pick (docs/languages.md). English is British English, the
#: language the strings are written in; any other English (en-US) falls back to it.
LANGUAGES = [
    ("en-gb", "English"),
    ("de", "Deutsch"),
    ("fr", "Français"),
    ("es", "Español"),
]
#: The project's catalogues (locale/<ll>/LC_MESSAGES/django.po and djangojs.po).
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
# Django 6 always formats by the active locale (USE_L10N is gone); web/locale_format.py
# writes the pages' numbers, dates and times through it.
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
# WhiteNoise warns on every start when STATIC_ROOT is missing (before collectstatic).
with contextlib.suppress(OSError):
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# Everyone signs in at /accounts/sign-in/ (web/accounts): by password or by an e-mailed
# one-time link; the admin keeps its own sign-in page for the operator.
LOGIN_URL = "accounts:sign_in"
LOGIN_REDIRECT_URL = "accounts:home"

# --- Sign-in rate limit (django-axes) -------------------------------------------------
# Failed sign-ins are counted per client address: after LEAGUE_LOGIN_FAILURE_LIMIT failures
# that address may not sign in (even with the right password) until the cool-off has passed
# since its last failure. Keyed on the address, not the account: an attacker elsewhere can
# never lock an organiser out, and guessing across many accounts (or unknown ones, which
# cost the same password-hashing time) from one address is stopped as well. An organiser
# sharing the attacker's address waits at most the cool-off.
# A sign-in link is one more backend behind axes: a bad, used or expired link counts as a
# failed sign-in of the address exactly like a wrong password (league.sign_in_links).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "league.sign_in_links.SignInLinkBackend",
]
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_FAILURE_LIMIT = int(os.environ.get("LEAGUE_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = dt.timedelta(minutes=float(os.environ.get("LEAGUE_LOGIN_COOLOFF_MINUTES", "5")))
# Failures while locked out do not push the end of the lockout further away.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "config.login_lockout.client_address"
AXES_LOCKOUT_CALLABLE = "config.login_lockout.lockout_response"
AXES_VERBOSE = False

# --- Self-service: sign-up, new leagues, co-organiser invitations -----------------------
# Anyone may create an account from the browser (/accounts/sign-up/) unless this is off;
# accounts the operator makes (admin, createsuperuser) are unaffected.
OPEN_SIGNUP = env_bool("LEAGUE_OPEN_SIGNUP", default=True)
# Leagues one account may start from the browser (superusers and manage.py create_league are
# not counted against it); 0 lets nobody start one from the browser.
MAX_LEAGUES_PER_ACCOUNT = int(os.environ.get("LEAGUE_MAX_LEAGUES_PER_ACCOUNT", "3"))
# Sign-up attempts (every submitted form, accepted or not) per client address, counted in
# the default cache like the API's throttle, keyed on the address as sign-in failures are.
SIGNUP_RATE = os.environ.get("LEAGUE_SIGNUP_RATE", "10/hour")
# Days a co-organiser invitation link stays valid.
INVITATION_DAYS = float(os.environ.get("LEAGUE_INVITATION_DAYS", "7"))

# --- Player accounts: sign-in links, player invitations, e-mail ---------------------------
# Minutes an e-mailed sign-in link stays valid (single use; only its digest is stored).
SIGN_IN_LINK_MINUTES = float(os.environ.get("LEAGUE_SIGN_IN_LINK_MINUTES", "15"))
# Sign-in link requests per client address (every request, known address or not).
SIGN_IN_LINK_RATE = os.environ.get("LEAGUE_SIGN_IN_LINK_RATE", "5/hour")
# E-mail (sign-in links, invitations and every other message): the mailers' settings under
# "E-mail and webhooks" below (docs/messages.md).

# --- Security (check --deploy clean when DEBUG is off) ---------------------------------
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the cookie-less header helper
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
# The language picker's cookie (config/language.py): kept a year, like the choice it records.
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SECURE = not DEBUG
LANGUAGE_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("DJANGO_BEHIND_PROXY") else None
)
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy: same-origin scripts and styles only, no inline code, no framing
# (config/csp.py; the API's documentation pages have their own policies).
SECURE_CSP = SITE_POLICY

# --- REST framework ----------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.NamedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        # DRF's own, with a policy that allows its inline styles (config/browsable_api.py).
        "config.browsable_api.BrowsableAPIRenderer",
    ],
    # drf-spectacular's, declaring the reads of LeagueOrganiserOrReadOnly views open to all.
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    # Anonymous clients by address, signed-in and token clients by account. Counters live in
    # the default cache (see CACHES).
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("LEAGUE_API_ANON_RATE", "120/minute"),
        "user": os.environ.get("LEAGUE_API_USER_RATE", "600/minute"),
    },
    # The client address: REMOTE_ADDR, or behind the TLS proxy the address it appended to
    # X-Forwarded-For (anything left of it is what the client claimed).
    "NUM_PROXIES": 1 if env_bool("DJANGO_BEHIND_PROXY") else 0,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Honest League API",
    "DESCRIPTION": "Leagues, players, match events and Glicko-2 standings derived from them.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RatingPeriodUnitEnum": "ratings.models.RatingConfig.PeriodUnit",
        "ReplayStatusEnum": "ratings.models.Replay.Status",
        "SweepStatusEnum": "ratings.backtest.models.Sweep.Status",
        "SeasonTableKindEnum": "ratings.models.SeasonTable.Kind",
        "ReplayKindEnum": "ratings.models.Replay.Kind",
    },
}

# --- Cache -------------------------------------------------------------------------------
# "default": API throttle counters (and anything else cached). "pages": the rendered public
# pages (web/public/page_cache.py), keyed by the state they show, so an entry is never
# stale, only unused once the state moves; entries expire after PAGE_CACHE_SECONDS.
# Local memory is per process; with several web processes set LEAGUE_CACHE_URL
# (redis://host:6379/1) so that they share one. LEAGUE_PAGE_CACHE=0 renders every page per
# request (the crowd benchmark's baseline).
# How long a fixture lasts in the iCalendar feeds (each VEVENT's DURATION): the club's usual
# match length in minutes. Two hours covers a club-night chess game at a rapid time control,
# a football match with its break, a best-of-five squash or table tennis match with warm-up.
FIXTURE_MINUTES = int(os.environ.get("LEAGUE_FIXTURE_MINUTES", "120"))

# The Redis cache is optional at run time (config/cache.py): while it cannot be reached, each
# process caches in its own memory (pages, throttle counters), says so once in the log, and
# tries Redis again every CACHE_RETRY_SECONDS; short socket timeouts keep a Redis that hangs
# from holding requests.
CACHE_URL = os.environ.get("LEAGUE_CACHE_URL", "")
PAGE_CACHE = env_bool("LEAGUE_PAGE_CACHE", default=True)
PAGE_CACHE_SECONDS = int(os.environ.get("LEAGUE_PAGE_CACHE_SECONDS", "3600"))
CACHE_RETRY_SECONDS = float(os.environ.get("LEAGUE_CACHE_RETRY_SECONDS", "5"))
_CACHE_SOCKET_OPTIONS = {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.cache.OptionalRedisCache",
            "LOCATION": CACHE_URL,
            "OPTIONS": _CACHE_SOCKET_OPTIONS,
        },
        "pages": {
            "BACKEND": "config.cache.OptionalRedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "pages",
            "TIMEOUT": PAGE_CACHE_SECONDS,
            "OPTIONS": _CACHE_SOCKET_OPTIONS,
        },
    }
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        # A leaderboard page is about 50 KB: at most about 25 MB per process.
        "pages": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "pages",
            "TIMEOUT": PAGE_CACHE_SECONDS,
            "OPTIONS": {"MAX_ENTRIES": 500},
        },
    }

# --- Celery ------------------------------------------------------------------------------
# "localhost" only names the machine: kombu warns about a broker URL without a host.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://localhost/")
BROKER_DIR = VAR_DIR / "broker"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
# A replay must not be lost when a worker dies mid-way: acknowledge after the task ran,
# and hand the message back to the queue when the worker process is killed.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Celery's Django fix-up closes every database connection before and after each task unless
# this is set: on PostgreSQL each result's replay then opened a new connection (a server
# process, and about 10 ms planning its first statement over a thousand partitions before
# the server's caches knew them). Set, the fix-up closes them only every this many tasks, and
# ``config/celery.py`` gives each task the life a request has instead: ``CONN_MAX_AGE`` and
# ``CONN_HEALTH_CHECKS`` (SQLite's connections still close after every task).
CELERY_DB_REUSE_MAX = 1000
# Longer than the slowest replay (a full replay of a million matches takes about a
# minute): a message not acknowledged within it is redelivered to another worker.
REPLAY_VISIBILITY_TIMEOUT = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))
# The filesystem broker has no way to wake a worker: the worker lists its queue folder every
# BROKER_POLL_SECONDS (kombu's default, 1 s, put a result's replay up to a second behind it).
# 0.1 s takes about 0.1 % of a core more than 1 s while idle (0.6 % against 0.5 % for an idle
# worker with its beat; 0.05 s: 0.95 %) and takes the broker's pickup of a result's replay
# from 0.69 s to 0.12 s (medians, as Redis's 0.10 s): bench/bench_live.py (docs/benchmarks.md).
BROKER_POLL_SECONDS = float(os.environ.get("LEAGUE_BROKER_POLL_SECONDS", "0.1"))
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "polling_interval": BROKER_POLL_SECONDS,
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        # Messages are written here and moved into the queue whole (config/filesystem_broker.py).
        "staging_folder": str(BROKER_DIR / "staging"),
        "store_processed": False,
    }
    for _folder in ("queue", "processed", "control", "staging"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    # kombu's transport writes a message into the queue folder in place, where a worker's
    # poll can take it half written and die on it: config/filesystem_broker.py.
    CELERY_BROKER_TRANSPORT = "config.filesystem_broker:Transport"
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": REPLAY_VISIBILITY_TIMEOUT}
if CELERY_BROKER_URL.startswith("redis://"):
    # kombu's Redis transport with the fix that keeps a worker alive when Redis goes away in
    # the middle of a replay (config/broker.py).
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
# A broker that goes away is waited for, however long: workers and beat retry every
# BROKER_RECONNECT_SECONDS at most (config/reconnect.py), never give up, and start even
# while the broker is down.
BROKER_RECONNECT_SECONDS = float(os.environ.get("LEAGUE_BROKER_RECONNECT_SECONDS", "2"))
CELERY_WORKER_CONSUMER = "config.reconnect:Consumer"
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# A replay running when the connection drops runs to its end (Celery 6 would cancel it):
# it is safe to finish (it publishes under its league's lock, and a redelivered copy finds
# it finished), while cancelling it would throw its work away and count an attempt against
# REPLAY_MAX_ATTEMPTS for every broker blip.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# A replay queued longer than this while no worker holds its league's replay lock has lost
# its message (the broker was unreachable when it was sent, or the web process died between
# committing it and sending it): the next request it would absorb sends it again, and so does
# the sweep Celery beat runs this often (``celery worker -B``, or a ``celery beat`` process).
REPLAY_RESEND_SECONDS = float(os.environ.get("LEAGUE_REPLAY_RESEND_SECONDS", "10"))
PLAYER_SWEEP_SECONDS = float(os.environ.get("LEAGUE_PLAYER_SWEEP_SECONDS", "300"))
CELERY_BEAT_SCHEDULE = {
    "resend-stranded-replays": {
        "task": "ratings.tasks.resend_stranded_replays",
        "schedule": REPLAY_RESEND_SECONDS,
        # A sweep still waiting when the next one is due is worth nothing: drop it.
        "options": {"expires": REPLAY_RESEND_SECONDS},
    },
    # A result whose replay request was never committed (the web process died between the
    # two commits) leaves no replay row: this sweep finds the league behind and queues one.
    "catch-up-lagging-leagues": {
        "task": "ratings.sweeps.catch_up_lagging_leagues",
        "schedule": REPLAY_RESEND_SECONDS,
        "options": {"expires": REPLAY_RESEND_SECONDS},
    },
    # Reports accepted for want of a dispute, challenges left unanswered past their day
    # (ratings.player_sweeps.settle_overdue): days-long deadlines, so a sweep every few minutes.
    "settle-overdue-reports-and-challenges": {
        "task": "ratings.player_sweeps.settle_overdue",
        "schedule": PLAYER_SWEEP_SECONDS,
        "options": {"expires": PLAYER_SWEEP_SECONDS},
    },
}
# Worker processes import the sweeps' module (autodiscovery finds only ``tasks`` modules).
CELERY_IMPORTS = ["ratings.sweeps", "ratings.player_sweeps"]
# Beat keeps its schedule in memory (nothing to persist for a sweep this frequent): its first
# sweep comes one period after it starts, never a burst for the time it was stopped. It
# reconnects to the broker every BROKER_RECONNECT_SECONDS at most (config/reconnect.py).
CELERY_BEAT_SCHEDULER = "config.reconnect:Scheduler"

# --- Ratings -----------------------------------------------------------------------------
# A player whose RD is above this is shown as provisional on leaderboards.
PROVISIONAL_RD = float(os.environ.get("LEAGUE_PROVISIONAL_RD", "110"))
# How many times a failing replay is tried before it is marked failed.
REPLAY_MAX_ATTEMPTS = int(os.environ.get("LEAGUE_REPLAY_MAX_ATTEMPTS", "3"))
# SQLite has no advisory locks: a replay holds a lease row, renewed while it runs, that a
# killed worker's successor can take over once it expires.
REPLAY_LEASE_SECONDS = float(os.environ.get("LEAGUE_REPLAY_LEASE_SECONDS", "60"))
# PostgreSQL: a full replay of at least this many matches builds its configuration's history
# partition beside the live one (written as the fold goes, indexed once, swapped in); a
# smaller one deletes and inserts its rows: as fast at 10,000 matches, and without the swap's
# moment of exclusive lock on the shared parent table, which many small leagues replaying at
# once would queue on (ratings/replay/partitions.py).
REPLAY_SWAP_MIN_MATCHES = int(os.environ.get("LEAGUE_REPLAY_SWAP_MIN_MATCHES", "20000"))
# PostgreSQL: from this many matches a full replay's history is COPYed by a writer thread
# while the fold computes. A smaller league's history is one batch written at the end on the
# replay's own connection, the whole partition built and attached in one transaction
# (store._build_partition_at_once): the thread's connection, its transaction and its
# competition with the fold for the interpreter cost more there than the overlap saves (the
# demo, 32,000 matches: docs/benchmarks.md, "replay --sync against its floor, again" and
# "The demo's full replay on PostgreSQL, again"). 0: always the thread.
REPLAY_STREAM_MIN_MATCHES = int(os.environ.get("LEAGUE_REPLAY_STREAM_MIN_MATCHES", "100000"))
# A result's replay catching up with results stored while it runs hands over after this
# many seconds: its standings are written through what it folded, and the replay queued
# for the newer results runs when a worker takes its message, behind the other leagues'
# (a busy league would otherwise hold its worker for as long as results keep coming).
REPLAY_CATCH_UP_SECONDS = float(os.environ.get("LEAGUE_REPLAY_CATCH_UP_SECONDS", "1"))
# Measure each configuration's interval coverage on simulated leagues when its replay
# completes (a task of a few seconds, ratings/coverage_jobs.py; the pages show the result).
RATINGS_MEASURE_COVERAGE = env_bool("LEAGUE_MEASURE_COVERAGE", default=True)
# Test hook only (worker tests slow a replay down to kill it mid-way): seconds per period.
REPLAY_PERIOD_DELAY = float(os.environ.get("LEAGUE_REPLAY_PERIOD_DELAY", "0"))

# --- E-mail and webhooks (notifications/, docs/messages.md) -------------------------------
# The address the site's links in e-mails start with (unsubscribe links, pages). In
# production the first allowed host over https unless set: List-Unsubscribe needs https.
SITE_URL = os.environ.get("LEAGUE_SITE_URL", "").rstrip("/") or (
    "http://127.0.0.1:8000" if DEBUG or not ALLOWED_HOSTS else f"https://{ALLOWED_HOSTS[0]}"
)
# Django's mailers. Production: SMTP, to LEAGUE_EMAIL_HOST (STARTTLS on the submission port
# 587 by default, LEAGUE_EMAIL_SSL=1 for implicit TLS on 465) or, unset, to the machine's own
# mail server (localhost:25, no TLS). The embedded default (debug): "file", every message a
# file under var/mail/ (LEAGUE_MAIL_DIR; one .log file per batch);
# LEAGUE_EMAIL_BACKEND=console prints them to the worker's log instead.
_EMAIL_HOST = os.environ.get("LEAGUE_EMAIL_HOST", "")
_EMAIL_BACKEND = os.environ.get(
    "LEAGUE_EMAIL_BACKEND", "smtp" if _EMAIL_HOST or not DEBUG else "file"
)
_EMAIL_SSL = env_bool("LEAGUE_EMAIL_SSL", default=False)
_EMAIL_PORT = "465" if _EMAIL_SSL else "587" if _EMAIL_HOST else "25"
_MAILER_OPTIONS: dict[str, dict] = {
    "smtp": {
        "host": _EMAIL_HOST or "localhost",
        "port": int(os.environ.get("LEAGUE_EMAIL_PORT", _EMAIL_PORT)),
        "username": os.environ.get("LEAGUE_EMAIL_USER", ""),
        "password": os.environ.get("LEAGUE_EMAIL_PASSWORD", ""),
        "use_ssl": _EMAIL_SSL,
        "use_tls": env_bool("LEAGUE_EMAIL_TLS", default=bool(_EMAIL_HOST) and not _EMAIL_SSL),
        # A server slower than this to answer fails the attempt (it is retried).
        "timeout": float(os.environ.get("LEAGUE_EMAIL_TIMEOUT", "20")),
    },
    "file": {"file_path": os.environ.get("LEAGUE_MAIL_DIR", str(VAR_DIR / "mail"))},
    "console": {},
}
if _EMAIL_BACKEND not in _MAILER_OPTIONS:
    raise ImproperlyConfigured(
        f"LEAGUE_EMAIL_BACKEND is {_EMAIL_BACKEND!r}: use smtp, file or console."
    )
MAILERS = {
    "default": {
        "BACKEND": f"django.core.mail.backends.{_EMAIL_BACKEND.replace('file', 'filebased')}"
        ".EmailBackend",
        "OPTIONS": _MAILER_OPTIONS[_EMAIL_BACKEND],
    }
}
DEFAULT_FROM_EMAIL = os.environ.get("LEAGUE_EMAIL_FROM", "Honest League <league@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Seconds between the sweeps that send again messages still waiting (a failed attempt, a
# lost task): how soon a message follows a mail server's return.
NOTIFY_RESEND_SECONDS = float(os.environ.get("LEAGUE_NOTIFY_RESEND_SECONDS", "60"))
# A message not sent this many hours after it was written is given up (marked failed).
NOTIFY_GIVE_UP_HOURS = float(os.environ.get("LEAGUE_NOTIFY_GIVE_UP_HOURS", "72"))
# A result's mail waits for the standings that include it (to tell the rating change) at most
# this long, then goes without the change.
NOTIFY_RATING_WAIT_SECONDS = float(os.environ.get("LEAGUE_NOTIFY_RATING_WAIT_SECONDS", "600"))
# Appends of more events than this (a CSV import of a season) send no mail per result: the
# webhook gets one summary.
NOTIFY_BULK_LIMIT = int(os.environ.get("LEAGUE_NOTIFY_BULK_LIMIT", "100"))
# Tries of one message or webhook call by its task (with exponential back-off) before the
# sweep takes over.
NOTIFY_TASK_RETRIES = int(os.environ.get("LEAGUE_NOTIFY_TASK_RETRIES", "5"))
# Hours before a fixture's deadline (the end of its last local day) that its reminder goes.
NOTIFY_REMINDER_HOURS = float(os.environ.get("LEAGUE_NOTIFY_REMINDER_HOURS", "48"))
# The weekly digest: ISO weekday (1 = Monday) and UTC hour from which it goes.
NOTIFY_DIGEST_WEEKDAY = int(os.environ.get("LEAGUE_NOTIFY_DIGEST_WEEKDAY", "1"))
NOTIFY_DIGEST_HOUR = int(os.environ.get("LEAGUE_NOTIFY_DIGEST_HOUR", "7"))
# Webhooks: seconds to connect and to answer; private, loopback and link-local addresses
# are refused (the site must not be a way into its own network) unless this is on (tests,
# a local receiver while developing).
WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("LEAGUE_WEBHOOK_TIMEOUT_SECONDS", "5"))
WEBHOOK_ALLOW_PRIVATE = env_bool("LEAGUE_WEBHOOK_ALLOW_PRIVATE", default=DEBUG)
# The sweeps of notifications/tasks.py: stragglers, reminders, digests (each idempotent).
CELERY_BEAT_SCHEDULE.update(
    {
        "resend-waiting-messages": {
            "task": "notifications.tasks.resend_waiting",
            "schedule": NOTIFY_RESEND_SECONDS,
            "options": {"expires": NOTIFY_RESEND_SECONDS},
        },
        "deadline-reminders": {
            "task": "notifications.tasks.write_reminders",
            "schedule": 900.0,
            "options": {"expires": 900.0},
        },
        "weekly-digests": {
            "task": "notifications.tasks.write_digests",
            "schedule": 900.0,
            "options": {"expires": 900.0},
        },
    }
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
}


# CORS (django-cors-headers): only the league-scoped read-only API, only for the origins
# each league's organisers list (api/cors.py answers the per-league check), no cookies.
CORS_URLS_REGEX = r"^/api/leagues/[^/]+/.*$"
CORS_ALLOWED_ORIGINS: list[str] = []
CORS_ALLOW_METHODS = ("GET", "HEAD", "OPTIONS")
CORS_ALLOW_CREDENTIALS = False
CORS_PREFLIGHT_MAX_AGE = 600
