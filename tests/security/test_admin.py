"""The Django admin: administrators only; the ledger and every record read-only, even for
a superuser (no add, change or delete, no bulk delete)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from unittest import mock

import pytest
from axes.models import AccessAttempt
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from casino.access.roles import ADMINISTRATOR, AUDITOR, CASHIER, MANAGER, PLAYER
from casino.audit import audit_record
from casino.models import AuditEntry
from jackpot.models import JackpotHit
from tables.models import Hand, PayTable, Table
from wallets.integrity import ledger_seal
from wallets.models import Account, LedgerSeal, Leg, LimitTier, Transaction

pytestmark = pytest.mark.django_db

LEDGER = [Account, Transaction, Leg, LedgerSeal, JackpotHit, AuditEntry]
CONFIG_AND_PLAY = [LimitTier, PayTable, Table, Hand]


@pytest.fixture
def records(make_player, table, make_user):
    """At least one row of every read-only model, and a jackpot hit."""
    from casino.game.evaluator import Category
    from jackpot.services import jackpot_award
    from wallets.services import player_accounts_ensure

    player = make_player(10_000)
    wallet, _ = player_accounts_ensure(user=player)
    from django.db import transaction

    with transaction.atomic():
        award = jackpot_award(
            pool=table.pool,
            category=Category.FLUSH,
            player_id=player.pk,
            wallet=wallet,
            house_account=table.house_account,
            idempotency_key="admin-test-hit",
        )
    from tables.services.seats import table_sit

    table_sit(user=make_player(10_000), table_id=table.pk)  # opens a hand
    with mock.patch("wallets.integrity.timezone.now", return_value=timezone.now() + timedelta(hours=1)):
        assert ledger_seal() > 0
    audit_record(actor=make_user(MANAGER), action="tier.update", obj=table.tier, before={"a": 1}, after={"a": 2})
    return {"hit": award.hit, "txn": Transaction.objects.first(), "table": table}


def admin_url(model, action: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{action}", args=args)


def test_an_administrator_opens_the_admin(administrator, browser):
    response = browser(administrator).get("/admin/")
    assert response.status_code == 200
    assert b"administration" in response.content.lower()


def test_a_group_administrator_who_is_not_superuser_reads_the_ledger(make_user, browser, records):
    user = make_user(PLAYER, "groupadmin")
    user.groups.set([Group.objects.get_or_create(name=ADMINISTRATOR)[0]])
    user.is_staff = True
    user.save()
    client = browser(user)
    assert client.get("/admin/").status_code == 200
    assert client.get(admin_url(Transaction, "changelist")).status_code == 200
    assert client.get(admin_url(Transaction, "change", records["txn"].pk)).status_code == 200


@pytest.mark.parametrize("role", [PLAYER, CASHIER, MANAGER, AUDITOR])
def test_other_roles_are_kept_out_even_when_marked_staff(role, make_user, browser):
    user = make_user(role)
    for is_staff in (False, True):
        user.is_staff = is_staff
        user.save()
        response = browser(user).get("/admin/")
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
        assert browser(user).get(admin_url(Transaction, "changelist")).status_code == 302


def test_anonymous_visitors_are_sent_to_the_admin_sign_in(browser):
    response = browser().get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


@pytest.mark.parametrize("model", LEDGER + CONFIG_AND_PLAY, ids=lambda m: m.__name__)
def test_the_ledger_and_records_are_read_only_even_for_a_superuser(model, administrator, browser, records):
    model_admin = admin.site._registry[model]
    assert administrator.is_superuser

    request = RequestFactory().get("/admin/")
    request.user = administrator
    Request = request
    assert model_admin.has_view_permission(Request)
    assert not model_admin.has_add_permission(Request)
    assert not model_admin.has_change_permission(Request)
    assert not model_admin.has_delete_permission(Request)
    assert "delete_selected" not in model_admin.get_actions(Request)

    client = browser(administrator)
    assert client.get(admin_url(model, "changelist")).status_code == 200
    assert client.get(admin_url(model, "add")).status_code == 403
    obj = model.objects.first()
    assert obj is not None
    change = client.get(admin_url(model, "change", obj.pk))
    assert change.status_code == 200
    assert b'name="_save"' not in change.content  # shown, not editable
    assert client.post(admin_url(model, "change", obj.pk), {}).status_code == 403
    assert client.get(admin_url(model, "delete", obj.pk)).status_code == 403
    assert client.post(admin_url(model, "delete", obj.pk), {"post": "yes"}).status_code == 403
    bulk = client.post(admin_url(model, "changelist"), {"action": "delete_selected", "_selected_action": [obj.pk]})
    assert bulk.status_code in (200, 302)
    assert model.objects.filter(pk=obj.pk).exists()


def test_administrators_manage_people_and_unlock_sign_ins(administrator, browser, make_player):
    client = browser(administrator)
    assert client.get(reverse("admin:auth_user_changelist")).status_code == 200
    assert client.get(reverse("admin:axes_accessattempt_changelist")).status_code == 200
    assert client.get(reverse("admin:otp_totp_totpdevice_changelist")).status_code == 200
    make_player(username="alice")
    AccessAttempt.objects.create(username="alice", ip_address="10.0.0.1", failures_since_start=5, user_agent="x")
    attempt = AccessAttempt.objects.get(username="alice")
    response = client.post(reverse("admin:axes_accessattempt_delete", args=[attempt.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert not AccessAttempt.objects.filter(username="alice").exists()


def test_the_admin_forms_need_their_csrf_token(administrator, browser, make_player):
    player = make_player()
    client = browser(administrator, csrf_checks=True)
    response = client.post(reverse("admin:auth_user_change", args=[player.pk]), {"username": "renamed"})
    assert response.status_code == 403
    player.refresh_from_db()
    assert player.username != "renamed"


def test_grant_role_makes_and_unmakes_an_administrator(make_player):
    user = make_player(username="alice")
    call_command("grant_role", "alice", ADMINISTRATOR, stdout=StringIO())
    user.refresh_from_db()
    assert user.is_staff and user.is_superuser
    assert user.groups.filter(name=ADMINISTRATOR).exists()
    call_command("grant_role", "alice", ADMINISTRATOR, "--remove", stdout=StringIO())
    user.refresh_from_db()
    assert not user.is_staff and not user.is_superuser
    assert AuditEntry.objects.filter(action="user.role", object_id=str(user.pk)).count() == 2


def test_grant_role_gives_a_staff_role(make_player):
    user = make_player(username="alice")
    call_command("grant_role", "alice", MANAGER, stdout=StringIO())
    assert user.groups.filter(name=MANAGER).exists()
    user.refresh_from_db()
    assert not user.is_staff  # managers do not get into the admin


@pytest.mark.parametrize("view", ["config", "qrcode"])
def test_the_setup_pages_of_a_two_factor_device_that_does_not_exist_are_a_404(
    view, administrator, browser, make_player
):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.create(user=make_player(), name="phone")
    client = browser(administrator)
    client.raise_request_exception = False
    shown = client.get(reverse(f"admin:otp_totp_totpdevice_{view}", args=[device.pk]))
    assert shown.status_code == 200
    assert shown["Content-Type"].startswith("image/svg+xml" if view == "qrcode" else "text/html")
    for missing in (device.pk + 1, 2**31, 2**63, 10**30):
        assert client.get(f"/admin/otp_totp/totpdevice/{missing}/{view}/").status_code == 404, missing
