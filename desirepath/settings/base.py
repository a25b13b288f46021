"""Settings shared by every environment; everything that differs comes from environment variables.

Importing this module starts nothing: dev and test settings start the embedded servers when no URL names one,
production refuses to start without them."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from celery.schedules import crontab
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from desirepath.observability import logging_settings

# Offline rules: litellm and the model libraries must never reach for the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

BASE_DIR = Path(__file__).resolve().parents[2]
# Created by whoever first writes into it (the embedded servers, the local secret, the admin password).
DATA_DIR = Path(os.environ.get("DESIREPATH_DATA_DIR") or BASE_DIR / ".data").expanduser().resolve()


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in {"1", "true", "yes", "on"}


def database_from_url(url: str) -> dict[str, object]:
    parts = urlparse(url)
    query = parse_qs(parts.query)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")),
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": query.get("host", [parts.hostname or ""])[0],
        "PORT": str(parts.port or ""),
    }


def database_settings(connection: dict[str, object], *, mirror: bool = False) -> dict[str, object]:
    """A connection's settings with what every environment adds to it; `mirror`: the owner's connection to the
    same database, which tests reach through the application's test database."""
    return {
        **connection,
        "CONN_MAX_AGE": 0 if mirror else 60,
        "CONN_HEALTH_CHECKS": True,
        "TEST": {"MIRROR": "default"} if mirror else {"NAME": f"test_{connection['NAME']}"},
    }


# Empty when unset: dev and test fill DATABASES and the broker in from their embedded servers.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
REDIS_URL = os.environ.get("REDIS_URL", "")
DB_NAME = os.environ.get("DESIREPATH_DB_NAME", "desirepath")
# `default` is the application's role; `owner`, the role that owns the tables, is used by `migrate` alone
# (docs/operations.md). Without DATABASE_OWNER_URL both are the same role, and PostgreSQL cannot hold the
# application to what its role may do.
DATABASE_OWNER_URL = os.environ.get("DATABASE_OWNER_URL", "") or DATABASE_URL
# A vault-scoped read filters to its scope in its own SQL, and the database's row-level security filters again. Only
# a test switches the first off, to show that the second alone holds.
SCOPE_FILTERS = True
# The role the application connects as (`migrate` connects `default` as the owner for its run, so it is named here)
DATABASE_APPLICATION_ROLE = str(database_from_url(DATABASE_URL)["USER"]) if DATABASE_URL else ""
DATABASES = (
    {
        "default": database_settings(database_from_url(DATABASE_URL)),
        "owner": database_settings(database_from_url(DATABASE_OWNER_URL), mirror=True),
    }
    if DATABASE_URL
    else {}
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "axes",
    "csp",
    "guardian",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "pgtrigger",
    "django_celery_beat",
    "django_structlog",
    "apps.core",
    "apps.accounts",
    "apps.vaults",
    "apps.notes",
    "apps.retrieval",
    "apps.llm",
    "apps.audit",
    "apps.chat",
    "apps.feedback",
    "apps.librarian",
    "apps.research",
    "apps.graph",
    "apps.insights",
    "apps.evaluation",
    "apps.mcp",
]

MIDDLEWARE = [
    # First and last: the latency it measures per view takes in every other middleware.
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "apps.core.middleware.HeadWithoutBody",
    # A request id for every log line of the request, and for the tasks it queues (django-structlog).
    "apps.core.middleware.RequestId",
    "django_structlog.middlewares.RequestMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # What the database shows this request: its requester's vaults (row-level security), from here to the end.
    "apps.vaults.row_scope.RowScopeMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "apps.core.middleware.ConflictPage",
    # Last, as django-axes asks: it turns a lockout found during sign-in into the 429 answer.
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "desirepath.urls"
WSGI_APPLICATION = "desirepath.wsgi.application"
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
                "apps.insights.context.noticed",
                "apps.llm.context.failing_models",
            ]
        },
    }
]

