"""Creating, opening and closing a poker table is in the configuration audit log: who did
it, the table before and after (name, game, preset, seats, state, rake rule), in the same
transaction as the change (a change that rolls back leaves no entry), read in words on the
manager's and the auditor's audit log (English and German) and in the audit API."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from casino.models import AuditEntry
from poker import services
from poker.models import PokerTable

pytestmark = pytest.mark.django_db

RAKE = {"percent": "5", "cap": "3.00", "no_first_round": True}


def _created(client, **fields) -> PokerTable:
    data = {"name": "Vegas", "preset": "seven_stud/2-4", "max_seats": "6", "rake_percent": "5", "rake_cap": "3.00"}
    response = client.post(reverse("poker-staff-table-new"), data | fields)
    assert response.status_code == 302
    return PokerTable.objects.get(name=(data | fields)["name"])


def _state(client, table: PokerTable, state: str) -> None:
    assert client.post(reverse("poker-staff-table-state", args=[table.pk]), {"state": state}).status_code == 302


def _entries(table: PokerTable) -> list[AuditEntry]:
    return list(AuditEntry.objects.filter(object_type="poker.PokerTable", object_id=str(table.pk)).order_by("pk"))


def _rows(page: str) -> str:
    return page.split('<table class="data-table stack audit-table">', 1)[1].split("</tbody>\n</table>", 1)[0]


def _field(name: str, value: str) -> re.Pattern:
    return re.compile(rf"<strong>{re.escape(name)}</strong>:\s*{re.escape(value)}</li>")


def test_creating_closing_and_opening_a_poker_table_is_audited_with_its_manager(browser, manager):
    client = browser(manager)
    table = _created(client)
    _state(client, table, "close")
    _state(client, table, "close")  # already closed: nothing changes, nothing is recorded
    _state(client, table, "open")
    created, closed, opened = _entries(table)
    snapshot = {
        "name": "Vegas",
        "game": "seven_stud",
        "preset": "seven_stud/2-4",
        "max_seats": 6,
        "state": "open",
        "rake_rule": RAKE,
    }
    assert (created.action, created.actor, created.before, created.after) == (
        "poker_table.create",
        manager,
        None,
        snapshot,
    )
    assert (closed.action, closed.actor) == ("poker_table.close", manager)
    assert (closed.before, closed.after) == (snapshot, snapshot | {"state": "closed"})
    assert (opened.action, opened.actor) == ("poker_table.open", manager)
    assert (opened.before, opened.after) == (snapshot | {"state": "closed"}, snapshot)


def test_a_manager_made_rake_rule_is_in_the_entry(browser, manager):
    table = _created(browser(manager), name="Reno", rake_percent="4.5", rake_cap="2.00", rake_first_round="on")
    (created,) = _entries(table)
    assert created.after["preset"] == "" and created.after["max_seats"] == 6
    assert created.after["rake_rule"] == {"percent": "4.5", "cap": "2.00", "no_first_round": False}


def test_an_entry_rolls_back_with_its_change(browser, manager, monkeypatch):
    client = browser(manager)
    table = _created(client)

    def broken(table, what):
        raise RuntimeError("the step fails after the change")

    monkeypatch.setattr(services, "_publish_table", broken)
    with pytest.raises(RuntimeError):
        services.poker_table_close(actor=manager, table_id=table.pk)
    table.refresh_from_db()
    assert table.is_open and [e.action for e in _entries(table)] == ["poker_table.create"]
    with pytest.raises(RuntimeError):
        services.poker_table_create(name="Reno", game="soko", preset="2-4", actor=manager)
    assert not PokerTable.objects.filter(name="Reno").exists()
    assert AuditEntry.objects.count() == 1
    monkeypatch.undo()
    services.poker_table_close(actor=manager, table_id=table.pk)
    monkeypatch.setattr(services, "_publish_table", broken)
    with pytest.raises(RuntimeError):
        services.poker_table_open(actor=manager, table_id=table.pk)
    table.refresh_from_db()
    assert not table.is_open
    assert [e.action for e in _entries(table)] == ["poker_table.create", "poker_table.close"]


def test_the_audit_log_reads_a_poker_table_in_words_in_english_and_german(browser, manager, auditor):
    client = browser(manager)
    table = _created(client)
    _state(client, table, "close")
    english = _rows(browser(auditor).get(reverse("staff-manager-audit"), HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert "Poker table created" in english and "Poker table closed" in english
    assert "Poker table “Vegas”" in english
    for name, value in [
        ("Game", "Seven Card Stud"),
        ("Preset", "2-4"),
        ("Seats", "6"),
        ("State", "Open"),
        ("Rake rule", "5 %, at most €3.00"),
    ]:
        assert _field(name, value).search(english), name
    assert _field("State", "Open → Closed").search(english)
    assert "seven_stud" not in english and "no_first_round" not in english
    german = _rows(client.get(reverse("staff-manager-audit"), HTTP_ACCEPT_LANGUAGE="de").content.decode())
    assert "Pokertisch angelegt" in german and "Pokertisch geschlossen" in german
    assert "Pokertisch „Vegas“" in german and f'<td data-label="Wer">{manager.username}</td>' in german
    assert _field("Spiel", "Seven Card Stud").search(german) and _field("Plätze", "6").search(german)
    assert _field("Rake-Regel", "5 %, höchstens 3,00\xa0€").search(german)
    assert _field("Status", "Offen → Geschlossen").search(german)
    recent = client.get(reverse("staff-manager"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "Pokertisch geschlossen" in recent


def test_the_audit_api_and_its_filters_have_the_poker_tables(browser, api, manager, auditor):
    table = _created(browser(manager))
    body = api(auditor).get("/api/manager/audit/", {"action": "poker_table.create"}).json()
    (entry,) = body["results"]
    assert (entry["actor"], entry["object_type"], entry["object_id"]) == (
        manager.username,
        "poker.PokerTable",
        str(table.pk),
    )
    assert entry["before"] is None and entry["after"]["rake_rule"] == RAKE
    page = browser(auditor).get(reverse("staff-manager-audit")).content.decode()
    assert '<option value="poker_table.close">Poker table closed</option>' in page
    assert '<option value="poker.PokerTable">Poker table</option>' in page
