"""Two-factor sign-in (TOTP): staff with a confirmed device enter a code after the
password before they reach anything; enrolment by page or command; tokens refused."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import SESSION_KEY
from django.core.management import CommandError, call_command
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.access.roles import AUDITOR, CASHIER, MANAGER
from casino.models import AuditEntry
from tests.security.conftest import current_code, sign_in, wrong_code

pytestmark = pytest.mark.django_db

VERIFY = "/accounts/otp/"
SETUP = "/accounts/two-factor/"


@pytest.fixture(autouse=True)
def _no_back_off(settings):
    """django-otp waits 1, 2, 4… s after wrong codes; here only the throttling test does."""
    settings.OTP_TOTP_THROTTLE_FACTOR = 0


@pytest.fixture
def manager(make_user):
    return make_user(MANAGER, "boss")


def test_staff_with_a_device_must_enter_the_code_before_anything(manager, make_device, browser):
    make_device(manager)
    client = browser()
    assert sign_in(client, "boss").status_code == 302
    assert client.session[SESSION_KEY] == str(manager.pk)  # the password is right...
    page = client.get("/staff/manager/")
    assert page.status_code == 302
    assert page["Location"] == f"{VERIFY}?next=%2Fstaff%2Fmanager%2F"
    assert client.get("/").status_code == 302  # ...but nothing is reachable yet
    api = client.get("/api/manager/tiers/")
    assert api.status_code == 403
    assert api.json()["code"] == "otp_required"
    assert client.get(VERIFY).status_code == 200


def test_the_right_code_opens_the_session_and_returns_to_the_page(manager, make_device, browser):
    device = make_device(manager)
    client = browser()
    sign_in(client, "boss")
    response = client.post(VERIFY, {"code": current_code(device), "next": "/staff/manager/"})
    assert response.status_code == 302 and response["Location"] == "/staff/manager/"
    assert client.get("/staff/manager/").status_code == 200
    assert client.get("/api/manager/tiers/").status_code == 200


def test_a_wrong_or_malformed_code_keeps_the_session_closed(manager, make_device, browser):
    device = make_device(manager)
    client = browser()
    sign_in(client, "boss")
    wrong = client.post(VERIFY, {"code": wrong_code(device)})
    assert wrong.status_code == 400 and b"not right" in wrong.content
    malformed = client.post(VERIFY, {"code": "12ab"})
    assert malformed.status_code == 400 and b"six digits" in malformed.content
    empty = client.post(VERIFY, {})
    assert empty.status_code == 400
    assert client.get("/staff/manager/").status_code == 302


def test_a_code_cannot_be_used_twice(manager, make_device, browser):
    device = make_device(manager)
    code = current_code(device)
    first = browser()
    sign_in(first, "boss")
    assert first.post(VERIFY, {"code": code}).status_code == 302
    second = browser()
    sign_in(second, "boss")
    assert second.post(VERIFY, {"code": code}).status_code == 400


def test_repeated_wrong_codes_are_throttled(manager, make_device, browser, settings):
    settings.OTP_TOTP_THROTTLE_FACTOR = 1
    device = make_device(manager)
    client = browser()
    sign_in(client, "boss")
    for _ in range(3):
        client.post(VERIFY, {"code": wrong_code(device)})
    response = client.post(VERIFY, {"code": current_code(device)})
    assert response.status_code == 429  # django-otp's back-off: even the right code waits
    assert client.get("/staff/manager/").status_code == 302


def test_the_next_parameter_cannot_send_off_site(manager, make_device, browser):
    device = make_device(manager)
    client = browser()
    sign_in(client, "boss")
    response = client.post(VERIFY, {"code": current_code(device), "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_sign_out_stays_reachable_before_the_code(manager, make_device, browser):
    make_device(manager)
    client = browser()
    sign_in(client, "boss")
    assert client.post("/accounts/logout/").status_code == 302
    assert SESSION_KEY not in client.session


def test_an_unconfirmed_device_asks_for_nothing(manager, make_device, browser):
    make_device(manager, confirmed=False)
    client = browser()
    sign_in(client, "boss")
    assert client.get("/staff/manager/").status_code == 200


@pytest.mark.parametrize("role", [CASHIER, AUDITOR])
def test_every_staff_role_is_asked(role, make_user, make_device, browser):
    user = make_user(role)
    make_device(user)
    client = browser()
    sign_in(client, user.username)
    assert client.get("/").status_code == 302


def test_players_are_not_asked_two_factor_is_for_staff(make_player, make_device, browser):
    player = make_player(username="alice")
    make_device(player)
    client = browser()
    sign_in(client, "alice")
    assert client.get("/wallet/").status_code == 200


def test_api_tokens_are_refused_for_staff_with_a_device(manager, make_device, make_user):
    plain = make_user(MANAGER)
    make_device(manager)
    for user, expected in ((manager, 403), (plain, 200)):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        response = client.get("/api/manager/tiers/")
        assert response.status_code == expected
        if expected == 403:
            assert response.json()["code"] == "otp_required"


def test_the_admin_asks_for_the_code_too(administrator, make_device, browser):
    device = make_device(administrator)
    client = browser()
    sign_in(client, administrator.username, path="/admin/login/")
    assert client.get("/admin/").status_code == 302
    client.post(VERIFY, {"code": current_code(device)})
    assert client.get("/admin/").status_code == 200


# --- enrolment --------------------------------------------------------------------------


def test_staff_enrol_on_the_page_with_a_qr_code_and_confirm_with_a_code(manager, browser):
    client = browser(manager)
    page = client.get(SETUP)
    assert page.status_code == 200
    text = page.content.decode()
    assert "otpauth://totp/" in text and "data:image/svg+xml" in text
    device = TOTPDevice.objects.get(user=manager)
    assert not device.confirmed
    assert client.get(SETUP).status_code == 200
    assert TOTPDevice.objects.filter(user=manager).count() == 1  # the same pending device, not a new one

    assert client.post(SETUP, {"code": wrong_code(device)}).status_code == 400
    device.refresh_from_db()
    assert not device.confirmed

    done = client.post(SETUP, {"code": current_code(device)})
    assert done.status_code == 200 and b"now on" in done.content
    device.refresh_from_db()
    assert device.confirmed
    assert client.get("/staff/manager/").status_code == 200  # this session counts as verified

    entry = AuditEntry.objects.get(action="otp.device_confirmed")
    assert entry.actor == manager
    assert device.key not in str(entry.after)  # the secret never enters the audit trail

    fresh = browser()
    sign_in(fresh, "boss")
    assert fresh.get("/staff/manager/").status_code == 302  # from now on, the code is asked


def test_players_cannot_enrol(make_player, browser):
    assert browser(make_player()).get(SETUP).status_code == 403
    assert browser().get(SETUP).status_code == 302  # anonymous: to the sign-in page


def test_the_command_enrols_confirms_and_resets(manager):
    out = StringIO()
    call_command("otp_device", "boss", "--no-qr", stdout=out)
    assert "otpauth://totp/" in out.getvalue()
    device = TOTPDevice.objects.get(user=manager)
    assert not device.confirmed
    with pytest.raises(CommandError):
        call_command("otp_device", "boss", "--code", wrong_code(device), stdout=StringIO())
    call_command("otp_device", "boss", "--code", current_code(device), stdout=StringIO())
    device.refresh_from_db()
    assert device.confirmed
    with pytest.raises(CommandError, match="already has a confirmed device"):
        call_command("otp_device", "boss", stdout=StringIO())
    call_command("otp_device", "boss", "--reset", stdout=StringIO())
    assert not TOTPDevice.objects.filter(user=manager).exists()
    assert AuditEntry.objects.filter(action="otp.device_removed").count() == 1


def test_the_command_prints_a_terminal_qr_code(manager):
    out = StringIO()
    call_command("otp_device", "boss", stdout=out)
    assert len(out.getvalue().splitlines()) > 10


def test_the_command_refuses_players_and_strangers(make_player):
    make_player(username="alice")
    with pytest.raises(CommandError, match="not staff"):
        call_command("otp_device", "alice", stdout=StringIO())
    with pytest.raises(CommandError, match="No user"):
        call_command("otp_device", "nobody", stdout=StringIO())


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_table_socket_asks_for_the_code_too(manager, make_device, browser, table):
    """Websockets have no OTP middleware: the consumer applies the same rule."""
    from channels.db import database_sync_to_async
    from channels.testing import WebsocketCommunicator

    from casino.asgi import application

    device = await database_sync_to_async(make_device)(manager)
    client = browser()
    await database_sync_to_async(sign_in)(client, "boss")

    def connect():
        cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
        return WebsocketCommunicator(
            application, f"/ws/tables/{table.pk}/", headers=[(b"origin", b"http://localhost"), (b"cookie", cookie)]
        )

    closed = connect()
    connected, _ = await closed.connect()  # accepted, then closed with the code (docs/websocket.md)
    assert connected and await closed.receive_output() == {"type": "websocket.close", "code": 4401}
    code = await database_sync_to_async(current_code)(device)
    await database_sync_to_async(client.post)(VERIFY, {"code": code, "next": "/"})
    opened = connect()
    connected, _ = await opened.connect()
    assert connected and (await opened.receive_json_from())["type"] == "snapshot"
    await opened.disconnect()