AUTHENTICATION_BACKENDS = [
    # First: a locked-out account or address is refused before its password is even checked.
    "axes.backends.AxesStandaloneBackend",
    "apps.accounts.backends.PasswordBackend",  # Django's own, checking no password while local login is off
    "apps.accounts.oidc.OidcBackend",  # answers only the single sign-on callback, and only when it is configured
    "guardian.backends.ObjectPermissionBackend",
]

# Single sign-on over OpenID Connect (mozilla-django-oidc; docs/operations.md, "Single sign-on"). Off unless the
# issuer, client id and secret are all set; the endpoints and signing keys come from the issuer's discovery document.
OIDC_ISSUER = os.environ.get("DESIREPATH_OIDC_ISSUER", "")
OIDC_RP_CLIENT_ID = os.environ.get("DESIREPATH_OIDC_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = os.environ.get("DESIREPATH_OIDC_CLIENT_SECRET", "")
_oidc_needs = {  # lower case: not a setting
    "DESIREPATH_OIDC_ISSUER": OIDC_ISSUER,
    "DESIREPATH_OIDC_CLIENT_ID": OIDC_RP_CLIENT_ID,
    "DESIREPATH_OIDC_CLIENT_SECRET": OIDC_RP_CLIENT_SECRET,
}
OIDC_ENABLED = all(_oidc_needs.values())
if any(_oidc_needs.values()) and not OIDC_ENABLED:
    # Half a configuration would show a button that cannot work, or silently leave single sign-on off.
    raise ImproperlyConfigured(
        "single sign-on is half configured: set "
        + ", ".join(name for name, value in _oidc_needs.items() if not value)
        + " too, or unset "
        + ", ".join(name for name, value in _oidc_needs.items() if value)
    )
OIDC_PROVIDER_NAME = os.environ.get("DESIREPATH_OIDC_PROVIDER_NAME") or urlparse(OIDC_ISSUER).hostname or ""
OIDC_RP_SCOPES = os.environ.get("DESIREPATH_OIDC_SCOPES", "openid email profile")
if OIDC_ENABLED and "openid" not in OIDC_RP_SCOPES.split():
    raise ImproperlyConfigured("DESIREPATH_OIDC_SCOPES must include openid (an ID token is asked for with it)")
OIDC_RP_SIGN_ALGO = os.environ.get("DESIREPATH_OIDC_SIGN_ALGO", "RS256")
OIDC_TIMEOUT = float(os.environ.get("DESIREPATH_OIDC_TIMEOUT_SECONDS", "10"))
OIDC_DISCOVERY_SECONDS = int(os.environ.get("DESIREPATH_OIDC_DISCOVERY_SECONDS", "3600"))
OIDC_CLOCK_SKEW_SECONDS = 60  # an ID token's exp and iat, read with this much leeway between the two clocks
OIDC_USE_PKCE = True
OIDC_CREATE_USERS = env_bool("DESIREPATH_OIDC_CREATE_USERS", False)
OIDC_GROUPS_CLAIM = os.environ.get("DESIREPATH_OIDC_GROUPS_CLAIM", "")


def group_teams_from_json(text: str) -> dict[str, list[str]]:
    """`{"claim value": "Team name" or ["Team", ...]}` as claim value → team names; ImproperlyConfigured otherwise."""
    try:
        mapping = json.loads(text or "{}")
    except ValueError as exc:
        raise ImproperlyConfigured(f"DESIREPATH_OIDC_GROUP_TEAMS is not JSON: {exc}") from exc
    shape = 'a JSON object of claim values to team names, {"staff": "Staff", "eng": ["Engineering", "Staff"]}'
    if not isinstance(mapping, dict):
        raise ImproperlyConfigured(f"DESIREPATH_OIDC_GROUP_TEAMS must be {shape}")
    teams: dict[str, list[str]] = {}
    for value, names in mapping.items():
        listed = [names] if isinstance(names, str) else names
        if not isinstance(listed, list) or not listed or not all(isinstance(n, str) and n.strip() for n in listed):
            raise ImproperlyConfigured(f"DESIREPATH_OIDC_GROUP_TEAMS must be {shape}; {value!r} is not")
        teams[value] = [name.strip() for name in listed]
    return teams


OIDC_GROUP_TEAMS = group_teams_from_json(os.environ.get("DESIREPATH_OIDC_GROUP_TEAMS", ""))
if OIDC_GROUP_TEAMS and not OIDC_GROUPS_CLAIM:
    raise ImproperlyConfigured("DESIREPATH_OIDC_GROUP_TEAMS needs DESIREPATH_OIDC_GROUPS_CLAIM: the claim to read")
# Off: the sign-in form, the admin's and POST /api/auth/token/ refuse passwords; API tokens keep working.
LOCAL_LOGIN = env_bool("DESIREPATH_LOCAL_LOGIN", True)
if not LOCAL_LOGIN and not OIDC_ENABLED:
    raise ImproperlyConfigured("DESIREPATH_LOCAL_LOGIN=0 needs single sign-on configured: nobody could sign in")
ANONYMOUS_USER_NAME = None
GUARDIAN_RAISE_403 = False
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # Not a check: Django tells every validator when a password changed, wherever it changed (admin, command).
    {"NAME": "apps.accounts.passwords.RevokeTokensOnPasswordChange"},
]

