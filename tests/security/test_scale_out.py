"""README's scale-out commands give the whole product: daphne serves the pages with their
scripts and styles, in development (DEBUG=1) and in production after collectstatic (issue 8 §3c)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.security.test_deploy import ROOT, production_env, run

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, str, bytes]:
    # As the reverse proxy of README forwards it: HTTPS was terminated in front.
    request = urllib.request.Request(url, headers={"X-Forwarded-Proto": "https"})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read()


def _serve_and_fetch_assets(env: dict, tmp_path) -> list[str]:
    port = _free_port()
    log = (tmp_path / "daphne.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "casino.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _, body = _get(base + "/accounts/login/")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp_path / "daphne.log").read_text()) from None
                time.sleep(0.2)
        assert status == 200
        assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', body.decode())
        assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets), assets
        for asset in assets:
            status, content_type, content = _get(base + asset)
            assert status == 200 and content, asset
            assert ("javascript" if asset.endswith(".js") else "css" if asset.endswith(".css") else "") in content_type
        return assets
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a busy machine: the graceful stop is not this test's subject
            process.kill()
            process.wait()


def test_daphne_with_the_default_settings_serves_the_pages_scripts_and_styles(tmp_path):
    env = production_env(DEBUG="1", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    for name in ("SECRET_KEY", "ALLOWED_HOSTS", "REDIS_URL"):
        env.pop(name, None)
    migrated = run(["manage.py", "migrate", "--noinput"], env)
    assert migrated.returncode == 0, migrated.stderr
    _serve_and_fetch_assets(env, tmp_path)


def test_daphne_in_production_serves_the_collected_static_files(tmp_path):
    env = production_env(
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    env.pop("REDIS_URL", None)
    for step in (["manage.py", "migrate", "--noinput"], ["manage.py", "collectstatic", "--noinput"]):
        result = run(step, env)
        assert result.returncode == 0, result.stdout + result.stderr
    _serve_and_fetch_assets(env, tmp_path)
