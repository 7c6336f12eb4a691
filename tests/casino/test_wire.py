"""The live sockets' JSON (``casino.live.wire``): the values JSON has no type for keep the
text the pages read (docs/websocket.md), whichever encoder writes them."""

from __future__ import annotations

import datetime
import json
import uuid
from decimal import Decimal

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.translation import gettext_lazy, override

from casino.live import wire

INSTANT = datetime.datetime(2026, 12, 6, 12, 27, 55, 588_123, tzinfo=datetime.UTC)


def test_a_frame_writes_amounts_as_decimal_strings_and_instants_in_utc_to_the_millisecond():
    frame = wire.dumps({"type": "wallet", "wallet": {"available": Decimal("997.00")}, "server_time": INSTANT})
    assert json.loads(frame) == {
        "type": "wallet",
        "wallet": {"available": "997.00"},
        "server_time": "2026-12-06T12:27:55.588Z",
    }


def test_a_frame_reads_as_django_s_own_encoder_would_write_it():
    content = {
        "amount": Decimal("-1.50"),
        "at": INSTANT,
        "day": INSTANT.date(),
        "limit": datetime.timedelta(seconds=90),
        "token": uuid.UUID(int=7),
        "seats": {1: "alice", 2: None},  # keys as text, as JSON has them
        "cards": ("As", "Kd"),
        "label": gettext_lazy("Raised"),
        "words": "Netto: +1,50 € — Paar Asse",
    }
    with override("de"):
        assert json.loads(wire.dumps(content)) == json.loads(json.dumps(content, cls=DjangoJSONEncoder))
    assert wire.plain(content) == json.loads(json.dumps(content, cls=DjangoJSONEncoder))


def test_a_value_json_cannot_carry_is_an_error_not_a_silent_frame():
    with pytest.raises(TypeError):
        wire.dumps({"seats": {object()}})
