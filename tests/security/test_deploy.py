"""Production settings (DEBUG=0): `check --deploy` is clean, cookies are secure, headers
are strict; the same headers (but HTTPS) are sent in development too."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def production_env(**overrides) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "ALLOWED_HOSTS")}
    env.update(
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="casino.example.com",
        DJANGO_SETTINGS_MODULE="casino.settings",
    )
    env.update(overrides)
    return env


def run(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_production_settings():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stderr.upper().replace("WARNINGS:", "")


SETTINGS_DUMP = """
import json, django
django.setup()
from django.conf import settings as s
print(json.dumps({
    "SESSION_COOKIE_SECURE": s.SESSION_COOKIE_SECURE, "CSRF_COOKIE_SECURE": s.CSRF_COOKIE_SECURE,
    "SECURE_SSL_REDIRECT": s.SECURE_SSL_REDIRECT, "SECURE_HSTS_SECONDS": s.SECURE_HSTS_SECONDS,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": s.SECURE_HSTS_INCLUDE_SUBDOMAINS, "SECURE_HSTS_PRELOAD": s.SECURE_HSTS_PRELOAD,
    "SECURE_REFERRER_POLICY": s.SECURE_REFERRER_POLICY, "X_FRAME_OPTIONS": s.X_FRAME_OPTIONS,
    "SECURE_CONTENT_TYPE_NOSNIFF": s.SECURE_CONTENT_TYPE_NOSNIFF, "SESSION_COOKIE_HTTPONLY": s.SESSION_COOKIE_HTTPONLY,
    "DEBUG": s.DEBUG, "CSP": s.CONTENT_SECURITY_POLICY["DIRECTIVES"].get("upgrade-insecure-requests"),
    "AXES_FAILURE_LIMIT": s.AXES_FAILURE_LIMIT, "CASINO_PLAY_RATE": s.CASINO_PLAY_RATE,
}))
"""


def test_production_turns_on_secure_cookies_hsts_and_strict_headers():
    result = run(["-c", SETTINGS_DUMP], production_env())
    assert result.returncode == 0, result.stderr
    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values["DEBUG"] is False
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"] and values["SESSION_COOKIE_HTTPONLY"]
    assert values["SECURE_SSL_REDIRECT"]
    assert values["SECURE_HSTS_SECONDS"] >= 31_536_000
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and values["SECURE_HSTS_PRELOAD"]
    assert values["SECURE_REFERRER_POLICY"] == "same-origin"
    assert values["X_FRAME_OPTIONS"] == "DENY"
    assert values["SECURE_CONTENT_TYPE_NOSNIFF"]
    assert values["CSP"] is True
    assert values["AXES_FAILURE_LIMIT"] == 5


def test_rate_and_lockout_come_from_the_environment():
    result = run(["-c", SETTINGS_DUMP], production_env(CASINO_PLAY_RATE="600/min", AXES_FAILURE_LIMIT="7"))
    values = json.loads(result.stdout.strip().splitlines()[-1])
    assert values["CASINO_PLAY_RATE"] == "600/min"
    assert values["AXES_FAILURE_LIMIT"] == 7


@pytest.mark.parametrize(
    "overrides",
    [{"SECRET_KEY": ""}, {"SECRET_KEY": "short"}, {"ALLOWED_HOSTS": ""}],
    ids=["no-secret", "short-secret", "no-hosts"],
)
def test_production_refuses_to_start_without_a_real_secret_and_hosts(overrides):
    result = run(["manage.py", "check"], production_env(**overrides))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr


@pytest.mark.django_db
def test_pages_send_strict_security_headers(client):
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    csp = response["Content-Security-Policy"]
    for directive in (
        "default-src 'self'",
        "script-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "form-action 'self'",
    ):
        assert directive in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


@pytest.mark.django_db
def test_the_api_sends_the_headers_too_and_so_does_the_swagger_page(client):
    assert "Content-Security-Policy" in client.get("/api/lobby/")
    assert "script-src 'self'" in client.get("/api/docs/")["Content-Security-Policy"]


@pytest.mark.django_db
def test_the_session_cookie_is_http_only_and_same_site(make_player, client):
    make_player(username="alice")
    response = client.post("/accounts/login/", {"username": "alice", "password": "pw-test-123"})
    cookie = response.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
