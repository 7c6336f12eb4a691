"""Security glue: the administrator role, sign-in lockout, two-factor sign-in, rate limits.

- Lockout (django-axes): ``LockoutBackend`` refuses a username+IP pair after
  ``AXES_FAILURE_LIMIT`` failed sign-ins for ``AXES_COOLOFF_TIME``; ``lockout_response``
  tells the person so, as a page or as the API's error shape.
- Two-factor (django-otp, TOTP): a staff member with a confirmed device is signed in by
  the password but must enter a code before anything else: ``StaffOTPMiddleware`` sends
  the session to ``otp_verify`` (or answers the API with ``otp_required``), and
  ``TokenAuthentication`` refuses API tokens, a single factor, for such accounts.
- Rate limits: one play-rate policy per player (``settings.CASINO_PLAY_RATE``) for the
  REST play endpoints (``PlayThrottle``) and the live table's socket
  (``play_rate_take``); a refusal never asks for a wait longer than the time to act.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
import weakref
from urllib.parse import urlencode

import redis
from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.deprecation import MiddlewareMixin
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_noop
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp import login as otp_login
from django_otp.models import Device
from django_otp.plugins.otp_totp.models import TOTPDevice
from redis.exceptions import RedisError
from rest_framework import exceptions as drf_exceptions
from rest_framework.authentication import TokenAuthentication as DRFTokenAuthentication
from rest_framework.permissions import SAFE_METHODS
from rest_framework.throttling import BaseThrottle

from casino.access.policy import allowed
from casino.audit import audit_record
from casino.http.errors import ApplicationError


def error_body(code: str, message: str, extra: dict | None = None) -> dict:
    """The API's error shape (as ``casino.http.api.error_body``, which this module must not
    import: DRF loads the authentication classes below while ``rest_framework.views`` loads)."""
    return {"code": code, "message": message, "extra": extra or {}}


def is_administrator(user) -> bool:
    """Active, ``is_staff``, and a superuser or allowed ``admin.site`` (the administrator role)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active or not user.is_staff:
        return False
    return user.is_superuser or allowed(user, "admin.site")


def is_staff_member(user) -> bool:
    """Anyone who works here (``account.two_factor``: a staff role), or a Django staff/superuser account."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return user.is_staff or user.is_superuser or allowed(user, "account.two_factor")


# --- lockout (django-axes) --------------------------------------------------------------


class LockoutBackend(AxesStandaloneBackend):
    """axes' lockout check, first among the authentication backends.

    A locked-out sign-in through the API token endpoint gets the lockout answer too (DRF
    passes its own request wrapper; the flag goes on the Django request underneath). A
    call without a request (``Client.login`` in tests, code) has no address to lock by
    and is left to the next backend.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        try:
            return super().authenticate(request, username=username, password=password, **kwargs)
        except AxesBackendPermissionDenied:
            inner = getattr(request, "_request", None)
            if inner is not None:
                inner.axes_locked_out = True
            raise


def client_ip(request) -> str | None:
    """The client's address for the lockout: ``settings.CLIENT_IP_HEADER`` behind a proxy."""
    header = getattr(settings, "CLIENT_IP_HEADER", "")
    if header:
        value = request.META.get(header, "").split(",")[0].strip()
        if value:
            return value
    return request.META.get("REMOTE_ADDR")


@receiver(user_locked_out)
def _flag_the_django_request(sender, request, **kwargs):
    """The failure that locks answers with the lockout too, also behind DRF's request wrapper."""
    inner = getattr(request, "_request", None)
    if inner is not None:
        inner.axes_locked_out = True


def _wants_json(request) -> bool:
    return request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", "")


