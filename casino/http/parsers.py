"""The API's request parsers, named by ``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``.

Their own module, importing no DRF view: DRF reads that setting while ``rest_framework.views``
is being imported, so the parsers must load without it.
"""

from __future__ import annotations

import codecs
import json
from decimal import Decimal

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import exceptions as drf_exceptions
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from casino.http.errors import Translated, ValidationError
from casino.http.validation import request_object


def _given_twice(name: str) -> ValidationError:
    """A field the body names twice (``amount=5.00&amount=500.00``; ``{"player": 9, "player":
    8}``) is refused, as a query parameter given twice is (``one_value_per_parameter``),
    rather than read as whichever value a parser keeps (the last)."""
    return ValidationError(
        Translated(gettext("'%(field)s' is given once.") % {"field": name}),
        code=f"{name}_invalid",
        extra={"field": name},
    )


def _one_value_each(pairs: list[tuple[str, object]]) -> dict:
    data = {}
    for name, value in pairs:
        if name in data:
            raise _given_twice(name)
        data[name] = value
    return data


def _once_in(values) -> None:
    """``values``, a form's ``MultiValueDict``, holds one value under each name."""
    for name, given in values.lists():
        if len(given) > 1:
            raise _given_twice(name)


class DecimalJSONParser(JSONParser):
    """JSON whose numbers with a fraction become ``Decimal``, never ``float``, and whose
    objects name each key once."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.load(codecs.getreader(encoding)(stream), parse_float=Decimal, object_pairs_hook=_one_value_each)
        except ValueError as exc:
            raise drf_exceptions.ParseError(gettext("JSON parse error - %(problem)s") % {"problem": exc}) from None
        return request_object(data)  # every endpoint takes an object; a list or a number is a 400


class OneValueFormParser(FormParser):
    """A form body (``application/x-www-form-urlencoded``) that names each field once."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        _once_in(data)
        return data


class OneValueMultiPartParser(MultiPartParser):
    """A ``multipart/form-data`` body that names each field and each file once."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        _once_in(parsed.data)
        _once_in(parsed.files)
        return parsed