# Addresses (or networks) of the reverse proxies in front of the web processes. Only a request arriving from one of
# them has its X-Forwarded-For read; empty, the peer's own address is the client's.
TRUSTED_PROXIES = [p.strip() for p in os.environ.get("DESIREPATH_TRUSTED_PROXIES", "").split(",") if p.strip()]

# Sign-in lockout (django-axes, attempts kept in the database so every web process sees them): after
# LOCKOUT_FAILURES failed attempts for one username from one address, that username is refused from that address
# for the cool-off. The pair, not each alone: colleagues behind one office address keep signing in, and nobody
# locks someone else's account from elsewhere by guessing at it.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_VERBOSE = False  # no banner on every start; lockouts are still logged as warnings
AXES_FAILURE_LIMIT = int(os.environ.get("DESIREPATH_LOCKOUT_FAILURES", "10"))
AXES_COOLOFF_TIME = timedelta(minutes=float(os.environ.get("DESIREPATH_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "apps.core.http.client_ip"
AXES_LOCKOUT_CALLABLE = "apps.accounts.lockout.lockout_response"
# A locked attempt does not extend the lock: the cool-off ends when it said it would.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A failure keeps the form's fields beside it (AccessAttempt.post_data): the password change page's are masked too.
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "old_password", "new_password1", "new_password2"]

# Content-Security-Policy (django-csp) on every page: scripts only from this site and never inline, nothing
# loaded from elsewhere. Styles may be inline because KaTeX sizes each glyph and mermaid styles each diagram in
# place. Images from other sites are not fetched (a note's external image would tell its site who reads the note
# and when) unless their host is listed in DESIREPATH_IMAGE_HOSTS, which the note renderer also reads.
IMAGE_HOSTS = [h.strip().lower() for h in os.environ.get("DESIREPATH_IMAGE_HOSTS", "").split(",") if h.strip()]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:", *(f"https://{host}" for host in IMAGE_HOSTS)],
        "font-src": [SELF, "data:"],
        "object-src": [SELF],  # a vault's PDFs open in the browser's viewer
        "media-src": [SELF],
        "connect-src": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
    }
}

