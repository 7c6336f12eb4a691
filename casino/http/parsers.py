"""The API's request parser, named by ``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``.

Its own module, importing no DRF view: DRF reads that setting while ``rest_framework.views``
is being imported, so the parser must load without it.
"""

from __future__ import annotations

import codecs
import json
from decimal import Decimal

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import exceptions as drf_exceptions
from rest_framework.parsers import JSONParser

from casino.http.validation import request_object


class DecimalJSONParser(JSONParser):
    """JSON whose numbers with a fraction become ``Decimal``, never ``float``."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.load(codecs.getreader(encoding)(stream), parse_float=Decimal)
        except ValueError as exc:
            raise drf_exceptions.ParseError(gettext("JSON parse error - %(problem)s") % {"problem": exc}) from None
        return request_object(data)  # every endpoint takes an object; a list or a number is a 400
