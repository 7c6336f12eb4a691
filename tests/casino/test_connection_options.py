"""The PostgreSQL settings the project sets on its own connections."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.conftest import require_postgres


@pytest.mark.django_db
def test_the_connections_compile_no_statement_just_in_time():
    # JIT compiled the staff's statements for longer than they ran (casino/settings.py).
    require_postgres()
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


@pytest.mark.django_db
def test_the_connections_start_no_parallel_workers():
    # Their start-up cost more than the pages' index ranges they were started for.
    require_postgres()
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_parallel_workers_per_gather")
        assert cursor.fetchone()[0] == "0"
