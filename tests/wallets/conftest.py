"""Fixtures of the wallet and cashier-desk tests (the shared ones: tests/conftest.py)."""

from __future__ import annotations

import pytest

from casino.access.roles import CASHIER


@pytest.fixture
def second_cashier(make_user):
    """A cashier other than ``cashier``: the second staff member a large deposit waits for."""
    return make_user(CASHIER, "second-cashier")
