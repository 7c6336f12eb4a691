"""The product exactly as ``make run`` starts it: deadlines reach every page live.

``make run`` (one process: runserver, the in-memory channel layer, no broker) serves a
demo database whose Nassau table has short time banks. Alice antes and Bob does not:
the betting window closes and both pages show the deal within 2 s. Alice never decides:
her time runs out and both pages show the settled hand within 2 s, with no reload.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

from tests.demo_db import demo_sqlite
from tests.e2e.conftest import ARTIFACTS, DROPPED_ENV, ROOT, _free_port, sign_in, wait_until_serving

BET_SECONDS, DECISION_SECONDS, EXTENSION_SECONDS = 3, 3, 2
SLACK_MS = 2_000  # "within 2 s" of the deadline


def _manage(env: dict, *args: str) -> str:
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def make_run(tmp_path_factory, chromium):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    workdir = tmp_path_factory.mktemp("make-run")
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV and k not in ("DATABASE_URL", "DEBUG")}
    env.update(DATABASE_URL=demo_sqlite(tmp_path_factory, workdir / "db.sqlite3"), PYTHONUNBUFFERED="1")
    _manage(
        env,
        "shell",
        "-c",
        "from tables.models import Table; Table.objects.filter(name='Nassau').update("
        f"bet_seconds={BET_SECONDS}, decision_seconds={DECISION_SECONDS}, extension_seconds={EXTENSION_SECONDS})",
    )
    port = _free_port()
    log = ARTIFACTS / "make-run.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            ["make", "--no-print-directory", "run", "HOST=127.0.0.1", f"PORT={port}", f"PY={sys.executable}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, process, log, what="make run", seconds=60)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _sign_in_and_sit(context, base: str, username: str):
    page = context.new_page()
    sign_in(page, base, username)
    page.get_by_role("button", name="Sit at Nassau").click()
    return page


def test_betting_window_and_decision_time_out_live_on_both_pages(make_run, chromium):
    from playwright.sync_api import expect

    contexts = [chromium.new_context(viewport={"width": 1366, "height": 900}) for _ in range(2)]
    try:
        alice, bob = (_sign_in_and_sit(c, make_run, name) for c, name in zip(contexts, ("alice", "bob")))
        for page in (alice, bob):
            expect(page.locator("#conn-status")).to_have_attribute("data-state", "live", timeout=15_000)
        expect(alice.locator('li[data-seat="2"] .seat-name')).to_have_text("bob", timeout=10_000)

        alice.get_by_role("spinbutton", name=re.compile("^Ante")).fill("1.00")
        alice.locator("#btn-bet").click()
        expect(alice.locator("#phase")).to_contain_text("Your bet is in", timeout=10_000)
        # Bob never bets. The window closes; the deal reaches both pages by itself.
        window = BET_SECONDS * 1000 + SLACK_MS
        expect(alice.locator("#btn-raise")).to_be_enabled(timeout=window)
        expect(alice.locator('li[data-seat="1"] .card[data-card]')).to_have_count(5, timeout=SLACK_MS)
        expect(bob.locator('li[data-seat="1"] .card')).to_have_count(5, timeout=SLACK_MS)
        alice.screenshot(path=ARTIFACTS / "make-run-dealt-alice.png")

        # Alice never decides: her time (and, with a pair, her extension) runs out.
        decide = (DECISION_SECONDS + EXTENSION_SECONDS) * 1000 + SLACK_MS
        try:
            expect(alice.locator("#result-panel")).to_be_visible(timeout=decide)
        except AssertionError as late:  # what the server did meanwhile says why
            raise AssertionError(
                f"{late}\n--- make run's log, the end ---\n{(ARTIFACTS / 'make-run.log').read_text()[-6000:]}"
            ) from None
        expect(alice.locator("#result-panel .explain li").last).to_contain_text("Net:")
        expect(alice.locator("#btn-raise")).to_be_disabled()
        expect(alice.locator("#btn-fold")).to_be_disabled()
        expect(bob.locator("#dealer-cards .card[data-card]")).to_have_count(5, timeout=SLACK_MS)
        alice.screenshot(path=ARTIFACTS / "make-run-settled-alice.png")
        bob.screenshot(path=ARTIFACTS / "make-run-settled-bob.png")
    finally:
        for context in contexts:
            context.close()
