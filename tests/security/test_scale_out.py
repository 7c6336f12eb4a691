"""README's scale-out commands give the whole product: its web server command, read from
README itself, serves the pages with their scripts and styles, in development (DEBUG=1)
and in production after collectstatic, and the live tables' websockets."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from urllib.parse import urljoin

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


def readme_server_command(port: int) -> list[str]:
    """README's web server line ("Running at scale"), on 127.0.0.1 and ``port``."""
    lines = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith(".venv/bin/uvicorn ")]
    assert len(lines) == 1, "README names one web server command"
    words = shlex.split(lines[0].split("#")[0])
    words[words.index("--host") + 1], words[words.index("--port") + 1] = "127.0.0.1", str(port)
    return [sys.executable, "-m", "uvicorn", *words[1:]]


async def _websocket_close_code(url: str, origin: str) -> int:
    import websockets

    async with websockets.connect(url, origin=origin) as socket_:
        try:
            await asyncio.wait_for(socket_.recv(), 10)
        except websockets.ConnectionClosed as closed:
            return closed.rcvd.code
    raise AssertionError("the socket stayed open")


MODULE_IMPORT = re.compile(r'(?:\bfrom|^\s*import)\s+"(\.{1,2}/[^"]+)"', re.M)


def _fetch_page_modules(base: str, hashed: dict[str, str] | None = None) -> set[str]:
    """Every page script (an ES module) and, through its relative imports, every module it
    loads: served as JavaScript (a browser refuses a module of another type). ``hashed``:
    collectstatic's names (its manifest), which the pages name in production."""
    names = [p.relative_to(ROOT / "static").as_posix() for p in sorted((ROOT / "static").rglob("*.js"))]
    queue = [f"/static/{(hashed or {}).get(name, name)}" for name in names]
    assert queue
    seen: set[str] = set()
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        status, content_type, content = _get(base + url)
        assert status == 200 and "javascript" in content_type, (url, status, content_type)
        for found in MODULE_IMPORT.findall(content.decode()):
            queue.append(urljoin(url, found))
    for name in ("js/common.js", "js/poker_state.js", "js/table_state.js"):
        assert f"/static/{(hashed or {}).get(name, name)}" in seen, seen
    return seen


def _serve_and_fetch_assets(env: dict, tmp_path, *, hashed: dict[str, str] | None = None) -> list[str]:
    port = _free_port()
    with (tmp_path / "server.log").open("w") as log:  # the server writes to its own copy of the file
        process = subprocess.Popen(readme_server_command(port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _, body = _get(base + "/accounts/login/")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((tmp_path / "server.log").read_text()) from None
                time.sleep(0.2)
        assert status == 200
        assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', body.decode())
        assert any(a.endswith(".js") for a in assets) and any(a.endswith(".css") for a in assets), assets
        for asset in assets:
            status, content_type, content = _get(base + asset)
            assert status == 200 and content, asset
            assert ("javascript" if asset.endswith(".js") else "css" if asset.endswith(".css") else "") in content_type
        _fetch_page_modules(base, hashed)
        # The live table's socket through the same server: accepted, then closed as
        # docs/websocket.md says for a visitor who is not signed in.
        assert asyncio.run(_websocket_close_code(f"ws://127.0.0.1:{port}/ws/tables/1/", base)) == 4401
        return assets
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # a busy machine: the graceful stop is not this test's subject
            process.kill()
            process.wait()


def test_the_server_with_the_default_settings_serves_the_pages_scripts_styles_and_sockets(tmp_path):
    env = production_env(DEBUG="1", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    for name in ("SECRET_KEY", "ALLOWED_HOSTS", "REDIS_URL"):
        env.pop(name, None)
    migrated = run(["manage.py", "migrate", "--noinput"], env)
    assert migrated.returncode == 0, migrated.stderr
    _serve_and_fetch_assets(env, tmp_path)


def test_the_server_in_production_serves_the_collected_static_files_and_sockets(tmp_path):
    env = production_env(
        ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        STATIC_ROOT=str(tmp_path / "static"),
    )
    env.pop("REDIS_URL", None)
    for step in (["manage.py", "migrate", "--noinput"], ["manage.py", "collectstatic", "--noinput"]):
        result = run(step, env)
        assert result.returncode == 0, result.stdout + result.stderr
    # Each file also under its content's hash, and the pages name those; a module's imports
    # name the hashed modules too (casino/staticfiles.py).
    hashed = json.loads((tmp_path / "static" / "staticfiles.json").read_text())["paths"]
    assert re.fullmatch(r"js/poker\.[0-9a-f]{12}\.js", hashed["js/poker.js"]), hashed["js/poker.js"]
    collected_poker = (tmp_path / "static" / hashed["js/poker.js"]).read_text()
    assert f'from "./{hashed["js/poker_state.js"].split("/")[-1]}"' in collected_poker
    assets = _serve_and_fetch_assets(env, tmp_path, hashed=hashed)
    assert f"/static/{hashed['js/page.js']}" in assets
