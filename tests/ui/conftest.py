"""Fixtures for the page tests: signed-in browsers (Django's test client) and a played hand."""

from __future__ import annotations

import pytest
from django.test import Client

from tables import services
from tables.models import Hand


@pytest.fixture(autouse=True)
def _own_cache(settings, tmp_path):
    """A cache of this test's own: sign-up counts its attempts per address in the cache,
    and every page test signs up from the same address."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": str(tmp_path)}}


@pytest.fixture
def browser():
    """``browser(user)``: a test client signed in as ``user`` (anonymous without one)."""

    def make(user=None, *, csrf_checks: bool = False) -> Client:
        client = Client(enforce_csrf_checks=csrf_checks)
        if user is not None:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def play_hand(table):
    """``play_hand([(player, ante_cents, jackpot, "raise"|"fold"), …])``: sit, bet, decide; the settled hand."""

    def play(moves) -> Hand:
        for player, *_ in moves:
            services.table_sit(user=player, table_id=table.pk)
        for player, ante, jackpot, _ in moves:
            hand_seat = services.hand_bet(user=player, table_id=table.pk, ante=ante, jackpot=jackpot)
        for player, _, _, action in moves:
            services.hand_decide(user=player, hand_id=hand_seat.hand_id, action=action)
        return Hand.objects.get(pk=hand_seat.hand_id)

    return play