def lockout_response(request, original_response=None, credentials=None):
    """What a locked-out sign-in gets: 429, a clear message and when to try again."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = (
        f"Too many failed sign-ins for this user name from your address: signing in is locked "
        f"for {minutes} minutes. Try again later, or ask an administrator to unlock the account."
    )
    extra = {
        "retry_after_seconds": int(settings.AXES_COOLOFF_TIME.total_seconds()),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
    }
    if _wants_json(request):
        response = JsonResponse(error_body("account_locked", message, extra), status=429)
    else:
        response = render(request, "registration/locked_out.html", {"message": message, "minutes": minutes}, status=429)
    response["Retry-After"] = str(extra["retry_after_seconds"])
    return response


# --- two-factor sign-in (django-otp) ----------------------------------------------------


def confirmed_device(user) -> TOTPDevice | None:
    return TOTPDevice.objects.filter(user=user, confirmed=True).order_by("id").first()


def otp_required(user) -> bool:
    """A staff member with a confirmed device whose session has not entered a code yet."""
    if not is_staff_member(user):
        return False
    verified = getattr(user, "is_verified", None)
    if verified is not None and verified():
        return False
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def otp_blocks_session(user, session) -> bool:
    """For a websocket (no OTPMiddleware there): a staff member who needs a code and whose
    session has not verified one of the member's own devices."""
    if not otp_required(user):
        return False
    persistent_id = session.get(DEVICE_ID_SESSION_KEY) if session is not None else None
    device = Device.from_persistent_id(persistent_id) if persistent_id else None
    return device is None or device.user_id != user.pk


# Paths a signed-in but not yet verified person may still open.
_OTP_OPEN_PREFIXES = ("/static/", "/accounts/logout/", "/admin/logout/", "/api-auth/logout/", "/favicon")


class StaffOTPMiddleware(MiddlewareMixin):
    """Before the code is entered, a staff session with a device reaches only the code page."""

    def process_request(self, request):
        path = request.path
        if path.startswith(_OTP_OPEN_PREFIXES) or path in (reverse("otp-verify"),):
            return None
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or not otp_required(user):
            return None
        if path.startswith("/api/"):
            body = error_body(
                "otp_required",
                "Enter the code from your authenticator app first.",
                {"verify_url": reverse("otp-verify")},
            )
            return JsonResponse(body, status=403)
        return HttpResponseRedirect(f"{reverse('otp-verify')}?{urlencode({'next': request.get_full_path()})}")


class OTPRequired(ApplicationError, drf_exceptions.AuthenticationFailed):
    code = "otp_required"
    status = 403
    default_message = gettext_noop("This account signs in with a code as well: use a browser session, not a token.")

    def __init__(self, message: str | None = None):
        ApplicationError.__init__(self, message)
        self.detail = self.message
        self.status_code = self.status


class TokenExpired(ApplicationError, drf_exceptions.AuthenticationFailed):
    code = "token_expired"
    status = 401
    default_message = gettext_noop("This API token has expired: sign in again at /api/auth/token/ for a new one.")

    def __init__(self, message: str | None = None):
        ApplicationError.__init__(self, message)
        self.detail = self.message
        self.status_code = self.status


def token_expires_at(token):
    return token.created + settings.API_TOKEN_LIFETIME


class TokenAuthentication(DRFTokenAuthentication):
    """DRF's token, for ``settings.API_TOKEN_LIFETIME`` after it was issued; refused for
    staff who turned on two-factor sign-in (a token is one factor).

    The first authentication class, so that a call without credentials is a 401 with
    ``WWW-Authenticate: Token`` (a session-only API would answer 403).
    """

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if token_expires_at(token) <= timezone.now():
            raise TokenExpired()
        if is_staff_member(user) and TOTPDevice.objects.filter(user=user, confirmed=True).exists():
            raise OTPRequired()
        return user, token


class NoStoreMiddleware(MiddlewareMixin):
    """Every answer to a signed-in person (page or API, session or token) is ``no-store``:
    wallets, statements and the auditors' pages must not stay in a shared or browser cache."""

    def process_response(self, request, response):
        user = getattr(request, "user", None)
        signed_in = getattr(user, "is_authenticated", False) or "HTTP_AUTHORIZATION" in request.META
        if signed_in and "no-store" not in response.get("Cache-Control", ""):
            add_never_cache_headers(response)
        return response


