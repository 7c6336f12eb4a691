"""Fixtures of the table tests (the shared ones: tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def seated(table, make_player, api):
    """Alice and Bob (€100 each) seated at the table through the API: (alice, bob)."""
    alice, bob = make_player(balance=10_000, username="alice"), make_player(balance=10_000, username="bob")
    for p in (alice, bob):
        assert api(p).post(f"/api/tables/{table.pk}/sit/", {}, format="json").status_code == 201
    return alice, bob
