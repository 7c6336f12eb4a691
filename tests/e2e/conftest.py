"""A real server and a real browser for the end-to-end tests.

The server is daphne (HTTP and websockets) in a subprocess, on a free port, against its
own copy of the run's demo database (migrated, ``load_demo`` loaded: tests.demo_db); the
test reads the same file through a long-lived Django shell (tests.shell) to compare the
pages with the ledger.
It runs with the in-memory channel layer and without a broker, whatever the
environment says, so that it needs nothing but Python and Chromium.

The browser fixtures are module-scoped on purpose: Playwright's sync API keeps an
event loop running, and Django refuses database work in a thread with a running loop,
so the browser must be closed before the next module's database tests start.

Chromium is Debian's (``apt-get install chromium``), driven by the ``playwright``
package; ``playwright install`` is never needed. Without either, the tests skip on a
laptop and fail under CI (``CI`` set).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.demo_db import demo_sqlite
from tests.shell import Shell

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "e2e"
CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEMO_PASSWORD = "stud-poker-demo"
# Variables that would point the server at shared services or other settings.
DROPPED_ENV = (
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "CASINO_TIMERS",
    "ALLOWED_HOSTS",
    "SECRET_KEY",
)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"end-to-end test cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def sign_in(page, base_url: str, username: str) -> None:
    """Sign in through the page as a demo person (``load_demo``'s password) and land in the lobby."""
    page.goto(base_url + "/accounts/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(base_url + "/")


@contextmanager
def browsers(
    chromium, screens: dict[str, dict], *, timeout_ms: int, base_url: str | None = None, init_script: str | None = None
) -> Iterator[tuple[dict, list[str]]]:
    """A browser of its own per person, at their screen's size (a phone's with touch),
    signed in when ``base_url`` is given: ``(pages by name, the pages' script errors)``."""
    contexts, pages, errors = [], {}, []
    try:
        for name, viewport in screens.items():
            phone = viewport["width"] < 500
            context = chromium.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
            contexts.append(context)
            context.set_default_timeout(timeout_ms)
            if init_script:
                context.add_init_script(init_script)
            page = context.new_page()
            page.on("pageerror", lambda error, name=name: errors.append(f"{name}: {error}"))
            if base_url:
                sign_in(page, base_url, name)
            pages[name] = page
        yield pages, errors
    finally:
        for context in contexts:
            context.close()


def wait_until_serving(base_url: str, process: subprocess.Popen, log: Path, *, what: str, seconds: float) -> None:
    """Wait for the sign-in page to answer 200; fail with the server's log if the process
    ends or ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(base_url + "/accounts/login/", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"{what} did not serve:\n{log.read_text()}")
        time.sleep(0.2)


class Server:
    def __init__(self, base_url: str, env: dict, process: subprocess.Popen, log: Path):
        self.base_url = base_url
        self.env = env
        self.process = process
        self.log = log
        self.shell = Shell(env)

    def query(self, code: str):
        """Run ``code`` as ``manage.py shell -c`` would, against the server's database (in one
        long-lived process, tests.shell); it prints JSON last."""
        return self.shell.query(code)


@pytest.fixture(scope="module")
def playwright_api():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -r requirements-dev.txt)")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as api:
        yield api


@pytest.fixture(scope="module")
def chromium(playwright_api):
    browser = playwright_api.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="module")
def casino_server(request, tmp_path_factory, chromium):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    workdir = tmp_path_factory.mktemp("e2e")
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        DATABASE_URL=demo_sqlite(tmp_path_factory, workdir / "e2e.sqlite3"),  # migrated, load_demo loaded
        DEBUG="1",
        DJANGO_SETTINGS_MODULE="casino.settings",
        PYTHONUNBUFFERED="1",
        LOG_LEVEL="WARNING",
    )
    env.update(getattr(request.module, "SERVER_ENV", {}))  # a module's own settings (e.g. the site's name)
    port = _free_port()
    log = (
        ARTIFACTS / f"server-{request.module.__name__.rsplit('.', 1)[-1]}.log"
    )  # a log per module: they may run at once
    server = Server(f"http://127.0.0.1:{port}", env, None, log)
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "tests.e2e.asgi_static:application"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server.process = process
    try:
        wait_until_serving(server.base_url, process, log, what="daphne", seconds=30)
        yield server
    finally:
        server.shell.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