def _safe_next(request, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return default


def _clean_code(raw: str | None) -> str | None:
    code = (raw or "").replace(" ", "").strip()
    return code if code.isdigit() and len(code) == 6 else None


@never_cache
@login_required
@sensitive_post_parameters("code")
def otp_verify(request):
    """The second step of signing in: the six-digit code of the confirmed device."""
    device = confirmed_device(request.user)
    default = reverse("lobby")
    if device is None or request.user.is_verified():
        return HttpResponseRedirect(_safe_next(request, default))
    error = None
    status = 200
    if request.method == "POST":
        code = _clean_code(request.POST.get("code"))
        if code is None:
            error, status = "The code is the six digits your authenticator app shows.", 400
        elif not device.verify_is_allowed()[0]:
            error, status = "Too many wrong codes: wait a little, then try again.", 429
        elif device.verify_token(code):
            otp_login(request, device)
            request.session.cycle_key()
            return HttpResponseRedirect(_safe_next(request, default))
        else:
            error, status = "That code is not right (or was already used). Try the current one.", 400
    context = {"error": error, "next": _safe_next(request, "")}
    return render(request, "registration/otp_verify.html", context, status=status)


def _qr_data_uri(text: str) -> str:
    import segno

    return segno.make(text, error="m").svg_data_uri(scale=5, border=2, dark="#000", light="#fff")


@never_cache
@login_required
@sensitive_post_parameters("code")
def otp_setup(request):
    """Turn on two-factor sign-in for one's own staff account: scan, then confirm a code."""
    user = request.user
    if not is_staff_member(user):
        raise DjangoPermissionDenied("Two-factor sign-in is for staff accounts.")
    if confirmed_device(user) is not None:
        return render(request, "registration/otp_setup.html", {"enabled": True})
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("id").first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name="Authenticator app", confirmed=False)
    error = None
    status = 200
    if request.method == "POST":
        code = _clean_code(request.POST.get("code"))
        if code is None:
            error, status = "The code is the six digits your authenticator app shows.", 400
        elif not device.verify_is_allowed()[0]:
            error, status = "Too many wrong codes: wait a little, then try again.", 429
        elif not device.verify_token(code):
            error, status = "That code is not right. Check the app's clock and try the current code.", 400
        else:
            otp_device_confirm(device=device, actor=user)
            otp_login(request, device)
            return render(request, "registration/otp_setup.html", {"enabled": True, "just_enabled": True})
    context = {
        "enabled": False,
        "uri": device.config_url,
        "secret": _b32_secret(device),
        "qr": _qr_data_uri(device.config_url),
        "error": error,
    }
    return render(request, "registration/otp_setup.html", context, status=status)


def _b32_secret(device: TOTPDevice) -> str:
    from base64 import b32encode

    return b32encode(device.bin_key).decode().rstrip("=")


def otp_device_confirm(*, device: TOTPDevice, actor) -> TOTPDevice:
    """Confirm a device (audited; the secret never goes into the audit trail)."""
    with transaction.atomic():
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        audit_record(
            actor=actor,
            action="otp.device_confirmed",
            obj=device,
            before=None,
            after={"user": device.user.get_username(), "device": device.name, "confirmed": True},
        )
    return device


# --- rate limits ------------------------------------------------------------------------

# The endpoints that act at a table (url names in casino/urls.py).
PLAY_ENDPOINTS = frozenset(
    {
        "api-table-sit",
        "api-table-leave",
        "api-table-bet",
        "api-hand-fold",
        "api-hand-raise",
        "api-poker-sit",
        "api-poker-top-up",
        "api-poker-sit-out",
        "api-poker-sit-in",
        "api-poker-leave",
        "api-poker-act",
        "api-poker-preaction",
        "api-poker-waiting-list",
        "api-poker-always-show",
    }
)

# The shortest time a player is ever given to act (casino.game.rules.MIN_TIME_TO_ACT_SECONDS:
# no table's betting window or decision time is shorter). A refused play action can
# always be retried well within it: the policy never asks a player to wait longer than
# PLAY_MAX_WAIT_SECONDS, whatever CASINO_PLAY_RATE says.
PLAY_MAX_WAIT_SECONDS = 1.0

_PERIODS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}


class RateLimited(ApplicationError):
    code = "rate_limited"
    status = 429
    default_message = gettext_noop("Too many play actions: wait a moment, then try again.")

    def __init__(self, retry_after: float):
        self.retry_after = max(1, math.ceil(retry_after))
        super().__init__(extra={"retry_after_seconds": round(retry_after, 3)})


