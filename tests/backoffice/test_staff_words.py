"""Staff pages in words and styled forms.

- Every class the staff forms use is defined in a stylesheet; a bad amount is refused by
  the server beside its field (no browser popup: the forms are ``novalidate``).
- Approve and Reverse go through a confirmation page with the amount and the balance; a
  manager has the queue in the menu.
- The audit log reads in euros, pay tables as tables, names instead of ids; the admin says
  "Audit entries" and shows euros; the exports page shows no server path.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from casino.access.roles import ADMINISTRATOR, AUDITOR, CASHIER, MANAGER
from jackpot import services as jackpot_services
from tables.services.config import paytable_update, table_update
from wallets import services as wallet_services
from wallets.models import CashRequest, Transaction
from wallets.selectors import wallet_balances
from wallets.tiers import tier_update

ROOT = Path(__file__).resolve().parents[2]
CSS = "\n".join(p.read_text() for p in (ROOT / "static").rglob("*.css"))


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _audit_page(user) -> str:
    return signed_in(user).get(reverse("staff-manager-audit")).content.decode()


def _entry(page: str, action: str) -> str:
    """The audit row of ``action``: from its "What" cell to the next row's "When" cell."""
    return page.split(f'<td data-label="What">{action}', 1)[1].split('data-label="When"', 1)[0]


# --- point 6: styled forms, errors beside the field ---------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "backoffice/cashier/player.html",
        "backoffice/cashier/desk.html",
        "backoffice/cashier/confirm.html",
        "wallets/wallet.html",
    ],
)
def test_every_class_of_the_money_forms_is_styled(template):
    text = (ROOT / "templates" / template).read_text()
    classes = {c for attr in re.findall(r'class="([^"{]*)"', text) for c in attr.split()}
    assert {"form-grid", "btn"} & classes or "inline-form" in classes
    missing = sorted(c for c in classes if not re.search(rf"\.{re.escape(c)}(?![\w-])", CSS))
    assert missing == []


def test_selects_and_amount_fields_are_styled_not_native():
    assert re.search(r"(^|,)\s*select\b[^{]*\{[^}]*background", CSS, re.M)
    assert re.search(r"input\.money-input\s*\{", CSS)
    assert re.search(r"\.form-row\s*\{[^}]*grid", CSS) and re.search(r"\.form-grid\s*\{[^}]*grid", CSS)


def test_a_bad_amount_at_the_desk_is_shown_beside_the_field(cashier, make_player):
    player = make_player(balance=0)
    page = signed_in(cashier).post(
        f"/staff/cashier/players/{player.pk}/move/", {"kind": "deposit", "amount": "12,50", "key": "k"}
    )
    body = page.content.decode()
    field = re.search(r'<div class="field has-error">\s*<label for="deposit-amount">.*?</div>', body, re.S).group(0)
    assert "must be an amount such as &quot;12.50&quot;" in field and 'aria-invalid="true"' in field
    assert re.search(r'<form method="post" action="[^"]*/move/" class="form-grid"[^>]*novalidate', body)
    assert wallet_balances(user=player).available == 0


def test_a_bad_amount_in_the_managers_tier_form_is_shown_beside_the_field(make_user, table):
    manager = make_user(MANAGER)
    page = signed_in(manager).post(
        reverse("staff-manager-tier", args=[table.tier_id]), {"name": "Low", "min_ante": "abc", "max_ante": "10.00"}
    )
    field = re.search(
        r'<div class="field has-error">\s*<label for="id_min_ante">.*?</div>', page.content.decode(), re.S
    )
    assert field and "must be an amount such as" in field.group(0)


# --- point 7: confirmations and the manager's menu ---------------------------------------


