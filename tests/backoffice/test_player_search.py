"""The staff's player search (the cashier's desk, the auditor's player list) finds a
player by any part of the name or e-mail address from trigram indexes on PostgreSQL,
without reading every user of the casino, also once the search's statement is prepared
(PostgreSQL's plan for any text would read them all)."""

from __future__ import annotations

import pytest
from django.db import connection

from backoffice.auditor.selectors import player_search as auditor_search
from casino.access.roles import PLAYER
from tests.conftest import require_postgres
from tests.plans import read_in_any_plan
from wallets.selectors import player_search as desk_search

pytestmark = pytest.mark.django_db

CROWD = 200_000  # where the planner's choice between the index and a scan is clear


def test_a_search_finds_the_player_and_reads_a_few_users_not_all(groups):
    require_postgres()
    with connection.cursor() as cursor:  # players crowd-1 … crowd-200000 at mail-N@example.org
        cursor.execute(
            "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, is_staff, "
            "is_active, date_joined) SELECT '!', false, 'crowd-' || n, '', '', 'mail-' || n || '@example.org', "
            "false, true, now() FROM generate_series(1, %s) AS n",
            [CROWD],
        )
        cursor.execute(
            "INSERT INTO auth_user_groups (user_id, group_id) SELECT id, %s FROM auth_user WHERE username LIKE "
            "'crowd-%%'",
            [groups[PLAYER].pk],
        )
        for table in ("auth_user", "auth_user_groups", "auth_group"):
            cursor.execute(f"ANALYZE {table}")
    searches = [
        (lambda: [u.username for u in desk_search(query="WD-127182")], ["crowd-127182"]),
        (lambda: [u.username for u in desk_search(query="il-123456@EX")], ["crowd-123456"]),
        (lambda: [u.username for u in desk_search(query="nobody-here")], []),
        (lambda: [u.username for u in auditor_search(query="owd-199999")], ["crowd-199999"]),
    ]
    for search, found in searches:
        got, read = read_in_any_plan(search, "auth_user")
        assert got == found
        assert read < 1_000, f"the search read {read} of {CROWD:,} users"  # rows the index narrowed it to
