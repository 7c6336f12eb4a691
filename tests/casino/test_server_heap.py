"""A server process's garbage collector leaves what was loaded at start-up alone.

A full collection stops every thread of the process, the event loop that relays every
table's events among them, for as long as it walks the objects it tracks. At 200 live
tables one walked Django, the apps and their views (160,000 objects) for 128 ms while
every table's actions waited (bench/README.md). ``casino.asgi`` imports the views and
freezes what is loaded, so a collection walks only what the process made since, and
collects the young generation less often.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json, sys
import casino.asgi
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "threshold": gc.get_threshold(),
    "walked": len(gc.get_objects()),
    "views": [name for name in ("tables.views", "poker.views", "backoffice.cashier.views") if name in sys.modules],
}))
"""


def test_a_server_process_freezes_what_it_loaded_before_serving():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    heap = json.loads(done.stdout.strip().splitlines()[-1])
    # The pages' code is loaded before the first request, and frozen with the rest.
    assert heap["views"] == ["tables.views", "poker.views", "backoffice.cashier.views"]
    assert heap["frozen"] > 50_000
    # What a full collection would walk is what was made after the freeze: next to nothing.
    assert heap["walked"] < heap["frozen"] // 20
    # The young generation waits for more new objects than the interpreter's 700.
    assert heap["threshold"][0] >= 5_000
