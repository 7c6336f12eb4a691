"""A Caribbean hand's public change is written against the version its step read: a row that moved
under it (which the table's lock forbids) is refused loudly and nothing is written."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DatabaseError, transaction
from django.utils import timezone

from tables.models import Hand
from tables.services.seats import table_sit

pytestmark = pytest.mark.django_db


def test_a_change_is_saved_with_its_version_and_a_stale_one_is_refused(table, make_player):
    table_sit(user=make_player(), table_id=table.pk)
    hand = Hand.objects.live().get(table=table)
    deadline = timezone.now() + timedelta(seconds=30)
    hand.betting_deadline, hand.version = deadline, hand.version + 1
    hand.save_version("betting_deadline")
    stored = Hand.objects.get(pk=hand.pk)
    assert (stored.version, stored.betting_deadline) == (hand.version, deadline)

    stale = Hand.objects.get(pk=hand.pk)
    Hand.objects.filter(pk=hand.pk).update(version=stored.version + 5)  # moved under it
    stale.betting_deadline, stale.version = deadline + timedelta(seconds=5), stale.version + 1
    with pytest.raises(DatabaseError), transaction.atomic():
        stale.save_version("betting_deadline")
    assert Hand.objects.get(pk=hand.pk).betting_deadline == deadline


def test_a_new_row_and_one_never_read_from_the_database(table, make_player):
    table_sit(user=make_player(), table_id=table.pk)
    hand = Hand.objects.live().get(table=table)
    built = Hand(pk=hand.pk, version=hand.version)  # not read: no version to check against
    with pytest.raises(DatabaseError):
        built.save_version("state")
