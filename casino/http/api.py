"""API plumbing shared by every app: the one exception handler and the error shape."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from redis.exceptions import RedisError
from rest_framework import exceptions as drf_exceptions
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.http.errors import ApplicationError, CsrfFailed

_DRF_CODES = {
    drf_exceptions.NotAuthenticated: "not_authenticated",
    drf_exceptions.AuthenticationFailed: "authentication_failed",
    drf_exceptions.PermissionDenied: "forbidden",
    drf_exceptions.NotFound: "not_found",
    drf_exceptions.MethodNotAllowed: "method_not_allowed",
    drf_exceptions.NotAcceptable: "not_acceptable",
    drf_exceptions.UnsupportedMediaType: "unsupported_media_type",
    drf_exceptions.Throttled: "throttled",
    drf_exceptions.ParseError: "malformed_request",
    drf_exceptions.ValidationError: "invalid",
}


# How DRF's SessionAuthentication.enforce_csrf words its refusal ("CSRF Failed: <reason>").
_DRF_CSRF_FAILED = "CSRF Failed:"


def error_body(code: str, message: str, extra: dict | None = None) -> dict:
    return {"code": code, "message": message, "extra": extra or {}}


def field_code(name: str, codes) -> str:
    """One stable code per field of a refused body: ``seat_invalid``, ``ante_required``."""
    while isinstance(codes, (list, tuple)) and codes:
        codes = codes[0]
    if isinstance(codes, dict):  # a nested serializer: its first field speaks for it
        codes = next(iter(codes.values()), "invalid")
        return field_code(name, codes)
    if name == "non_field_errors":
        name = "body"
    return f"{name}_required" if codes in ("required", "null", "blank") else f"{name}_invalid"


def exception_handler(exc, context):
    """Map every error to ``{"code", "message", "extra"}`` with its 4xx status."""
    if isinstance(exc, RedisError):  # the cache (or the channel layer's Redis) is down: say so, briefly
        from casino.access.security import CacheUnavailable

        exc = CacheUnavailable()
    if isinstance(exc, drf_exceptions.PermissionDenied) and str(exc.detail).startswith(_DRF_CSRF_FAILED):
        exc = CsrfFailed(extra={"reason": str(exc.detail).removeprefix(_DRF_CSRF_FAILED).strip()})
    if isinstance(exc, ApplicationError):
        headers = {}
        if getattr(exc, "auth_header", None):  # a refused credential (token_expired): 401 says how to sign in
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "retry_after", None) is not None:
            headers["Retry-After"] = str(exc.retry_after)
        return Response(error_body(exc.code, exc.message, exc.extra), status=exc.status, headers=headers)
    if isinstance(exc, Http404):
        exc = drf_exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf_exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    if isinstance(exc, drf_exceptions.ValidationError):
        extra = {"fields": exc.detail}
        if isinstance(exc.detail, dict):
            extra["codes"] = {name: field_code(name, codes) for name, codes in exc.get_codes().items()}
        response.data = error_body(code, gettext("The request is not valid."), extra)
    else:
        response.data = error_body(code, str(exc.detail))
    return response


@extend_schema_field(OpenApiTypes.STR)
class RawField(serializers.Field):
    """A field passed through untouched, for values a service parses itself (amounts)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_null", True)  # the parser gives null its own error code
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


@csrf_exempt  # it changes nothing: whatever the method, nothing is there (404, not the CSRF 403)
def api_not_found(request, path: str = ""):
    """Every unknown path under ``/api/``: the JSON error shape, never the HTML 404 page.

    (The last route of ``/api/``, so Django's ``APPEND_SLASH`` redirect cannot run there:
    a path that exists with a trailing slash says so in ``extra.did_you_mean``.)
    """
    from django.http import JsonResponse
    from django.urls import Resolver404, resolve

    extra = {}
    if not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            extra["did_you_mean"] = request.path + "/"
    return JsonResponse(error_body("not_found", gettext("There is no such API endpoint."), extra), status=404)


