"""The audit log in the reader's language: a German manager reads each entry in German on the
overview ("Letzte Änderungen") and on the audit log (the action, the object, every field's
name and value, amounts as German writes them, pay tables and prizes), and an English
reader sees the same entries as before. The stored entries stay as recorded."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from casino.access.roles import AUDITOR
from casino.models import AuditEntry
from jackpot import services as jackpot_services
from tables.services.config import paytable_update, table_add
from wallets.tiers import tier_update

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _rows(page: str) -> str:
    """The audit entries' table of a page (the filters' choices left out)."""
    return page.split('<table class="data-table stack audit-table">', 1)[1].split("</tbody>\n</table>", 1)[0]


def _field(name: str, value: str) -> re.Pattern:
    return re.compile(rf"<strong>{re.escape(name)}</strong>:\s*{re.escape(value)}</li>")


@pytest.fixture
def nassau(manager, tier_low, paytables, pool):
    return table_add(
        actor=manager, name="nassau", tier_id=tier_low.pk, paytable_id=paytables["24h"].pk, pool_id=pool.pk
    )


@pytest.mark.parametrize("page", ["staff-manager", "staff-manager-audit"])
def test_a_new_table_reads_in_german_to_a_german_manager_and_as_before_in_english(page, browser, manager, nassau):
    client = browser(manager)
    rows = _rows(client.get(reverse(page), **GERMAN).content.decode())
    assert "Tisch angelegt" in rows and "Tisch „nassau“" in rows
    for name, value in [
        ("Limitstufe", "„€0.50 – €10“"),
        ("Auszahlungstabelle", "„24h“"),
        ("Offen", "ja"),
        ("Einsatzfenster", "15 s"),
        ("Wenn diese Zusatzzeit abläuft", "Fold"),
        ("Ausgesetzte Runden, bevor der Platz geräumt wird", "3"),
    ]:
        assert _field(name, value).search(rows), name
    for english in ("Table created", "Table “", "Limit tier", "Open</strong>", "Betting window", ": yes"):
        assert english not in rows
    rows = _rows(client.get(reverse(page), **ENGLISH).content.decode())
    assert "Table created" in rows and "Table “nassau”" in rows
    assert _field("Limit tier", "“€0.50 – €10”").search(rows)
    assert _field("Open", "yes").search(rows) and _field("Betting window", "15 s").search(rows)
    assert _field("When that extra time runs out", "fold").search(rows)


def test_amounts_pay_tables_and_prizes_read_german(browser, make_user, manager, table, paytables, pool):
    tier_update(actor=manager, tier_id=table.tier_id, changes={"max_ante": 2_500})
    paytable = paytables["24h"]
    qualified = dict(paytable.data["qualified"], royal_flush=250)
    paytable_update(actor=manager, paytable_id=paytable.pk, changes={"qualified": qualified})
    schedule = {
        "percent_prizes": dict(pool.schedule["percent_prizes"]),
        "fixed_prizes": dict(pool.schedule["fixed_prizes"]),
    }
    schedule["fixed_prizes"]["flush"] = 2_000
    jackpot_services.pool_update(
        actor=manager, pool_id=pool.pk, changes={"schedule": schedule, "meter_share_bp": 7_250}
    )
    rows = _rows(browser(make_user(AUDITOR)).get(reverse("staff-manager-audit"), **GERMAN).content.decode())
    assert "Limitstufe geändert" in rows and "Auszahlungstabelle geändert" in rows and "Jackpot-Pool geändert" in rows
    assert _field("Höchstes Ante", "10,00\xa0€ → 25,00\xa0€").search(rows)
    assert '<th scope="col">Hand</th><th scope="col">Dealer qualifiziert sich</th>' in rows
    assert "<td>Royal Flush</td><td>250 zu 1</td>" in rows
    assert "<strong>Auszahlungsplan</strong>" in rows and '<th scope="col">Jackpot-Gewinn</th>' in rows
    assert "<td>Royal Flush</td><td>100 % des Zählers</td>" in rows
    assert "<td>Flush</td><td>15,00\xa0€</td>" in rows and "<td>Flush</td><td>20,00\xa0€</td>" in rows
    assert re.search(r"<strong>Anteil jedes Chips an den Zähler</strong>:\s*[0-9,]+ % → 72,50 %", rows)
    for english in ("to 1", "of the meter", "Dealer qualifies", "Highest ante", "Royal flush", "€10.00"):
        assert english not in rows


def test_the_system_a_deleted_tier_and_yes_no_read_german(browser, manager, table, tier_low):
    AuditEntry.objects.create(
        actor=None,
        action="table.update",
        object_type="tables.Table",
        object_id=str(table.pk),
        before={"tier": 987_654, "is_open": True, "hands_on_previous_rules": [{"hand": 7, "table_name": "Nassau"}]},
        after={"tier": tier_low.pk, "is_open": False, "hands_on_previous_rules": []},
    )
    rows = _rows(browser(manager).get(reverse("staff-manager-audit"), **GERMAN).content.decode())
    assert '<td data-label="Wer">das System</td>' in rows
    assert "Tisch geändert" in rows and "Tisch „Nassau“" in rows
    assert _field("Limitstufe", "#987654 (gelöscht) → „€0.50 – €10“").search(rows)
    assert _field("Offen", "ja → nein").search(rows)
    assert _field("Hände noch nach den vorherigen Regeln", "Hand #7 am Tisch Nassau → keine").search(rows)
    for english in ("the system", "(deleted)", "hand #7 at", "none", "yes"):
        assert english not in rows
