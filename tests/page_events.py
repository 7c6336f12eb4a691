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


def skeleton(messages: list[dict]) -> list[tuple]:
    return [(m["type"], (m.get("event") or {}).get("kind")) for m in messages]


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
    for old, new in zip(kept["messages"], recording["messages"]):
        assert shape(old) == shape(new), f"a message's shape changed: record {name} again\n{old}\n{new}"