def test_a_manager_has_the_queue_in_the_menu_and_approves_after_a_confirmation(
    settings, cashier, make_user, make_player
):
    settings.CASHIER_APPROVAL_THRESHOLD = 10_000
    manager = make_user(MANAGER)
    player = make_player(balance=2_500, username="rita")
    request = wallet_services.cash_request_create(
        cashier=cashier, player=player, kind="deposit", amount=20_000, idempotency_key="big"
    )
    client = signed_in(manager)
    desk = client.get("/").content.decode()
    assert re.search(r'<a href="/staff/cashier/"[^>]*>Cash approvals</a>', desk)
    queue = client.get("/staff/cashier/").content.decode()
    assert f'href="/staff/cashier/requests/{request.pk}/approve/"' in queue
    confirm = client.get(f"/staff/cashier/requests/{request.pk}/approve/").content.decode()
    facts = re.search(r'<dl class="confirm-facts".*?</dl>', confirm, re.S).group(0)
    assert re.search(r"<dt>Amount</dt><dd[^>]*>€200.00</dd>", facts)
    assert re.search(r"<dt>Player&#x27;s available balance now</dt><dd>€25.00</dd>", facts)
    assert re.search(r"<dt>After approval</dt><dd>€225.00</dd>", facts)
    assert (
        'name="decision" value="approve"' in confirm and "<script" not in confirm.split("<main")[1].split("</main>")[0]
    )
    request.refresh_from_db()
    assert request.status == "pending" and wallet_balances(user=player).available == 2_500  # the GET moved nothing
    client.post(f"/staff/cashier/requests/{request.pk}/decide/", {"decision": "approve"})
    assert wallet_balances(user=player).available == 22_500


def test_the_requester_gets_no_confirmation_page_for_their_own_request(settings, cashier, make_player):
    settings.CASHIER_APPROVAL_THRESHOLD = 10_000
    player = make_player(balance=0)
    request = wallet_services.cash_request_create(
        cashier=cashier, player=player, kind="deposit", amount=20_000, idempotency_key="big"
    )
    response = signed_in(cashier).get(f"/staff/cashier/requests/{request.pk}/approve/", follow=True)
    assert "another staff member must approve it" in response.content.decode()
    assert CashRequest.objects.get().status == "pending"


def test_reverse_asks_for_confirmation_with_amount_and_balance(cashier, make_player):
    player = make_player(balance=0)
    wallet_services.cashier_deposit(cashier=cashier, player=player, amount=4_000, idempotency_key="d")
    deposit = Transaction.objects.get(kind="deposit", legs__account__owner=player)
    desk = signed_in(cashier)
    page = desk.get(f"/staff/cashier/players/{player.pk}/").content.decode()
    assert f'href="/staff/cashier/players/{player.pk}/reverse/{deposit.pk}/"' in page
    assert 'name="reason"' not in page  # no one-click reversal on the list any more
    confirm = desk.get(f"/staff/cashier/players/{player.pk}/reverse/{deposit.pk}/").content.decode()
    assert "+€40.00" in confirm and "<dt>After the reversal</dt><dd>€0.00</dd>" in confirm
    assert wallet_balances(user=player).available == 4_000
    desk.post(
        f"/staff/cashier/players/{player.pk}/reverse/",
        {"transaction": deposit.pk, "reason": "wrong player", "key": "r"},
    )
    assert wallet_balances(user=player).available == 0


def test_a_waiting_reversal_confirms_with_the_balance_it_leaves(settings, cashier, make_user, make_player):
    settings.CASHIER_APPROVAL_THRESHOLD = 5_000
    player = make_player(balance=0)
    wallet_services.cashier_deposit(cashier=cashier, player=player, amount=8_000, idempotency_key="d")
    deposit = Transaction.objects.get(kind="deposit", legs__account__owner=player, idempotency_key__endswith=":d")
    waiting = wallet_services.cashier_reverse(
        cashier=cashier, transaction_id=deposit.pk, reason="twice", idempotency_key="r"
    )
    assert waiting.status == "pending"
    confirm = signed_in(make_user(CASHIER)).get(f"/staff/cashier/requests/{waiting.pk}/approve/").content.decode()
    assert f"Reversal of #{deposit.pk}" in confirm
    # The waiting reversal took the deposit's money out of the wallet: held, not played.
    assert "<dt>Player&#x27;s available balance now</dt><dd>€0.00</dd>" in confirm
    assert "<dt>Held for approval</dt><dd>€80.00</dd>" in confirm
    assert "<dt>After approval</dt><dd>€0.00</dd>" in confirm


def test_another_players_transaction_has_no_reverse_page(cashier, make_player):
    alice, bob = make_player(balance=1_000), make_player(balance=1_000)
    alices = Transaction.objects.get(kind="deposit", legs__account__owner=alice)
    assert signed_in(cashier).get(f"/staff/cashier/players/{bob.pk}/reverse/{alices.pk}/").status_code == 404


# --- point 8: the audit log, the admin and the exports in words ----------------------------


