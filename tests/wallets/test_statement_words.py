"""The cashier's desk on a player's statement, in the reader's language: a deposit the
player asked for by its request's time and reference, a waiting withdrawal's hold and its
release by what became of it, a reversal by what it undid and why, the cashier's note as
typed; never the ledger's English memos ("Deposit by cashier", "Desk request #12")."""

from __future__ import annotations

import html
import re

import pytest
from django.utils import formats, timezone, translation

from tests.wallets.test_cashier_desk import _post
from wallets.models import DepositRequest
from wallets.services import cash_request_create, cashier_deposit, deposit_request_complete, deposit_request_create

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}
LEDGER_WORDS = re.compile(r"Deposit by|Withdrawal by|Desk request #|Deposit request #|Reversal of #")


def _lines(client, **headers) -> list[tuple[str, str, str]]:
    """The statement's rows, newest first: (amount, what, details), as the reader sees them."""
    page = client.get("/wallet/", **headers).content.decode()
    table = page.split('id="statement-title"')[1].split("</table>")[0]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.DOTALL):
        cells = [_text(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)]
        rows.append((cells[1], cells[2], cells[4]))
    return rows


def _text(cell: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", cell)).replace("\xa0", " ").strip()


def test_a_requested_deposit_reads_by_its_time_and_reference(make_player, cashier, browser, api):
    player = make_player(balance=0)
    asked = deposit_request_create(player=player, amount=5_000, idempotency_key="ask")
    deposit_request_complete(request_id=asked.pk, completed_by=cashier, reference="SEPA-77")
    when = DepositRequest.objects.get(pk=asked.pk).requested_at
    with translation.override("de"):
        german_time = formats.date_format(timezone.localtime(when), "SHORT_DATETIME_FORMAT")

    [line] = _lines(browser(player), **GERMAN)
    assert line == ("+50,00 €", "Einzahlung", f"Einzahlungsanfrage vom {german_time}, Referenz SEPA-77")
    [english] = _lines(browser(player))
    assert english[2].startswith("Deposit request of ") and english[2].endswith(", reference SEPA-77")
    # The API says the line as the page does, in the requester's language, beside its codes.
    [row] = api(player).get("/api/wallet/statement/", HTTP_ACCEPT_LANGUAGE="de").json()["results"]
    assert (row["kind"], row["amount"], row["what"], row["details"]) == ("deposit", "50.00", line[1], line[2])


def test_a_waiting_withdrawal_s_hold_and_release_say_what_became_of_it(
    cashier, second_cashier, make_player, api, browser
):
    player = make_player(balance=250_000)
    first = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "2000.00"}, key="w1")
    _post(api(second_cashier), f"/api/cashier/requests/{first.json()['request']}/approve/", key="a")
    second = _post(api(cashier), "/api/cashier/withdrawals/", {"player": player.pk, "amount": "100.00"}, key="w2")
    _post(api(second_cashier), f"/api/cashier/requests/{second.json()['request']}/reject/", {"reason": "ID"}, key="n")

    german = _lines(browser(player), **GERMAN)
    assert [details for _, _, details in german[:6]] == [
        "Abgelehnt: zurück im Guthaben",
        "Eine Auszahlung an der Kasse, wartet auf Freigabe",
        "An der Kasse",
        "Freigegeben: an der Kasse ausgezahlt",
        "Eine Auszahlung an der Kasse, wartet auf Freigabe",
        "An der Kasse",  # the deposit that funded the player
    ]
    amounts = ["+100,00 €", "−100,00 €", "−2.000,00 €", "+2.000,00 €", "−2.000,00 €"]
    assert [amount for amount, _, _ in german[:5]] == amounts
    english = _lines(browser(player))
    assert english[0][2] == "Rejected: back in the wallet"
    assert english[3][2] == "Approved: paid out at the cashier's desk"
    assert not any(LEDGER_WORDS.search(" ".join(line)) for line in german + english)


def test_a_reversal_reads_by_its_reason_and_a_note_as_the_cashier_typed_it(
    settings, cashier, second_cashier, make_player, api, browser
):
    settings.CASHIER_APPROVAL_THRESHOLD = 5_000
    player = make_player(balance=0)
    note = "Bareinzahlung Filiale 3"
    cash_request_create(cashier=cashier, player=player, kind="deposit", amount=3_000, idempotency_key="n", memo=note)
    deposit = cashier_deposit(cashier=cashier, player=player, amount=8_000, idempotency_key="d")
    undo = _post(api(cashier), "/api/cashier/reversals/", {"transaction": deposit.pk, "reason": "doppelt"}, key="r")
    _post(api(second_cashier), f"/api/cashier/requests/{undo.json()['request']}/approve/", key="a")

    with translation.override("de"):
        deposited = formats.date_format(timezone.localtime(deposit.created_at), "SHORT_DATETIME_FORMAT")
    german = _lines(browser(player), **GERMAN)
    assert german == [
        ("−80,00 €", "Storno", f"Einzahlung vom {deposited} storniert: doppelt"),
        ("+80,00 €", "Von der Kasse freigegeben", "Freigegeben: storniert"),
        ("−80,00 €", "An der Kasse zur Freigabe zurückgehalten", "Ein Storno an der Kasse, wartet auf Freigabe"),
        ("+80,00 €", "Einzahlung", "An der Kasse"),
        ("+30,00 €", "Einzahlung", "Bareinzahlung Filiale 3"),
    ]
    english = _lines(browser(player))
    assert english[0][2].startswith("Deposit of ") and english[0][2].endswith(" reversed: doppelt")
    assert english[3][2] == "At the cashier's desk"
    desk = _text(browser(cashier).get(f"/staff/cashier/players/{player.pk}/").content.decode())
    assert "Note Optional; the player's statement shows it." in " ".join(desk.split())  # the cashier is told
    assert not any(LEDGER_WORDS.search(" ".join(line)) for line in german + english)
