"""The manager's audit log a page at a time by cursor: "Older →" and "← Newer" walk every
entry of the filters once, newest first, the filters kept in the links; a bad cursor is a
400 page with its error; an old page number reads the newest page. The filters offer the
actions and object types the code records, and a page reads about a page of entries
however long the trail (no count, no read of every entry for the filters' choices)."""

from __future__ import annotations

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from backoffice.manager import views
from casino.audit import AUDIT_ACTIONS, OBJECT_WORDS, audit_action_words, audit_record
from casino.models import AuditEntry
from tests.conftest import require_postgres
from tests.plans import rows_read

pytestmark = pytest.mark.django_db

LOG = "staff-manager-audit"


def recorded(count: int, *, actor=None, action: str = "table.update", object_type: str = "tables.Table") -> list[int]:
    """``count`` entries; their ids, newest first."""
    entries = AuditEntry.objects.bulk_create(
        AuditEntry(actor=actor, action=action, object_type=object_type, object_id=str(n % 5), before={}, after={})
        for n in range(count)
    )
    return sorted((e.pk for e in entries), reverse=True)


def _ids(response) -> list[int]:
    return [entry.pk for entry in response.context["entries"]]


def _link(response, rel: str) -> str | None:
    found = re.search(rf'href="\?([^"#]*)" rel="{rel}"', response.content.decode())
    return html.unescape(found.group(1)) if found else None


def test_older_and_newer_walk_every_entry_of_the_filters_once(browser, manager, monkeypatch):
    monkeypatch.setattr(views, "AUDIT_PAGE_SIZE", 4)
    mine = recorded(7, actor=manager, action="tier.update", object_type="wallets.LimitTier")
    recorded(5, actor=manager)
    recorded(3, action="tier.update", object_type="wallets.LimitTier")
    client = browser(manager)
    query, pages = f"action=tier.update&actor={manager.username}", []
    while True:
        response = client.get(reverse(LOG) + f"?{query}")
        pages.append(_ids(response))
        query = _link(response, "next")
        if query is None:
            break
        assert "action=tier.update" in query and f"actor={manager.username}" in query  # the filters stay
    assert [len(p) for p in pages] == [4, 3]
    assert [e for p in pages for e in p] == mine
    back = [pages[-1]]
    query = _link(response, "prev")
    while query is not None:
        response = client.get(reverse(LOG) + f"?{query}")
        back.append(_ids(response))
        query = _link(response, "prev")
    assert back == pages[::-1]


@pytest.mark.parametrize("query", ["page=2", "page=9999", "page=x"])
def test_an_old_page_number_reads_the_newest_page(query, browser, manager):
    newest = recorded(60)
    response = browser(manager).get(reverse(LOG) + f"?{query}")
    assert response.status_code == 200 and _ids(response) == newest[:50]


@pytest.mark.parametrize(
    "query,code",
    [
        ("before=-3", "before_invalid"),
        ("after=abc", "after_invalid"),
        ("before=1&before=2", "before_invalid"),
        ("before=2&after=1", "invalid_page"),
    ],
)
def test_a_bad_cursor_is_a_400_page_with_its_error(query, code, browser, manager):
    recorded(3)
    response = browser(manager).get(reverse(LOG) + f"?{query}")
    assert response.status_code == 400 and f'data-code="{code}"' in response.content.decode()


def test_a_cursor_past_the_end_reads_the_newest_page_an_entry_the_filters_leave_out_is_none(browser, manager):
    tables = recorded(2)
    tiers = recorded(2, action="tier.update", object_type="wallets.LimitTier")
    client = browser(manager)
    assert _ids(client.get(reverse(LOG), {"before": 10**9})) == tiers + tables
    refused = client.get(reverse(LOG), {"action": "tier.update", "before": tables[0]})
    assert refused.status_code == 400 and 'data-code="cursor_not_found"' in refused.content.decode()
    assert _ids(client.get(reverse(LOG), {"action": "tier.update", "before": tiers[0]})) == tiers[1:]


def test_the_filters_offer_every_recorded_action_and_type_on_an_empty_trail(browser, manager):
    page = browser(manager).get(reverse(LOG)).content.decode()
    for action in AUDIT_ACTIONS:
        assert f'<option value="{action}">{html.escape(audit_action_words(action))}</option>' in page
    for object_type in OBJECT_WORDS:
        assert f'<option value="{object_type}">' in page
    kept = browser(manager).get(reverse(LOG), {"action": "shoe.shuffle"}).content.decode()
    assert '<option value="shoe.shuffle" selected>' in kept  # a filter of the past stays chosen


def test_an_action_the_log_does_not_offer_is_not_recorded(table, manager):
    with pytest.raises(ValueError, match="casino.audit"):
        audit_record(actor=manager, action="table.repaint", obj=table, before=None, after=None)
    assert not AuditEntry.objects.exists()


def test_a_page_counts_nothing(browser, manager):
    newest = recorded(40)
    client = browser(manager)
    for query in ("", f"?before={newest[30]}", f"?after={newest[10]}&action=table.update"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse(LOG) + query).status_code == 200
        assert not [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]


@pytest.mark.parametrize("filters", ["none", "action", "object", "actor"])
def test_a_page_reads_a_page_of_entries_however_long_the_trail(filters, browser, manager, make_user):
    # With a Paginator, each page counted the trail first, and the filters' choices read all of it.
    require_postgres()
    other = make_user()
    # A trail of 5,000 changes: the manager's 1,000 tier changes, then 1,000 newer changes of
    # others (a page of the manager's is never among the newest entries).
    recorded(3_000, actor=other)
    recorded(1_000, actor=manager, action="tier.update", object_type="wallets.LimitTier")
    recorded(1_000, actor=other, action="pool.update", object_type="jackpot.JackpotPool")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE casino_auditentry")
    params = {
        "none": {},
        "action": {"action": "tier.update"},
        "object": {"object_type": "wallets.LimitTier", "object_id": "3"},
        "actor": {"actor": manager.username},
    }[filters]
    client = browser(manager)
    newest = _ids(client.get(reverse(LOG), {**params}))
    assert newest
    for cursor in ({}, {"before": newest[-1]}, {"after": newest[-1]}):
        before = rows_read("casino_auditentry")
        response = client.get(reverse(LOG), {**params, **cursor})
        read = rows_read("casino_auditentry") - before
        assert response.status_code == 200 and _ids(response)
        assert read < 200, (filters, cursor, read)
