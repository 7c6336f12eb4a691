"""Helpers of the security tests: real sign-ins through the pages, TOTP devices and their
current codes (people of every role, administrators too, and the page clients are the
shared fixtures of tests/conftest.py)."""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.test import APIClient

from tests.factories import PASSWORD


def sign_in(client: Client, username: str, password: str = PASSWORD, *, path: str = "/accounts/login/"):
    """Sign in through the page, as a person would (CSRF-exempt test client)."""
    return client.post(path, {"username": username, "password": password})


def token_sign_in(username: str, password: str = PASSWORD, *, ip: str = "127.0.0.1"):
    return APIClient(REMOTE_ADDR=ip).post(
        "/api/auth/token/", {"username": username, "password": password}, format="json"
    )


@pytest.fixture
def make_device():
    """``make_device(user, confirmed=True)``: a TOTP device of the user."""

    def make(user, *, confirmed: bool = True) -> TOTPDevice:
        return TOTPDevice.objects.create(user=user, name="phone", confirmed=confirmed)

    return make


def current_code(device: TOTPDevice, *, offset_steps: int = 0) -> str:
    """The code the authenticator app shows now (``offset_steps`` 30-second steps later)."""
    device.refresh_from_db()
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + offset_steps * device.step
    return f"{totp.token():0{device.digits}d}"


def wrong_code(device: TOTPDevice) -> str:
    right = int(current_code(device))
    near = {int(current_code(device, offset_steps=s)) for s in (-2, -1, 0, 1, 2)}
    candidate = (right + 500_000) % 1_000_000
    while candidate in near:
        candidate = (candidate + 1) % 1_000_000
    return f"{candidate:06d}"
