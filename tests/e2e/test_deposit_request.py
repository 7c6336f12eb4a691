"""A newcomer gets money, and the desk confirms what it moves, in Chromium.

1. A newcomer signs up; the table says the wallet is empty and Bet stays disabled even in
   the betting window. The newcomer requests €50 on the wallet page; the cashier completes
   it from the queue after a confirmation page; the player sees "Completed", €50.00, and
   can then bet.
2. A manager finds the queue from the menu, approves a big deposit on a confirmation page
   that shows the amount and the balance; a cashier's reversal asks for a reason on its
   confirmation page and shows the server's error beside the field.
Screenshots: artifacts/e2e/deposit-*.png and confirm-*.png.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import ARTIFACTS, DEMO_PASSWORD, sign_in

TIMEOUT_MS = 15_000
TABLE = "Montego Bay"

LEDGER = """
import json
from django.contrib.auth import get_user_model
from wallets.models import DepositRequest, Transaction
from wallets.selectors import wallet_balances
user = get_user_model().objects.get(username="{username}")
print(json.dumps({{
    "available": wallet_balances(user=user).available,
    "requests": [[d.amount, d.status] for d in DepositRequest.objects.filter(player=user)],
    "deposits": list(
        Transaction.objects.filter(kind="deposit", legs__account__owner=user).values_list("actor__username", flat=True)
    ),
}}))
"""


@pytest.fixture
def contexts(chromium, casino_server):
    made = []

    def make(width: int = 1366, height: int = 768, **options):
        context = chromium.new_context(viewport={"width": width, "height": height}, **options)
        context.set_default_timeout(TIMEOUT_MS)
        made.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.js_errors = errors
        return page

    yield make
    for context in made:
        context.close()


def test_a_newcomer_requests_50_the_cashier_completes_it_and_the_player_bets(contexts, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    base = casino_server.base_url
    newcomer = contexts(390, 844, is_mobile=True, has_touch=True)
    newcomer.goto(base + "/accounts/signup/")
    newcomer.get_by_label("User name").fill("newcomer")
    newcomer.get_by_label("Email address").fill("newcomer@example.com")
    newcomer.get_by_label("Password", exact=True).fill(DEMO_PASSWORD + "-new")
    newcomer.get_by_label("Password again").fill(DEMO_PASSWORD + "-new")
    newcomer.get_by_role("button", name="Create my account").click()
    expect(newcomer.locator(".flash-list")).to_contain_text("Request a deposit on your wallet page")

    # At the table: the wallet is empty, so no Bet, even once the betting window is open.
    newcomer.get_by_role("button", name=f"Sit at {TABLE}").click()
    expect(newcomer.get_by_role("heading", name=TABLE, exact=True)).to_be_visible()
    notice = newcomer.locator("#wallet-empty")
    expect(notice).to_contain_text("Your wallet is empty — request a deposit")
    expect(newcomer.locator("#btn-leave")).to_be_visible()  # seated
    expect(newcomer.locator("#ante")).to_be_enabled()  # the betting window is open for this seat
    expect(newcomer.locator("#btn-bet")).to_be_disabled()
    newcomer.screenshot(path=ARTIFACTS / "deposit-1-table-empty-phone.png", full_page=True)
    newcomer.locator("#btn-leave").click()
    expect(newcomer.locator("#btn-sit")).to_be_visible()

    # The wallet page: a bad amount is refused beside the field, then €50 is requested.
    notice.get_by_role("link", name="request a deposit").click()
    expect(newcomer.get_by_role("heading", name="Request a deposit")).to_be_visible()
    newcomer.get_by_label("Amount in €").fill("50,00")
    newcomer.get_by_role("button", name="Request deposit").click()
    expect(newcomer.locator("#deposit-amount_error")).to_contain_text('must be an amount such as "12.50"')
    expect(newcomer.get_by_label("Amount in €")).to_have_attribute("aria-invalid", "true")
    newcomer.screenshot(path=ARTIFACTS / "deposit-2-bad-amount-phone.png", full_page=True)
    newcomer.get_by_label("Amount in €").fill("50")
    newcomer.get_by_role("button", name="Request deposit").click()
    row = newcomer.locator("#deposit-requests tbody tr").first
    expect(row).to_contain_text("€50.00")
    expect(row.locator(".req-status")).to_have_text("Requested")
    newcomer.screenshot(path=ARTIFACTS / "deposit-3-requested-phone.png", full_page=True)
    assert casino_server.query(LEDGER.format(username="newcomer")) == {
        "available": 0,
        "requests": [[5000, "requested"]],
        "deposits": [],
    }

    # The cashier completes it from the queue, after a confirmation page.
    cashier = contexts()
    sign_in(cashier, base, "cashier")
    cashier.get_by_role("link", name="Cashier desk").click()
    queue = cashier.locator("#deposit-queue tbody tr", has_text="newcomer")
    expect(queue).to_contain_text("€50.00")
    cashier.screenshot(path=ARTIFACTS / "deposit-4-queue-desktop.png", full_page=True)
    queue.get_by_role("link", name=re.compile("^Complete")).click()
    facts = cashier.locator("#confirm-facts")
    expect(facts).to_contain_text("Amount received€50.00")
    expect(facts).to_contain_text("Player's available balance now€0.00")
    expect(facts).to_contain_text("After the deposit€50.00")
    cashier.screenshot(path=ARTIFACTS / "deposit-5-confirm-desktop.png", full_page=True)
    assert casino_server.query(LEDGER.format(username="newcomer"))["available"] == 0  # the confirm page moved nothing
    cashier.get_by_role("button", name="Yes, the money is received").click()
    expect(cashier.locator(".flash-list")).to_contain_text("Deposit of €50.00 for newcomer done")
    expect(cashier.locator("#deposit-queue")).to_have_count(0)
    assert casino_server.query(LEDGER.format(username="newcomer")) == {
        "available": 5000,
        "requests": [[5000, "completed"]],
        "deposits": ["cashier"],
    }

    # The player sees it, and can bet.
    newcomer.reload()
    expect(row.locator(".req-status")).to_have_text("Completed")
    expect(newcomer.locator(".balance dd").first).to_have_text("€50.00")
    expect(newcomer.locator("#wallet-empty")).to_have_count(0)
    newcomer.screenshot(path=ARTIFACTS / "deposit-6-completed-phone.png", full_page=True)
    newcomer.goto(base + "/")
    newcomer.get_by_role("button", name=f"Sit at {TABLE}").click()
    expect(newcomer.locator("#wallet-empty")).to_have_count(0)
    expect(newcomer.locator("#btn-bet")).to_be_enabled()
    newcomer.get_by_role("spinbutton", name=re.compile("^Ante")).fill("1.00")
    newcomer.locator("#btn-bet").click()
    expect(newcomer.locator("#btn-raise")).to_be_enabled()  # alone at the table: the bet is in and the cards are dealt
    expect(newcomer.locator("#wallet-available")).to_have_text("€47.00")  # €1 ante in play and the €2 raise held
    newcomer.screenshot(path=ARTIFACTS / "deposit-7-bet-phone.png", full_page=True)
    assert newcomer.js_errors == [] and cashier.js_errors == []


def test_approve_and_reverse_ask_for_confirmation_with_amount_and_balance(contexts, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    base = casino_server.base_url
    cashier = contexts()
    sign_in(cashier, base, "cashier")
    cashier.goto(base + "/staff/cashier/?q=carol")
    cashier.get_by_role("link", name="Open").click()
    cashier.locator("#deposit-amount").fill("1500")  # above the €1,000 threshold: it waits
    cashier.get_by_role("button", name="Deposit", exact=True).click()
    expect(cashier.locator(".flash-list")).to_contain_text("waits for a second staff member")

    manager = contexts()
    sign_in(manager, base, "manager")
    manager.get_by_role("navigation", name="Main").get_by_role("link", name="Cash approvals").click()
    waiting = manager.locator("tr", has_text="carol").filter(has_text="€1,500.00")
    expect(waiting).to_be_visible()
    waiting.get_by_role("link", name=re.compile("^Approve")).click()
    facts = manager.locator("#confirm-facts")
    expect(facts).to_contain_text("Amount€1,500.00")
    expect(facts).to_contain_text("Player's available balance now€2,000.00")
    expect(facts).to_contain_text("After approval€3,500.00")
    manager.screenshot(path=ARTIFACTS / "confirm-approve-desktop.png", full_page=True)
    assert casino_server.query(LEDGER.format(username="carol"))["available"] == 200_000
    manager.get_by_role("button", name="Yes, approve").click()
    expect(manager.locator(".flash-list")).to_contain_text("Approved: Deposit of €1,500.00 for carol")
    assert casino_server.query(LEDGER.format(username="carol"))["available"] == 350_000

    # The cashier reverses carol's demo deposit: the confirmation asks for a reason.
    cashier.reload()
    demo = cashier.locator("tr", has_text="Deposit").filter(has_text="€2,000.00")
    demo.get_by_role("link", name=re.compile("^Reverse")).click()
    facts = cashier.locator("#confirm-facts")
    expect(facts).to_contain_text("Amount+€2,000.00")
    expect(facts).to_contain_text("Player's available balance now€3,500.00")
    expect(facts).to_contain_text("After the reversal€1,500.00")
    cashier.get_by_role("button", name="Yes, reverse").click()
    expect(
        cashier.locator(".field.has-error", has=cashier.get_by_label("Reason")).locator(".errorlist")
    ).to_contain_text("This field is required")
    cashier.screenshot(path=ARTIFACTS / "confirm-reverse-error-desktop.png", full_page=True)
    assert casino_server.query(LEDGER.format(username="carol"))["available"] == 350_000
    cashier.get_by_label("Reason").fill("Demo money")
    cashier.get_by_role("button", name="Yes, reverse").click()
    expect(cashier.locator(".flash-list")).to_contain_text(
        "waits for a second staff member"
    )  # the day's total passed €1,000
    # While it waits, the reversal holds the deposit's €2,000 out of play.
    assert casino_server.query(LEDGER.format(username="carol"))["available"] == 150_000
    expect(cashier.locator("#player-desk-held")).to_have_text("€2,000.00")
    assert manager.js_errors == [] and cashier.js_errors == []


PAGE_FITS = "() => document.documentElement.scrollWidth <= window.innerWidth"


def test_staff_forms_and_the_audit_log_in_words_at_1366(contexts, casino_server):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    base = casino_server.base_url
    tier = casino_server.query(
        'import json; from wallets.models import LimitTier; print(json.dumps(LimitTier.objects.get(name="€10 – '
        '€100").pk))'
    )
    manager = contexts()
    sign_in(manager, base, "manager")
    manager.goto(f"{base}/staff/manager/tiers/{tier}/")
    manager.get_by_label("Maximum ante").fill("250,00")
    manager.get_by_role("button", name="Save").click()
    expect(manager.locator(".field.has-error", has=manager.get_by_label("Maximum ante"))).to_contain_text(
        "must be an amount such as"
    )
    manager.screenshot(path=ARTIFACTS / "staff-form-error-desktop.png", full_page=True)
    manager.get_by_label("Maximum ante").fill("250.00")
    manager.get_by_role("button", name="Save").click()
    manager.goto(base + "/staff/manager/audit/")
    entry = manager.locator("tr", has_text="Limit tier changed").first
    expect(entry).to_contain_text("Limit tier “€10 – €100”")
    expect(entry).to_contain_text("Highest ante: €100.00 → €250.00")
    expect(entry).not_to_contain_text("max_ante")
    assert manager.evaluate(PAGE_FITS)
    manager.screenshot(path=ARTIFACTS / "staff-audit-log-desktop.png", full_page=True)

    auditor = contexts()
    sign_in(auditor, base, "auditor")
    for path, shot in (
        ("/staff/auditor/reports/", "staff-reports"),
        ("/staff/auditor/exports/", "staff-exports"),
        ("/staff/auditor/ledger/", "staff-ledger"),
    ):
        auditor.goto(base + path)
        assert auditor.evaluate(PAGE_FITS), f"{path} is wider than 1366 px"
        auditor.screenshot(path=ARTIFACTS / f"{shot}-desktop.png", full_page=True)
    expect(auditor.locator("main")).not_to_contain_text("/tmp/")
    cashier = contexts()
    sign_in(cashier, base, "cashier")
    cashier.goto(base + "/staff/cashier/report/")
    assert cashier.evaluate(PAGE_FITS)
    cashier.screenshot(path=ARTIFACTS / "staff-cash-report-desktop.png", full_page=True)
    assert manager.js_errors == [] and auditor.js_errors == [] and cashier.js_errors == []