class CacheUnavailable(ApplicationError):
    """The shared cache (Redis) cannot be reached: the request is not carried out."""

    code = "cache_unavailable"
    status = 503
    default_message = gettext_noop(
        "The service is briefly unavailable (its cache cannot be reached); nothing was done. Try again."
    )
    retry_after = 5


def play_rate() -> tuple[int, float] | None:
    """``CASINO_PLAY_RATE`` ("N/period") as (burst, seconds per action), or None (off).

    A player may make N play actions at once, then one more every period/N seconds, and
    never waits longer than ``PLAY_MAX_WAIT_SECONDS`` for the next one.
    """
    rate = getattr(settings, "CASINO_PLAY_RATE", None) or None
    if rate is None:
        return None
    count, _, period = rate.partition("/")
    burst = int(count)
    seconds = _PERIODS[period.strip().lower()]
    return burst, min(seconds / burst, PLAY_MAX_WAIT_SECONDS)


def _clock() -> float:
    return time.time()  # shared by every process through the cache: wall time, not monotonic


def _play_key(user) -> str:
    # The user's id and sign-up instant: a reused id (a test database) never inherits counts.
    joined = int(user.date_joined.timestamp() * 1_000_000)
    return f"play-rate:{user.pk}.{joined}"


# The same cell rate algorithm, as one Redis script: read, check and move the entry in
# one round trip, atomically (two actions of one player at once cannot both slip through).
# KEYS[1] the entry; ARGV now, interval, tolerance, expiry. Returns the wait ("0": allowed).
_GCRA_LUA = """
local now = tonumber(ARGV[1])
local full_at = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') or 0, now)
local wait = full_at - now - tonumber(ARGV[3])
if wait > 0 then return tostring(wait) end
redis.call('SET', KEYS[1], tostring(full_at + tonumber(ARGV[2])), 'EX', ARGV[4])
return '0'
"""


def _redis_server() -> tuple[str, dict]:
    """The default cache's Redis server, from the settings: its first ``LOCATION`` (the one
    Django's cache writes to) and the connection options of its ``OPTIONS``. The script
    runs on the cache's server through a client of its own."""
    config = settings.CACHES["default"]
    location = config["LOCATION"]
    first = (location.split(",") if isinstance(location, str) else list(location))[0].strip()
    not_for_connections = ("serializer", "pool_class", "parser_class")  # Django's own, not redis-py's
    options = {k: v for k, v in config.get("OPTIONS", {}).items() if k not in not_for_connections}
    return first, options


# One client and its registered script per cache server, made on first use (redis-py's
# clients are safe to share between threads).
_gcra_clients: dict[str, tuple] = {}  # location -> (client, script)


def _gcra_take(key: str, now: float, interval: float, tolerance: float) -> float:
    """One action against the entry ``key`` at ``now``: the seconds to wait, or 0 when it
    is allowed (and counted). Through Django's cache, or, on Redis, one atomic script."""
    expiry = math.ceil(tolerance + interval) + 1
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        location, options = _redis_server()
        if location not in _gcra_clients:
            client = redis.Redis.from_url(location, **options)
            _gcra_clients.setdefault(location, (client, client.register_script(_GCRA_LUA)))
        client, script = _gcra_clients[location]
        wait = script(keys=[backend.make_key(key)], args=[repr(now), repr(interval), repr(tolerance), expiry])
        return float(wait)
    full_at = max(float(cache.get(key) or 0.0), now)
    if full_at - now > tolerance:
        return full_at - now - tolerance
    cache.set(key, full_at + interval, timeout=expiry)
    return 0.0


# The same script through an asyncio client, per event loop and cache location.
_gcra_async_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # loop -> {location: (client, script)}
# One script call is one short round trip: a few connections per event loop serve thousands
# a second; past them a call waits its turn, up to the wait, then fails closed (503).
_ASYNC_REDIS_CONNECTIONS = 16
_ASYNC_REDIS_WAIT_SECONDS = 5.0