# API tokens: a default and a longest lifetime in days.
API_TOKEN_DAYS = int(os.environ.get("DESIREPATH_API_TOKEN_DAYS", "90"))
API_TOKEN_MAX_DAYS = int(os.environ.get("DESIREPATH_API_TOKEN_MAX_DAYS", "365"))

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "apps.core.exceptions.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "DesirePath API",
    "DESCRIPTION": (
        "Vaults of Markdown notes, shared with people and teams, searched with permission-filtered hybrid search."
    ),
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI assets served locally: the platform works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Fields of one name with different choices (an answer's status and a principle's, say) get named enums.
    "ENUM_NAME_OVERRIDES": {
        "MessageStatusEnum": "apps.chat.models.Status",
        "AnswerFallbackEnum": "apps.chat.models.Fallback",
        "FeedbackSignalEnum": "apps.feedback.models.Signal",
        "CorrectionStatusEnum": "apps.notes.models.CorrectionStatus",
        "PrincipleStatusEnum": "apps.insights.models.PrincipleStatus",
        "PrincipleSignalEnum": "apps.insights.services.SIGNALS",
        "CardKindEnum": "apps.insights.models.CardKind",
        "CardSignalEnum": "apps.insights.models.CardSignal",
        "VaultFallbackEnum": "apps.vaults.chat_settings.FALLBACKS",
    },
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 60 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 55 * 60
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("DESIREPATH_TASK_QUEUE", "desirepath")
# Answers have their own queue (and, under `make run`, their own worker) so imports never hold a question up; the
# Models page's one-call test is someone waiting on a page too.
CHAT_ANSWER_QUEUE = f"{CELERY_TASK_DEFAULT_QUEUE}-answers"
CELERY_TASK_ROUTES = {
    "apps.chat.tasks.answer": {"queue": CHAT_ANSWER_QUEUE},
    "apps.llm.tasks.try_model": {"queue": CHAT_ANSWER_QUEUE},
}
CELERY_BEAT_SCHEDULE = {
    # Sweeps up notes whose embedding could not be queued (or a model change): nothing waits forever.
    "embed-pending": {"task": "apps.notes.tasks.embed_pending", "schedule": 300.0},
    # Work a lost worker left behind: imports resumed or failed, answers re-sent or failed with the reason.
    "imports-recover": {"task": "apps.notes.tasks.imports_recover", "schedule": 60.0},
    "embedding-switches-recover": {"task": "apps.notes.tasks.embedding_switches_recover", "schedule": 60.0},
    # Notes stored before a change to how Markdown is read are read again, a batch at a time.
    "notes-reread": {"task": "apps.notes.tasks.notes_reread", "schedule": 120.0},
    "answers-recover": {"task": "apps.chat.tasks.answers_recover", "schedule": 60.0},
    # Metadata older than its note or written by an older model, a budget per vault and run.
    "reenrich-stale": {"task": "apps.librarian.tasks.reenrich_stale", "schedule": 900.0},
    # Graph material for notes written while the queue was down; Leiden landmarks refreshed hourly.
    "graph-extract-pending": {"task": "apps.graph.tasks.extract_pending", "schedule": 900.0},
    "graph-communities": {"task": "apps.graph.tasks.detect_communities", "schedule": 3600.0},
    "graph-decay": {"task": "apps.graph.tasks.decay", "schedule": 86400.0},
    "graph-entity-health": {"task": "apps.graph.tasks.tend_entities", "schedule": 86400.0},
    # Session summaries the queue missed, then weeks and months condensed from them.
    "librarian-summaries": {"task": "apps.librarian.tasks.summaries_daily", "schedule": 86400.0},
    # Patterns spanning unrelated notes become proposed principles (also after each import's community run).
    "insights-principles": {"task": "apps.insights.tasks.discover_principles", "schedule": 86400.0},
    # Footsteps on notes collected, then the day's novelty candidates detected (pure arithmetic, no model).
    "insights-discovery": {"task": "apps.insights.tasks.discovery_daily", "schedule": 86400.0},
    # Fertile collisions judged (budgeted), the insights page's cards ranked again and the new ones narrated.
    "insights-cards": {"task": "apps.insights.tasks.insights_daily", "schedule": 86400.0},
    # Ten minutes before each hour: questions that burned in at that hour get their context ready.
    "graph-prewarm": {"task": "apps.chat.tasks.prewarm", "schedule": crontab(minute=50)},
}
LIBRARIAN_REENRICH_BUDGET = int(os.environ.get("DESIREPATH_REENRICH_BUDGET", "50"))
# Discovery's model calls a vault may spend a day, per tier (a vault's settings may set its own): screening is one
# batched call per day of candidates, formation one call per surviving candidate. docs/design.md, "Discovery".
DISCOVERY_DAILY_CALLS = {
    "screening": int(os.environ.get("DESIREPATH_DISCOVERY_SCREENING_CALLS", "2")),
    "formation": int(os.environ.get("DESIREPATH_DISCOVERY_FORMATION_CALLS", "5")),
    "collisions": int(os.environ.get("DESIREPATH_DISCOVERY_COLLISION_CALLS", "1")),
    "cards": int(os.environ.get("DESIREPATH_DISCOVERY_CARD_CALLS", "1")),
}
# After notes change, a vault's insights are built this many seconds later (the writes of a burst share one build).
INSIGHTS_BUILD_DELAY_SECONDS = float(os.environ.get("DESIREPATH_INSIGHTS_BUILD_DELAY_SECONDS", "60"))

