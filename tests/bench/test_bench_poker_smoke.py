"""The poker room's live bench runs end to end and prints its figures.

``bench/bench_poker_tables.py --quick``: 2 Seven Card Stud tables x 3 bots over real
websockets for a few seconds, beside one Caribbean table's bots and the bare Channels echo,
on its own scratch database (dropped at the end) and the Redis channel layer. Slow (a
migrated database and two daphne servers): about two minutes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_postgres, require_redis

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.timeout(900)]  # ~3 min on a busy machine

ROOT = Path(__file__).resolve().parents[2]
FIGURES = r"\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$"  # n, p50, p95, p99, max


def figures(output: str, label: str) -> tuple[int, float, float]:
    """(n, p50, p99) of the latency row that starts with ``label``."""
    match = re.search(re.escape(label) + r"[^\n]*?" + FIGURES, output, re.MULTILINE)
    assert match, f"no figures for {label!r} in:\n{output}"
    n, p50, _, p99, _ = match.groups()
    return int(n), float(p50), float(p99)


def test_the_poker_bench_plays_measures_and_reconciles():
    require_postgres()
    redis_server = require_redis()
    env = dict(os.environ)
    env.setdefault("BENCH_REDIS_URL", f"{redis_server}/10")
    done = subprocess.run(
        [
            sys.executable,
            "bench/bench_poker_tables.py",
            "--quick",
            "--tables",
            "2",
            "--bots",
            "3",
            "--caribbean-tables",
            "1",
            "--seconds",
            "5",
            "--warmup",
            "4",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    n, p50, p99 = figures(out, "poker: act -> its event at all 3 clients")
    assert n > 0 and 0 < p50 <= p99
    assert figures(out, "poker: act -> drawn that far at all 3")[0] > 0
    assert figures(out, "echo at the poker rate")[0] > 0
    assert figures(out, "Caribbean: all actions -> all 4")[0] > 0
    assert figures(out, "Caribbean run's echo, same rate")[0] > 0
    assert re.search(r"ratios poker event / echo at the poker rate: p50 x[\d.]+, p99 x[\d.]+", out), out
    assert re.search(r"ratios poker event / Caribbean action: p50 x[\d.]+, p99 x[\d.]+", out), out
    assert re.search(r"target p99 < 100 ms \(act -> event at every client\): (meets|MISSES)", out), out
    assert "Ledger, jackpot and poker tables reconcile after the runs." in out
