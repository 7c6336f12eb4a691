"""The API's lists a page at a time by cursor (``casino.http.pagination``): ``next`` and
``previous`` walk every row once, newest first, and back; a page says no count; a bad
cursor, a limit above the maximum or an offset is a 400 with its code; every page is what
the published schema says. The player's statement, hands and poker hands and notes, the
manager's audit log and the auditor's poker hands."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.access.roles import MANAGER
from casino.http.pagination import CursorPagination
from casino.models import AuditEntry
from poker.models import PokerNote
from tests.casino.test_api_inputs import _error
from tests.conftest import require_postgres
from tests.factories import PokerTableFactory
from tests.plans import rows_read
from tests.poker.test_audit_hand_pages import dealt
from tests.poker.test_hand_history_pages import played
from tests.tables.test_api_schema import Schema, call
from tests.tables.test_hand_history_pages import _played as caribbean_played
from tests.wallets.test_statement_pages import _grow

pytestmark = pytest.mark.django_db

LISTS = ["statement", "hands", "poker_hands", "notes", "audit", "auditor_poker_hands"]
URLS = {
    "statement": "/api/wallet/statement/",
    "hands": "/api/hands/",
    "poker_hands": "/api/poker/hands/",
    "notes": "/api/poker/notes/",
    "audit": "/api/manager/audit/",
    "auditor_poker_hands": "/api/auditor/poker/hands/",
}


@pytest.fixture
def schema(api, make_player):
    response = api(make_player()).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    return Schema(json.loads(response.content))


@pytest.fixture
def filled(make_player, make_user, auditor, table):
    """``filled(name, count)``: a client of the one who reads the list ``name``, after
    ``count`` rows of it are written; the rows' keys (``_key``), newest first."""

    poker_table = PokerTableFactory(game="seven_stud", preset="2-4")

    def fill(name: str, count: int):
        player = make_player()
        if name == "statement":
            _grow(player, count - 1)  # and the player's first deposit
            from wallets.selectors import wallet_statement

            return player, [leg.pk for leg in wallet_statement(user=player)]
        if name == "hands":
            return player, caribbean_played(player, table, count - 1)  # and the live hand
        if name == "poker_hands":
            return player, played(player, poker_table, count)
        if name == "notes":
            subjects = [make_player() for _ in range(count)]
            notes = [PokerNote.objects.create(author=player, subject=s, text=f"n{n}") for n, s in enumerate(subjects)]
            return player, [note.pk for note in reversed(notes)]
        if name == "audit":
            AuditEntry.objects.bulk_create(
                AuditEntry(action="table.update", object_type="tables.Table", object_id="1", before={}, after={})
                for _ in range(count - 1)
            )  # and the poker table's creation
            return make_user(MANAGER), sorted(AuditEntry.objects.values_list("pk", flat=True), reverse=True)
        hands = dealt(poker_table, count)
        return auditor, sorted((h.pk for h in hands), key=lambda pk: (_start(pk), pk), reverse=True)

    return fill


def _start(pk):
    from poker.models import PokerHand

    return PokerHand.objects.get(pk=pk).started_at


ROW_KEY = {
    "statement": "transaction",
    "hands": "id",
    "poker_hands": "id",
    "notes": "player",
    "audit": "id",
    "auditor_poker_hands": "hand",
}


def _rows(name: str, body: dict) -> list:
    return [row[ROW_KEY[name]] for row in body["results"]]


def _local(link: str) -> str:
    assert link.startswith("http://testserver/")
    return link.removeprefix("http://testserver")


def _expected(name: str, keys: list[int]) -> list:
    """The rows the list shows for these keys, as ``_rows`` reads them."""
    if name == "notes":
        subjects = dict(PokerNote.objects.filter(pk__in=keys).values_list("pk", "subject__username"))
        return [subjects[k] for k in keys]
    if name == "statement":
        from wallets.models import Leg

        transactions = dict(Leg.objects.filter(pk__in=keys).values_list("pk", "transaction_id"))
        return [transactions[k] for k in keys]
    return keys


