"""A killed server and a killed worker in the middle of a hand's last step.

Each is a real process, killed with SIGKILL while it holds the step's transaction open
inside the settlement: the hand is found as it was before the step (live, the same
version, nothing posted), and it then ends with exactly one settlement, the tables
reconciling to the cent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.demo_db import demo_sqlite
from tests.e2e.conftest import DROPPED_ENV, ROOT

pytestmark = pytest.mark.slow

SEVEN = "Seven Card Stud 2-4"
SOKO = "SOKO 2-4"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("poker-killed")
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV and k not in ("DATABASE_URL", "DEBUG")}
    database = demo_sqlite(tmp_path_factory, workdir / "db.sqlite3")  # migrated, load_demo loaded
    env.update(DATABASE_URL=database, PYTHONUNBUFFERED="1", CASINO_TIMERS="local")
    for table in (SEVEN, SOKO):
        child(env, "deal", table)
    return env


def child(env, *args, check=True) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [sys.executable, "-m", "tests.poker.killed_child", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def kill_while_posting(env, step: str, table: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.poker.killed_child", step, table],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        line = ""
        while time.monotonic() < deadline and "POSTING" not in line:
            line = process.stdout.readline()
            if not line and process.poll() is not None:
                raise AssertionError(f"the {step} ended before posting: {process.stderr.read()}")
        assert "POSTING" in line
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def inspect(env, table: str) -> dict:
    return json.loads(child(env, "inspect", table).stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("step,table", [("server", SEVEN), ("worker", SOKO)])
def test_a_killed_process_loses_nothing_and_pays_nothing_twice(env, step, table):
    before = inspect(env, table)
    assert before["state"] == "live" and before["version"] == 0 and before["stacks"] == [2000, 2000]
    kill_while_posting(env, step, table)
    after = inspect(env, table)
    # The bring-in (its own committed step) stands; the killed step left nothing.
    assert after == {**before, "version": 1}
    child(env, f"resume-{step}", table)
    done = inspect(env, table)
    assert done["hand"] == before["hand"] and done["state"] == "ended" and done["settlements"] == 1
    assert sum(done["stacks"]) + done["rake"] == 4000