# Embeddings: one deployment-wide model; the vector column's dimension follows it.
EMBEDDING_MODEL = os.environ.get("DESIREPATH_EMBEDDING_MODEL", "local/all-MiniLM-L6-v2")
EMBEDDING_DIMENSIONS = int(os.environ.get("DESIREPATH_EMBEDDING_DIMENSIONS", "384"))
EMBEDDING_BATCH_SIZE = int(os.environ.get("DESIREPATH_EMBEDDING_BATCH_SIZE", "64"))
# For a litellm embedding model: an OpenAI-compatible server (e.g. a local Ollama); keys come from the environment.
EMBEDDING_API_BASE = os.environ.get("DESIREPATH_EMBEDDING_API_BASE") or None

# Model slots (DESIGN: chat, reasoning, scoring): litellm model strings; `local/...` runs the model-free default.
# Each slot's model-free implementation, which every deployment has whatever it configures.
LLM_LOCAL = {"chat": "local/extractive", "reasoning": "local/model-free", "scoring": "local/model-free-scorer"}
LLM_SLOTS = {slot: os.environ.get(f"DESIREPATH_LLM_{slot.upper()}", LLM_LOCAL[slot]) for slot in LLM_LOCAL}
LLM_API_BASE = os.environ.get("DESIREPATH_LLM_API_BASE") or None  # every slot's server unless the slot names its own
# Per slot (chat, reasoning, scoring, embedding): DESIREPATH_LLM_<SLOT>_PROVIDER (litellm's provider, when the model
# string does not start with it), _API_BASE (this slot's server) and _API_KEY_ENV (the name of the environment
# variable holding its key; unset: the provider's usual variable, OPENAI_API_KEY and the like). docs/models.md.
LLM_SLOT_CONNECTIONS = {
    slot: {
        field: os.environ.get(f"DESIREPATH_LLM_{slot.upper()}_{field.upper()}") or None
        for field in ("provider", "api_base", "api_key_env")
    }
    for slot in ("chat", "reasoning", "scoring", "embedding")
}
LLM_TIMEOUT_SECONDS = float(os.environ.get("DESIREPATH_LLM_TIMEOUT_SECONDS", "30"))
LLM_RETRIES = int(os.environ.get("DESIREPATH_LLM_RETRIES", "2"))
LLM_BACKOFF_SECONDS = float(os.environ.get("DESIREPATH_LLM_BACKOFF_SECONDS", "0.5"))

