"""The demo database for the tests that start their own servers, built once per run.

``migrate`` and ``load_demo`` take a Python process 10-20 s on a busy machine, and a dozen
modules (the browser tests, the live protocol, the killed processes, the bench smoke)
each want a fresh SQLite file holding exactly what ``make run`` loads. The first of them
in a run builds it, under a file lock that every xdist worker of the run shares; each then
gets its own copy (SQLite's backup API, so the copy is consistent), which its server may
change at will.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The variables that would point ``manage.py`` elsewhere; the template is plain SQLite.
_NOT_INHERITED = ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER", "CASINO_TIMERS")


def _run_root(tmp_path_factory) -> Path:
    """A folder of this run that all its xdist workers share (each has its own basetemp below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _manage(env: dict, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def _template(tmp_path_factory) -> Path:
    root = _run_root(tmp_path_factory)
    template = root / "demo-template.sqlite3"
    with open(root / "demo-template.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one builder; the others wait, then copy
        if not template.exists():
            building = root / "demo-template.building.sqlite3"
            building.unlink(missing_ok=True)
            env = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
            env.update(DATABASE_URL=f"sqlite:///{building}", DJANGO_SETTINGS_MODULE="casino.settings")
            _manage(env, "migrate", "--noinput")
            _manage(env, "load_demo")
            building.rename(template)  # only a complete template is ever found
    return template


def demo_sqlite(tmp_path_factory, dest: Path) -> str:
    """Copy the run's demo database (migrated, ``load_demo`` loaded) to ``dest``; returns
    its ``DATABASE_URL``."""
    template = _template(tmp_path_factory)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(template) as source, sqlite3.connect(dest) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    return f"sqlite:///{dest}"