async def _gcra_take_async(backend: RedisCache, key: str, now: float, interval: float, tolerance: float) -> float:
    """``_gcra_take`` on Redis from the event loop: the same script, no thread waiting."""
    from redis import asyncio as aioredis

    expiry = math.ceil(tolerance + interval) + 1
    clients = _gcra_async_clients.setdefault(asyncio.get_running_loop(), {})
    location, options = _redis_server()
    if location not in clients:  # the cache's own connection options (timeouts), as the sync client has them
        # A pool that waits for a free connection: redis-py's default one refuses the
        # 101st concurrent call (MaxConnectionsError), which a burst of actions on one
        # server reaches, and every refused action was a 503 cache_unavailable.
        pool = aioredis.BlockingConnectionPool.from_url(
            location, max_connections=_ASYNC_REDIS_CONNECTIONS, timeout=_ASYNC_REDIS_WAIT_SECONDS, **options
        )
        client = aioredis.Redis(connection_pool=pool)
        clients[location] = (client, client.register_script(_GCRA_LUA))
    client, script = clients[location]
    wait = await script(keys=[backend.make_key(key)], args=[repr(now), repr(interval), repr(tolerance), expiry])
    return float(wait)


def _play_budget(user) -> tuple[str, float, float, float] | None:
    """(entry, now, interval, tolerance) of one play action of ``user``; None: not counted."""
    policy = play_rate()
    if policy is None or not getattr(user, "is_authenticated", False):
        return None
    burst, interval = policy
    return _play_key(user), _clock(), interval, (burst - 1) * interval


def play_rate_take(*, user) -> None:
    """Count one play action of ``user`` (REST and websocket alike: one budget per player).

    A generic cell rate algorithm over one cache entry: the entry holds the instant at
    which the player's budget is full again. Raises ``RateLimited`` (with the seconds
    until the next action is allowed, at most ``PLAY_MAX_WAIT_SECONDS``) or, when the cache
    cannot be reached, ``CacheUnavailable``.
    """
    budget = _play_budget(user)
    if budget is None:
        return
    try:
        wait = _gcra_take(*budget)
    except (RedisError, OSError) as exc:
        raise CacheUnavailable() from exc
    if wait > 0:
        raise RateLimited(wait)


async def play_rate_take_async(*, user) -> None:
    """``play_rate_take`` from the event loop (the live table's socket, before its action's
    database job): on Redis one round trip that holds no thread; another cache is in
    this process (``make run``'s memory) and is asked directly."""
    budget = _play_budget(user)
    backend = caches["default"]
    if budget is None or not isinstance(backend, RedisCache):
        play_rate_take(user=user)
        return
    try:
        wait = await _gcra_take_async(backend, *budget)
    except (RedisError, OSError) as exc:
        raise CacheUnavailable() from exc
    if wait > 0:
        raise RateLimited(wait)


class PlayThrottle(BaseThrottle):
    """Per player, on the play endpoints only: the play-rate policy (``play_rate_take``).

    Set on every API view by default; the other endpoints pass untouched. The live
    table's socket counts its play actions against the same budget.
    """

    def allow_request(self, request, view):
        match = getattr(request, "resolver_match", None)
        if request.method in SAFE_METHODS or match is None or match.url_name not in PLAY_ENDPOINTS:
            return True
        play_rate_take(user=request.user)  # raises RateLimited / CacheUnavailable
        return True


def rate_count(*, scope: str, ident: str, rate: str) -> float | None:
    """One more hit of ``ident`` in ``scope`` within a fixed window of ``rate`` ("N/period").

    None while the window has room; else the seconds until the window ends. Raises
    ``CacheUnavailable`` when the cache cannot be reached (the caller refuses: fail closed).
    """
    count, _, period = rate.partition("/")
    limit, seconds = int(count), _PERIODS[period.strip().lower()]
    now = _clock()
    window = int(now // seconds)
    key = f"rate:{scope}:{window}:{hashlib.sha256(ident.encode()).hexdigest()}"
    try:
        cache.add(key, 0, timeout=seconds + 1)
        hits = cache.incr(key)
    except ValueError:  # expired between add and incr: a new window
        cache.set(key, 1, timeout=seconds + 1)
        hits = 1
    except (RedisError, OSError) as exc:
        raise CacheUnavailable() from exc
    if hits > limit:
        return (window + 1) * seconds - now
    return None
