"""Recorded websocket sequences for the pages' own unit tests (``tests/js/``).

A test plays a short game over the players' sockets and hands what one player's socket
received to ``compare_or_record``. The fixture under ``tests/js/fixtures/`` must keep
the shape of what the server sends today (the same message types and event kinds in
the same order, the same keys): when the protocol changes the test fails, and
``RECORD_JS_FIXTURES=1`` records the fixture again (then run ``node --test tests/js/``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.sockets import drain_until

FIXTURES = Path(__file__).resolve().parent / "js" / "fixtures"


def shape(value):
    """What a value looks like without its values: keys, value kinds, list items' shapes."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in sorted(value.items())}
    if isinstance(value, list):
        shapes: list = []
        for item in value:
            s = shape(item)
            if s not in shapes:
                shapes.append(s)
        return shapes
    return type(value).__name__


async def receive_until(comm, seen: list[dict], test) -> None:
    """Add to ``seen`` what ``comm`` receives until a message that passes ``test`` is among
    them (at once if one already is), then everything more until the socket is quiet."""
    seen.extend(await drain_until(comm, lambda got: any(test(m) for m in seen + got)))


def event_of(kind: str, hand: int | None = None, **fields):
    """A test for ``receive_until``: the table's event ``kind`` (of ``hand``, with ``fields``)."""

    def test(message: dict) -> bool:
        event = message.get("event") or {}
        return (
            message["type"] == "event"
            and event.get("kind") == kind
            and (hand is None or event.get("hand") == hand)
            and all(event.get(k) == v for k, v in fields.items())
        )

    return test


def skeleton(messages: list[dict]) -> dict:
    """What must not change between two recordings of the same play: the table's events in
    their order, and which kinds of message come at all (a player's own messages travel on
    another channel: where they fall among the table's events, and how many wallet updates
    are merged into one, depends on timing)."""
    return {
        "events": [m["event"]["kind"] for m in messages if m["type"] == "event"],
        "types": sorted({m["type"] for m in messages}),
    }


def _key(message: dict) -> tuple:
    return (message["type"], (message.get("event") or {}).get("kind"))


def compare_or_record(name: str, recording: dict) -> None:
    path = FIXTURES / name
    if os.environ.get("RECORD_JS_FIXTURES") or not path.exists():
        if os.environ.get("CI") and not path.exists():
            pytest.fail(f"{path} is missing: record it with RECORD_JS_FIXTURES=1")
        path.write_text(json.dumps(recording, indent=1, sort_keys=True) + "\n")
        return
    kept = json.loads(path.read_text())
    assert skeleton(kept["messages"]) == skeleton(recording["messages"]), (
        f"the server's messages changed: record {name} again (RECORD_JS_FIXTURES=1)"
    )
    shapes: dict[tuple, list] = {}
    for message in kept["messages"]:
        shapes.setdefault(_key(message), []).append(shape(message))
    for message in recording["messages"]:
        assert shape(message) in shapes[_key(message)], (
            f"a message's shape changed: record {name} again (RECORD_JS_FIXTURES=1)\n{message}"
        )
