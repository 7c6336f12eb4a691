"""A replayed request (same Idempotency-Key) gets the first response exactly,
byte for byte: timestamps keep their microseconds, keys their order, on every database."""

from __future__ import annotations

import json

import pytest

from casino.models import IdempotencyRecord

pytestmark = pytest.mark.django_db


def _with_microseconds(text: str) -> list[str]:
    """Every ISO timestamp in a body whose fraction of a second is not zero."""
    import re

    return re.findall(r"\d{2}:\d{2}:\d{2}\.\d{6}", text)


def test_a_replayed_bet_is_the_first_response_byte_for_byte(table, make_player, api, monkeypatch):
    import django.utils.timezone as tz

    real_now = tz.now
    monkeypatch.setattr(tz, "now", lambda: real_now().replace(microsecond=123456))  # never a round second
    alice, bob = make_player(username="alice"), make_player(username="bob")
    client = api(alice)
    api(bob).post(f"/api/tables/{table.pk}/sit/", {}, format="json")
    sat = client.post(f"/api/tables/{table.pk}/sit/", {}, format="json", HTTP_IDEMPOTENCY_KEY="sit-1")
    again = client.post(f"/api/tables/{table.pk}/sit/", {}, format="json", HTTP_IDEMPOTENCY_KEY="sit-1")
    assert again.status_code == sat.status_code == 201
    assert again.content == sat.content
    first = client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json", HTTP_IDEMPOTENCY_KEY="bet-1")
    assert first.status_code == 201
    assert _with_microseconds(first.content.decode()), "the bet's answer carries its timestamps to the microsecond"
    replay = client.post(f"/api/tables/{table.pk}/bet/", {"ante": "1.00"}, format="json", HTTP_IDEMPOTENCY_KEY="bet-1")
    assert replay.status_code == 201 and replay["Idempotent-Replayed"] == "true"
    assert replay.content == first.content
    assert replay["Content-Type"] == first["Content-Type"]
    assert json.loads(replay.content) == json.loads(first.content)


def test_what_was_sent_is_what_is_stored(table, make_player, api):
    alice = make_player(username="alice")
    sat = api(alice).post(f"/api/tables/{table.pk}/sit/", {}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    record = IdempotencyRecord.objects.get(user=alice, key="k1")
    assert bytes(record.body) == sat.content and record.status_code == 201
