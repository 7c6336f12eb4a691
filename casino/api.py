"""API plumbing shared by every app: the one exception handler and the error shape."""

from __future__ import annotations

import codecs
import json
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions as drf_exceptions
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.errors import ApplicationError
from casino.validation import request_object

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
        response.data = error_body(code, "The request is not valid.", extra)
    else:
        response.data = error_body(code, str(exc.detail))
    return response


class DecimalJSONParser(JSONParser):
    """JSON whose numbers with a fraction become ``Decimal``, never ``float``."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.load(codecs.getreader(encoding)(stream), parse_float=Decimal)
        except ValueError as exc:
            raise drf_exceptions.ParseError(f"JSON parse error - {exc}") from None
        return request_object(data)  # every endpoint takes an object; a list or a number is a 400


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
    return JsonResponse(error_body("not_found", "There is no such API endpoint.", extra), status=404)


def api_server_error(request):
    """A failure no handler foresaw: JSON under ``/api/``, the HTML page elsewhere."""
    from django.http import JsonResponse
    from django.views.defaults import server_error

    if request.path.startswith("/api/"):
        return JsonResponse(error_body("server_error", "Something went wrong on our side; nothing you sent was at fault."), status=500)
    return server_error(request)