# Notes and ingestion limits.
NOTE_MAX_BYTES = int(os.environ.get("DESIREPATH_NOTE_MAX_BYTES", str(1024 * 1024)))
IMPORT_MAX_UPLOAD_BYTES = int(os.environ.get("DESIREPATH_IMPORT_MAX_UPLOAD_BYTES", str(100 * 1024 * 1024)))
# A vault up to this size (notes and attachments, uncompressed) is exported in the request; larger ones by the worker.
EXPORT_INLINE_MAX_BYTES = int(os.environ.get("DESIREPATH_EXPORT_INLINE_MAX_BYTES", str(20 * 1024 * 1024)))
IMPORT_MAX_TOTAL_BYTES = int(os.environ.get("DESIREPATH_IMPORT_MAX_TOTAL_BYTES", str(500 * 1024 * 1024)))
IMPORT_MAX_FILES = int(os.environ.get("DESIREPATH_IMPORT_MAX_FILES", "20000"))
# A running import writes its progress at least every few seconds; this long without it, its worker was lost.
IMPORT_STALE_SECONDS = float(os.environ.get("DESIREPATH_IMPORT_STALE_SECONDS", "600"))
# A model switch commits a batch every few seconds; this long without one, its worker is taken for lost.
EMBEDDING_SWITCH_STALE_SECONDS = float(os.environ.get("DESIREPATH_EMBEDDING_SWITCH_STALE_SECONDS", "600"))
# An image, PDF or other attachment of a vault; larger files are skipped with the reason on the import.
ATTACHMENT_MAX_BYTES = int(os.environ.get("DESIREPATH_ATTACHMENT_MAX_BYTES", str(20 * 1024 * 1024)))
CHUNK_MAX_CHARS = 1000  # MiniLM reads 256 word pieces (~1,000 characters) and drops the rest.

# Search.
SEARCH_MAX_QUERY_CHARS = 2000
CHAT_MAX_MESSAGE_CHARS = 1500  # plus up to 400 carried from an earlier question: still a valid query
# Answers are written by a Celery worker; the API waits this long before answering 202 (poll the conversation),
# and gives up sooner (503, question kept) when no worker has picked the answer up.
CHAT_ANSWERS_IN_WORKER = os.environ.get("DESIREPATH_CHAT_ANSWERS_IN_WORKER", "1") == "1"
CHAT_WAIT_SECONDS = float(os.environ.get("DESIREPATH_CHAT_WAIT_SECONDS", "300"))
CHAT_UNCLAIMED_SECONDS = float(os.environ.get("DESIREPATH_CHAT_UNCLAIMED_SECONDS", "20"))
# A request waiting on an answer (a stream, or the API's wait) holds a web thread: one person holds at most
# CHAT_WAITS_PER_USER across every process, and a process lends at most CHAT_WAITS_PER_PROCESS of its threads to
# waiting, so the others stay free for every other request. Past either, the answer is not waited for.
CHAT_WAITS_PER_USER = int(os.environ.get("DESIREPATH_CHAT_WAITS_PER_USER", "4"))
CHAT_WAITS_PER_PROCESS = int(
    os.environ.get("DESIREPATH_CHAT_WAITS_PER_PROCESS")
    or max(1, int(os.environ.get("DESIREPATH_WEB_THREADS", "8")) - 2)
)
# An answer's run is stopped at its time limit; one still `running` a minute past it lost its worker.
CHAT_ANSWER_TIME_LIMIT = int(os.environ.get("DESIREPATH_CHAT_ANSWER_TIME_LIMIT", "1200"))
# A question still `pending` this long after it was asked (or last sent) is sent to the queue again.
CHAT_RESEND_PENDING_SECONDS = float(os.environ.get("DESIREPATH_CHAT_RESEND_PENDING_SECONDS", "60"))
SEARCH_MAX_K = 50
SEARCH_CANDIDATES = 50
SEARCH_EXACT_SCAN_MAX_CHUNKS = int(os.environ.get("DESIREPATH_SEARCH_EXACT_SCAN_MAX_CHUNKS", "2000"))
SEARCH_HNSW_EF_SEARCH = 100
SEARCH_HNSW_ITERATIVE_SCAN = "relaxed_order"
# BM25 (docs/design.md, "Keyword search"): term-frequency saturation k1 and length normalisation b.
SEARCH_BM25_K1 = float(os.environ.get("DESIREPATH_SEARCH_BM25_K1", "1.2"))
SEARCH_BM25_B = float(os.environ.get("DESIREPATH_SEARCH_BM25_B", "0.75"))
# A term matching more chunks than this in scope is read best first, this many postings; the best chunks reached
# are then scored exactly on every term.
SEARCH_KEYWORD_TERM_POSTINGS = int(os.environ.get("DESIREPATH_SEARCH_KEYWORD_TERM_POSTINGS", "1000"))
SEARCH_KEYWORD_RESCORE = int(os.environ.get("DESIREPATH_SEARCH_KEYWORD_RESCORE", "200"))
# A note's keyword score: its best chunk's plus this share of its other matching chunks'.
SEARCH_NOTE_MORE_CHUNKS = float(os.environ.get("DESIREPATH_SEARCH_NOTE_MORE_CHUNKS", "0"))
# A note of more chunks than SEARCH_LONG_NOTE_CHUNKS has its keyword score multiplied by
# (SEARCH_LONG_NOTE_CHUNKS / its chunks) ^ SEARCH_LONG_NOTE_DISCOUNT (0: no discount).
SEARCH_LONG_NOTE_CHUNKS = float(os.environ.get("DESIREPATH_SEARCH_LONG_NOTE_CHUNKS", "5"))
SEARCH_LONG_NOTE_DISCOUNT = float(os.environ.get("DESIREPATH_SEARCH_LONG_NOTE_DISCOUNT", "0.3"))
# Fusion: "score" (each half's scores scaled to 0–1 over its candidates, weighted) or "rrf" (reciprocal ranks,
# weighted). Both, the weight and the aggregation were chosen on the dev query sets (docs/evaluation.md).
SEARCH_FUSION = os.environ.get("DESIREPATH_SEARCH_FUSION", "score")
SEARCH_FUSION_VECTOR_WEIGHT = float(os.environ.get("DESIREPATH_SEARCH_FUSION_VECTOR_WEIGHT", "0.4"))
# With "score", the half whose best note stands further above its second weighs more for that question: the meaning
# half's weight moves by up to ±SEARCH_FUSION_LEAD_SHIFT / 2 (0: a fixed weight), its drop counted
# SEARCH_FUSION_VECTOR_LEAD_SCALE times (cosines of a question's notes lie closer together than BM25 scores).
SEARCH_FUSION_LEAD_SHIFT = float(os.environ.get("DESIREPATH_SEARCH_FUSION_LEAD_SHIFT", "0.4"))
SEARCH_FUSION_VECTOR_LEAD_SCALE = float(os.environ.get("DESIREPATH_SEARCH_FUSION_VECTOR_LEAD_SCALE", "3"))

