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


def exception_handler(exc, context):
    """Map every error to ``{"code", "message", "extra"}`` with its 4xx status."""
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc.code, exc.message, exc.extra), status=exc.status)
    if isinstance(exc, Http404):
        exc = drf_exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf_exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    if isinstance(exc, drf_exceptions.ValidationError):
        response.data = error_body(code, "The request is not valid.", {"fields": exc.detail})
    else:
        response.data = error_body(code, str(exc.detail))
    return response


class DecimalJSONParser(JSONParser):
    """JSON whose numbers with a fraction become ``Decimal``, never ``float``."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return json.load(codecs.getreader(encoding)(stream), parse_float=Decimal)
        except ValueError as exc:
            raise drf_exceptions.ParseError(f"JSON parse error - {exc}") from None


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
