"""``Idempotency-Key`` for state-changing endpoints: a retry gets the first response.

The record and the request's effect commit in one transaction. The record keeps the bytes
of the first response, and a replay sends exactly those bytes (status and content type
too). Two identical requests racing each other serialize on the record's unique key: the
second waits for the first to commit, then answers with its stored response and changes
nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re

from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.http import HttpResponse
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.renderers import JSONRenderer

from casino.http.errors import Conflict, Translated, ValidationError
from casino.models import IDEMPOTENCY_KEY_MAX, IdempotencyRecord

HEADER = "Idempotency-Key"
_KEY_RE = re.compile(r"^[\x21-\x7e]{1,%d}$" % IDEMPOTENCY_KEY_MAX)


def _fingerprint(request) -> str:
    body = json.dumps(request.data, sort_keys=True, cls=DjangoJSONEncoder, default=str)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


IDEMPOTENCY_PARAMETER = OpenApiParameter(
    HEADER,
    str,
    OpenApiParameter.HEADER,
    required=False,
    description=f"1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters. A retry with the same key and body gets "
    "the first response, byte for byte (with Idempotent-Replayed: true) and changes nothing; the same key "
    "with another body is a 409 idempotency_key_reused.",
)


def idempotent(view_method):
    """Decorate an APIView's ``post``; without the header the view runs as usual.

    The schema of the operation documents the header (drf-spectacular merges this with
    the view's own ``extend_schema``).
    """

    @extend_schema(parameters=[IDEMPOTENCY_PARAMETER])
    @functools.wraps(view_method)
    def wrapper(self, request, *args, **kwargs):
        key = request.headers.get(HEADER)
        if key is None:
            return view_method(self, request, *args, **kwargs)
        if not _KEY_RE.match(key):
            raise ValidationError(
                Translated(
                    gettext("%(header)s must be 1 to %(max)s visible ASCII characters.")
                    % {"header": HEADER, "max": IDEMPOTENCY_KEY_MAX}
                ),
                code="idempotency_key_invalid",
            )
        fingerprint = _fingerprint(request)
        with transaction.atomic():
            record, created = IdempotencyRecord.objects.get_or_create(
                user=request.user,
                key=key,
                defaults={"method": request.method, "path": request.path[:300], "fingerprint": fingerprint},
            )
            if not created:
                if record.fingerprint != fingerprint:
                    raise Conflict(
                        "This Idempotency-Key was already used for a different request.",
                        code="idempotency_key_reused",
                    )
                return _replay(record)
            response = view_method(self, request, *args, **kwargs)
            # Render once, as the client will receive it, and keep those bytes: a JSON
            # column would lose microseconds (DjangoJSONEncoder) and key order (jsonb).
            body = JSONRenderer().render(response.data)
            record.status_code = response.status_code
            record.response = json.loads(body)
            record.body = body
            record.content_type = JSON_CONTENT_TYPE
            record.save(update_fields=["status_code", "response", "body", "content_type"])
            first = HttpResponse(body, status=response.status_code, content_type=JSON_CONTENT_TYPE)
            for name, value in response.items():
                if name.lower() != "content-type":
                    first[name] = value
            return first

    return wrapper


JSON_CONTENT_TYPE = "application/json"


def _replay(record: IdempotencyRecord) -> HttpResponse:
    if record.body is None:  # recorded before the bytes were kept
        body = JSONRenderer().render(record.response)
    else:
        body = bytes(record.body)
    response = HttpResponse(body, status=record.status_code, content_type=record.content_type or JSON_CONTENT_TYPE)
    response["Idempotent-Replayed"] = "true"
    return response
