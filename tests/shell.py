"""A Django shell that stays up, for tests that look into a test server's database.

``manage.py shell -c`` starts Django anew for every question (seconds on a busy machine,
and a browser test asks dozens). ``Shell`` starts this module once, against the server's
environment, and sends it snippets: each runs as ``shell -c`` would run it, and what it
printed comes back. Run as a script it is that loop: one JSON request per line in, one
JSON answer per line out.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import threading
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Shell:
    """``run(code)`` executes ``code`` in a long-lived Django process; returns its output."""

    def __init__(self, env: dict):
        self.env = env
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def run(self, code: str, *, timeout: float = 120) -> str:
        with self._lock:
            process = self._start()
            process.stdin.write(json.dumps({"code": code}) + "\n")
            process.stdin.flush()
            timer = threading.Timer(timeout, process.kill)
            timer.start()
            try:
                line = process.stdout.readline()
            finally:
                timer.cancel()
            if not line:
                self._process = None
                raise AssertionError(f"the test shell ended:\n{process.stderr.read()}")
            answer = json.loads(line)
        if answer["error"]:
            raise AssertionError(f"the snippet failed:\n{code}\n{answer['out']}\n{answer['error']}")
        return answer["out"]

    def query(self, code: str):
        """Run ``code``, which prints JSON last; return it."""
        return json.loads(self.run(code).strip().splitlines()[-1])

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def _start(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "tests.shell"],
                cwd=ROOT,
                env=self.env,
                text=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        return self._process


def _serve() -> None:
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

    django.setup()
    from django.db import connections

    answers = sys.stdout
    for line in sys.stdin:
        code = json.loads(line)["code"]
        out, error = io.StringIO(), None
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, "<test shell>", "exec"), {"__name__": "__main__"})  # noqa: S102 - the tests' own snippets
        except BaseException:  # noqa: BLE001 - reported to the test, which fails with it
            error = traceback.format_exc()
        finally:
            connections.close_all()  # the next snippet sees the server's latest commits, holds no lock
        answers.write(json.dumps({"out": out.getvalue(), "error": error}) + "\n")
        answers.flush()


if __name__ == "__main__":
    _serve()