def one_value_per_parameter(get_response):
    """A query parameter of the API is one value: given twice (``?limit=5&limit=500``), the
    request is refused (400 ``<name>_invalid``) before any view reads it, instead of being
    answered for whichever of the values the view's reader happens to take (Django's
    ``QueryDict.get`` takes the last)."""
    from django.http import JsonResponse

    def middleware(request):
        if request.path.startswith("/api/"):
            for name, values in request.GET.lists():
                if len(values) > 1:
                    message = gettext("'%(field)s' is given once.") % {"field": name}
                    return JsonResponse(error_body(f"{name}_invalid", message, {"field": name}), status=400)
        return get_response(request)

    return middleware


def api_csrf_failure(request, reason: str = ""):
    """``CSRF_FAILURE_VIEW``: a plain view under ``/api/`` refused by the CSRF check answers
    JSON (403 ``csrf_failed``); a page keeps Django's page."""
    from django.http import JsonResponse
    from django.views.csrf import csrf_failure

    if request.path.startswith("/api/"):
        return JsonResponse(error_body(CsrfFailed.code, CsrfFailed.default_message, {"reason": reason}), status=403)
    return csrf_failure(request, reason)


def api_server_error(request):
    """A failure no handler foresaw: JSON under ``/api/``, the HTML page elsewhere."""
    from django.http import JsonResponse
    from django.views.defaults import server_error

    if request.path.startswith("/api/"):
        return JsonResponse(
            error_body("server_error", gettext("Something went wrong on our side; nothing you sent was at fault.")),
            status=500,
        )
    return server_error(request)


# --- the OpenAPI description of errors ----------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    """The one error shape of every API failure."""

    code = serializers.CharField(help_text="Stable, machine-readable: 'seat_invalid', 'insufficient_funds', …")
    message = serializers.CharField(help_text="For people.")
    extra = serializers.DictField(
        help_text="Details: 'fields' and 'codes' for refused bodies, 'retry_after_seconds', 'max_limit', …"
    )


ERROR_DESCRIPTIONS = {
    400: "The request is not valid (a field, a query parameter, the body); nothing was changed.",
    401: "Not signed in, or the token is unknown or expired (WWW-Authenticate: Token).",
    403: "Signed in, but this account may not do this.",
    404: "No such object, or not one of yours.",
    405: "This method is not allowed here.",
    409: "Well formed, but the current state does not allow it (e.g. 'already_bet', 'hand_over').",
    429: "Too many play actions: retry after Retry-After seconds (never longer than the time to act).",
    503: "A service the request needs (the cache) cannot be reached; nothing was done.",
}


def error_responses(*statuses: int) -> dict:
    """``{status: the error shape}`` for ``extend_schema(responses=…)``."""
    return {code: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[code]) for code in statuses}


def schema_postprocess(result, generator, request, public):
    """Every operation documents the errors every endpoint can give: 401 (it needs a
    sign-in), 403, 404 for a path with an id, 400 for a body or a query, 405 — in the
    error shape; and the shape itself as the ``Error`` component."""
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            wanted = [403, 405]
            if operation.get("security") != [{}] and operation.get("security", [None]) != []:
                wanted.append(401)
            if "{" in path:
                wanted.append(404)
            if method in ("post", "put", "patch") or any(
                p.get("in") == "query" for p in operation.get("parameters", [])
            ):
                wanted.append(400)
            for status_code in wanted:
                operation["responses"].setdefault(
                    str(status_code),
                    {
                        "description": ERROR_DESCRIPTIONS[status_code],
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    },
                )
    return result


def api_bad_request(request, exception=None):
    """What Django itself refuses before a view runs (a body above
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``, too many fields, a bad host): JSON under ``/api/``."""
    from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
    from django.http import JsonResponse
    from django.views.defaults import bad_request

    if not request.path.startswith("/api/"):
        return bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        body = error_body(
            "request_too_large",
            "The request body is too large.",
            {"max_bytes": settings.DATA_UPLOAD_MAX_MEMORY_SIZE},
        )
        return JsonResponse(body, status=413)
    if isinstance(exception, TooManyFieldsSent):
        return JsonResponse(error_body("too_many_fields", "The request has too many fields."), status=400)
    return JsonResponse(error_body("bad_request", "The request could not be read."), status=400)