def test_a_tier_change_reads_in_euros(make_user, table):
    manager = make_user(MANAGER)
    tier_update(actor=manager, tier_id=table.tier_id, changes={"max_ante": 2_500})
    page = _audit_page(make_user(AUDITOR))
    row = re.search(r"<tr>.*?Limit tier changed.*?</tr>", page, re.S).group(0)
    assert re.search(r"<strong>Highest ante</strong>:\s*€10.00 → €25.00", row)
    assert f"Limit tier “{table.tier.name}”" in row
    assert "max_ante" not in row and "2500" not in row


def test_a_pay_table_change_is_shown_as_a_table(make_user, paytables):
    manager = make_user(MANAGER)
    paytable = paytables["24h"]
    qualified = dict(paytable.data["qualified"], royal_flush=250)
    paytable_update(actor=manager, paytable_id=paytable.pk, changes={"qualified": qualified})
    page = _audit_page(manager)
    row = _entry(page, "Pay table changed")
    assert '<th scope="col">Hand</th><th scope="col">Dealer qualifies</th>' in row
    before = f"<td>Royal flush</td><td>{paytable.data['qualified']['royal_flush']} to 1</td>"
    assert before in row and "<td>Royal flush</td><td>250 to 1</td>" in row
    assert "{" not in row and "royal_flush" not in row


def test_a_table_change_names_the_tier_and_a_pool_change_reads_in_euros(make_user, table, tier_high, pool):
    manager = make_user(MANAGER)
    table_update(actor=manager, table_id=table.pk, changes={"tier": tier_high.pk})
    jackpot_services.pool_update(actor=manager, pool_id=pool.pk, changes={"bet_amount": 100})
    page = _audit_page(manager)
    assert re.search(
        rf"<strong>Limit tier</strong>:\s*“{re.escape(table.tier.name)}” → “{re.escape(tier_high.name)}”", page
    )
    assert re.search(r"<strong>Jackpot chip</strong>:\s*€0.50 → €1.00", page)
    assert "Jackpot pool “Test pool”" in page
    options = re.search(r'<select id="f-action".*?</select>', page, re.S).group(0)
    assert '<option value="table.update">Table changed</option>' in options


def test_a_schedule_change_is_shown_as_a_table_of_prizes(make_user, pool):
    manager = make_user(MANAGER)
    schedule = {
        "percent_prizes": dict(pool.schedule["percent_prizes"]),
        "fixed_prizes": dict(pool.schedule["fixed_prizes"]),
    }
    schedule["fixed_prizes"]["flush"] = 2_000
    jackpot_services.pool_update(actor=manager, pool_id=pool.pk, changes={"schedule": schedule})
    row = _entry(_audit_page(manager), "Jackpot pool changed")
    assert "<strong>Payout schedule</strong>" in row
    assert "<td>Royal flush</td><td>100 % of the meter</td>" in row
    assert "<td>Flush</td><td>€15.00</td>" in row and "<td>Flush</td><td>€20.00</td>" in row
    assert "fixed_prizes" not in row and "{" not in row


def test_the_admin_says_audit_entries_and_shows_euros(make_user, make_player, pool):
    admin_user = make_user(ADMINISTRATOR)
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    make_player(balance=12_345)
    client = signed_in(admin_user)
    index = client.get("/admin/").content.decode()
    assert "Audit entries" in index and "Audit entrys" not in index
    accounts = client.get("/admin/wallets/account/").content.decode()
    assert "€123.45" in accounts
    assert ">12345<" not in accounts
    pools = client.get("/admin/jackpot/jackpotpool/").content.decode()
    assert "€10,000.00" in pools and "€0.50" in pools and ">1000000<" not in pools


def test_the_exports_page_shows_no_server_path(make_user, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media-root-on-the-server")
    page = signed_in(make_user(AUDITOR)).get(reverse("staff-auditor-exports")).content.decode()
    assert "media-root-on-the-server" not in page and str(django_settings.BASE_DIR) not in page


def test_staff_tables_fit_or_scroll_inside_their_box():
    assert re.search(r"\.staff-table-box\s*\{[^}]*overflow-x:\s*auto", CSS)
    for template in (
        "backoffice/manager/_audit_rows.html",
        "backoffice/cashier/desk.html",
        "backoffice/cashier/player.html",
    ):
        assert "staff-table-box" in (ROOT / "templates" / template).read_text()
