"""The JSON of the live sockets: every frame a table's socket sends, and every batch of
events a step hands to the channel layer, encoded here.

orjson encodes (a frame is encoded per socket or per process and language, thousands a
second); the values JSON has no type for keep ``DjangoJSONEncoder``'s text
(docs/websocket.md): a ``Decimal`` as its digits, a datetime as ISO 8601 to the
millisecond with ``Z``, lazy translations as their words.
"""

from __future__ import annotations

import orjson
from django.core.serializers.json import DjangoJSONEncoder

_DJANGO = DjangoJSONEncoder()
# Datetimes through Django's format (orjson's own keeps microseconds); int keys as text, as json does.
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def _default(value):
    return _DJANGO.default(value)  # raises TypeError for what JSON cannot carry


def dumps(content) -> str:
    """``content`` as a frame's text."""
    return orjson.dumps(content, default=_default, option=_OPTIONS).decode()


def plain(content):
    """``content`` as the JSON a client reads would bring it back: dicts, lists, text,
    numbers (what the Redis layer's msgpack carries, and the same on every layer)."""
    return orjson.loads(orjson.dumps(content, default=_default, option=_OPTIONS))
