"""The development server's log, as ``make run`` starts it (``manage.py runserver``, which
Daphne serves): each request is one line, each warning one line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

from tests.demo_db import demo_sqlite
from tests.e2e.conftest import DROPPED_ENV, ROOT, _free_port, wait_until_serving


def test_runserver_logs_each_request_once(tmp_path_factory, tmp_path):
    env = {
        k: v for k, v in os.environ.items() if k not in DROPPED_ENV and k not in ("DATABASE_URL", "DEBUG", "LOG_LEVEL")
    }
    env.update(DATABASE_URL=demo_sqlite(tmp_path_factory, tmp_path / "db.sqlite3"), PYTHONUNBUFFERED="1")
    port = _free_port()
    log = tmp_path / "runserver.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, process, log, what="runserver", seconds=60)
        with urllib.request.urlopen(base + "/accounts/signup/", timeout=10) as response:
            assert response.status == 200
        try:
            urllib.request.urlopen(base + "/no-such-page-probe/", timeout=10)
        except urllib.error.HTTPError as error:
            assert error.code == 404
        deadline = time.monotonic() + 10
        while "no-such-page-probe" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(0.5)
    finally:
        process.terminate()
        process.wait(timeout=10)
    lines = log.read_text().splitlines()
    everything = "\n".join(lines)
    assert len([line for line in lines if "GET /accounts/signup/ 200" in line]) == 1, everything
    assert len([line for line in lines if "GET /no-such-page-probe/ 404" in line]) == 1, everything
    assert len([line for line in lines if "Not Found: /no-such-page-probe/" in line]) == 1, everything