@pytest.mark.parametrize("name", LISTS)
def test_next_and_previous_walk_every_row_once_and_back(name, filled, api, schema):
    reader, keys = filled(name, 11)
    client = api(reader)
    pages, body = [], call(schema, client, "get", f"{URLS[name]}?limit=3").json()
    assert body["previous"] is None and "count" not in body and body["max_limit"] == CursorPagination.max_limit
    while True:
        pages.append(_rows(name, body))
        if body["next"] is None:
            break
        body = call(schema, client, "get", _local(body["next"])).json()
    assert [len(p) for p in pages] == [3, 3, 3, 2]
    assert [row for p in pages for row in p] == _expected(name, keys)
    back = [pages[-1]]
    while body["previous"] is not None:
        body = call(schema, client, "get", _local(body["previous"])).json()
        back.append(_rows(name, body))
    assert back == pages[::-1]


@pytest.mark.parametrize("name", LISTS)
@pytest.mark.parametrize(
    "query,code,field",
    [
        ("before=-3", "before_invalid", "before"),
        ("after=abc", "after_invalid", "after"),
        (f"after={2**62 + 1}", "after_invalid", "after"),
        ("before=1&before=2", "before_invalid", "before"),
        ("before=2&after=1", "invalid_page", "after"),
        ("offset=5", "offset_not_supported", "offset"),
        ("offset=x", "offset_invalid", "offset"),
        ("limit=1001", "limit_too_large", "limit"),
        ("limit=0", "limit_invalid", "limit"),
    ],
)
def test_a_bad_cursor_limit_or_offset_is_a_400_with_its_code(name, query, code, field, filled, api, schema):
    reader, _ = filled(name, 2)
    body = _error(call(schema, api(reader), "get", f"{URLS[name]}?{query}"), 400, code)
    assert body["extra"]["field"] == field


@pytest.mark.parametrize("name", ["hands", "poker_hands", "auditor_poker_hands"])
def test_a_row_not_in_the_list_is_no_cursor(name, filled, api, schema):
    # A list ordered by a time and the id: the cursor's row is found first.
    reader, _ = filled(name, 2)
    _error(call(schema, api(reader), "get", f"{URLS[name]}?before={10**9}"), 400, "cursor_not_found")


@pytest.mark.parametrize("name", LISTS)
def test_an_offset_of_zero_or_a_cursor_past_the_end_reads_the_newest_page(name, filled, api, schema):
    reader, keys = filled(name, 4)
    client = api(reader)
    newest = _rows(name, call(schema, client, "get", URLS[name]).json())
    assert newest == _expected(name, keys)
    assert _rows(name, call(schema, client, "get", f"{URLS[name]}?offset=0").json()) == newest
    if name in ("statement", "notes", "audit"):  # a cursor of one column: past either end
        assert _rows(name, call(schema, client, "get", f"{URLS[name]}?before=1").json()) == newest


@pytest.mark.parametrize("name", LISTS)
def test_a_page_counts_nothing(name, filled, api):
    reader, _ = filled(name, 5)
    with CaptureQueriesContext(connection) as queries:
        assert api(reader).get(f"{URLS[name]}?limit=2").status_code == 200
    assert not [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]


def test_the_schema_says_the_cursor_page_and_no_offset(schema):
    for url in URLS.values():
        operation = schema.operation("get", url)
        names = {p["name"] for p in operation["parameters"]}
        assert {"limit", "before", "after"} <= names and "offset" not in names, url
        page = operation["responses"]["200"]["content"]["application/json"]["schema"]
        if "$ref" in page:
            page = schema.document["components"]["schemas"][page["$ref"].rpartition("/")[2]]
        assert {"results", "next", "previous", "max_limit"} <= set(page["required"]), url
        assert "count" not in page["properties"], url


def test_the_notes_page_reads_a_page_of_notes_however_many_the_author_keeps(make_player, api):
    # The other lists' pages are measured on their pages (the same selectors).
    require_postgres()
    author, others = make_player(), [make_player() for _ in range(20)]
    subjects = [make_player() for _ in range(400)]
    PokerNote.objects.bulk_create(PokerNote(author=author, subject=s, text="x") for s in subjects)
    PokerNote.objects.bulk_create(PokerNote(author=o, subject=s, text="x") for o in others for s in subjects[:100])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE poker_pokernote")
    client = api(author)
    first = client.get("/api/poker/notes/?limit=20").json()
    for url in ("/api/poker/notes/?limit=20", first["next"], first["next"].replace("before=", "after=")):
        before = rows_read("poker_pokernote")
        assert client.get(url).status_code == 200
        read = rows_read("poker_pokernote") - before
        assert read < 100, (url, read)
