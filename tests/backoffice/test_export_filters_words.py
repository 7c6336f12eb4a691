"""An export's filters read in the auditor's language: on the exports page and on the
export's own page, a German auditor reads the period with German dates, the player, the
game's table or hand and the kind of transaction in German; an English one in English.
The job keeps its filters as plain values (the manifest states them so)."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from backoffice import exports
from wallets.selectors import LedgerFilters

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _requested(auditor, filters: LedgerFilters, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        return exports.export_file_request(user=auditor, fmt="csv", filters=filters)


def _pages(client, job) -> list[str]:
    return [
        client.get(reverse(name, args=args), **headers).content.decode()
        for headers in (GERMAN, ENGLISH)
        for name, args in (("staff-auditor-exports", []), ("staff-auditor-export", [job.pk]))
    ]


def test_a_filtered_exports_filters_read_german_to_a_german_auditor_and_english_to_an_english_one(
    auditor, browser, make_player, django_capture_on_commit_callbacks
):
    player = make_player(username="hanna")
    filters = LedgerFilters(
        date_from=date(2026, 12, 1), date_to=date(2026, 12, 7), player=player, game="poker", hand_id=42, kind="bet"
    )
    job = _requested(auditor, filters, django_capture_on_commit_callbacks)
    german_list, german_detail, english_list, english_detail = _pages(browser(auditor), job)
    german = (
        f"01.12.2026 bis 07.12.2026, Spieler hanna (#{player.pk}), Hand #42 (Poker), Einsatz platziert, Raise gehalten"
    )
    english = f"2026-12-01 to 2026-12-07, player hanna (#{player.pk}), Poker hand #42, Bet placed, raise held"
    for page in (german_list, german_detail):
        assert german in page
    for page in (english_list, english_detail):
        assert english in page and "Spieler hanna" not in page


def test_an_unfiltered_export_is_the_whole_ledger_in_either_language(
    auditor, browser, django_capture_on_commit_callbacks
):
    job = _requested(auditor, LedgerFilters(), django_capture_on_commit_callbacks)
    german_list, german_detail, english_list, english_detail = _pages(browser(auditor), job)
    assert "gesamtes Hauptbuch" in german_list and "gesamtes Hauptbuch" in german_detail
    assert "whole ledger" in english_list and "whole ledger" in english_detail
    assert "whole ledger" not in german_detail