# Logs: JSON lines (DESIREPATH_LOG_JSON=1, production's default) or readable text, each line with the request id of
# the request it belongs to, also in the Celery tasks that request queued.
LOG_JSON = env_bool("DESIREPATH_LOG_JSON", False)
LOGGING = logging_settings(json_lines=LOG_JSON, level=os.environ.get("DESIREPATH_LOG_LEVEL", "INFO"))
DJANGO_STRUCTLOG_CELERY_ENABLED = True
DJANGO_STRUCTLOG_TRUST_UPSTREAM_REQUEST_ID = True  # a proxy's X-Request-ID is kept (apps.core.middleware.RequestId)
DJANGO_STRUCTLOG_IP_LOGGING_ENABLED = False  # bound by RequestId, as far as the trusted proxies allow

# Metrics (/metrics, Prometheus text): every web process and worker of this machine writes into one directory.
# Scraped with `Authorization: Bearer <DESIREPATH_METRICS_TOKEN>` or from an address in DESIREPATH_METRICS_NETWORKS;
# with neither set /metrics refuses everyone.
# Each environment's module puts the directory to use (desirepath.observability.metrics_directory_use).
METRICS_DIR = Path(os.environ.get("DESIREPATH_METRICS_DIR") or DATA_DIR / "metrics").expanduser().resolve()
METRICS_TOKEN = os.environ.get("DESIREPATH_METRICS_TOKEN", "")
METRICS_NETWORKS = [n.strip() for n in os.environ.get("DESIREPATH_METRICS_NETWORKS", "").split(",") if n.strip()]
# A worker whose last heartbeat is older than this is taken for down (/healthz, /metrics).
WORKER_HEARTBEAT_SECONDS = float(os.environ.get("DESIREPATH_WORKER_HEARTBEAT_SECONDS", "10"))
