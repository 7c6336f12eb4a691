"""The responsible-gaming page's forms: garbage gets a field error and changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from wallets import responsible
from wallets.models import GamingLimit, PlayerProtection


@pytest.fixture
def player_page(make_player):
    """A player whose reality check is every 30 minutes, signed in to the page."""
    player = make_player(balance=0)
    responsible.reality_check_set(player=player, minutes=30)
    client = Client()
    client.force_login(player)
    return player, client


@pytest.mark.parametrize(
    "body,form,field",
    [
        ({"action": "reality", "minutes": "abc"}, "reality_form", "minutes"),
        ({"action": "reality", "minutes": "\u00b2"}, "reality_form", "minutes"),
        ({"action": "reality", "minutes": "7"}, "reality_form", "minutes"),
        ({"action": "reality", "minutes": " 30"}, "reality_form", "minutes"),
        ({"action": "exclude", "months": "abc", "confirm": "yes"}, "exclude_form", "months"),
        ({"action": "exclude", "months": "\u00b2", "confirm": "yes"}, "exclude_form", "months"),
        ({"action": "exclude", "months": "\u0667", "confirm": "yes"}, "exclude_form", "months"),
        ({"action": "exclude", "months": "3", "confirm": "yes"}, "exclude_form", "months"),
        ({"action": "exclude", "months": "6"}, "exclude_form", "confirm"),
        ({"action": "limit", "kind": "bogus", "period": "day", "amount": "5"}, "limit_form", "kind"),
        ({"action": "limit", "kind": "loss", "period": "year", "amount": "5"}, "limit_form", "period"),
        ({"action": "limit", "kind": "loss", "period": "day", "amount": "abc"}, "limit_form", "amount"),
    ],
    ids=lambda v: repr(v) if isinstance(v, dict) else v,
)
def test_garbage_gets_a_field_error_and_changes_nothing(player_page, body, form, field):
    player, client = player_page
    r = client.post("/responsible-gaming/", body)
    assert r.status_code == 200
    bound = r.context[form]
    assert field in bound.errors, bound.errors
    html = r.content.decode()
    assert f'id="{bound[field].auto_id}_error"' in html  # shown beside the field
    assert "is saved" not in html and "You are excluded" not in html
    protection = PlayerProtection.objects.get(player=player)
    assert protection.reality_check_minutes == 30 and protection.excluded_until is None
    assert not GamingLimit.objects.filter(player=player).exists()


def test_valid_forms_still_save(player_page):
    player, client = player_page
    r = client.post("/responsible-gaming/", {"action": "reality", "minutes": ""}, follow=True)
    assert b"Your reality check is saved" in r.content
    assert PlayerProtection.objects.get(player=player).reality_check_minutes is None
    client.post("/responsible-gaming/", {"action": "reality", "minutes": "45"})
    assert PlayerProtection.objects.get(player=player).reality_check_minutes == 45
    r = client.post(
        "/responsible-gaming/", {"action": "limit", "kind": "loss", "period": "day", "amount": "25.50"}, follow=True
    )
    assert b"Your limit is saved" in r.content
    assert GamingLimit.objects.get(player=player).amount == 2_550
    page = client.get("/responsible-gaming/").content.decode()
    assert '<option value="45" selected>' in page
    r = client.post("/responsible-gaming/", {"action": "exclude", "months": "6", "confirm": "yes"}, follow=True)
    assert responsible.excluded_until(player=player) is not None


def test_a_bad_limit_amount_is_named_in_the_reader_s_words(player_page):
    _, client = player_page
    body = {"action": "limit", "kind": "loss", "period": "day", "amount": "abc"}
    english = client.post("/responsible-gaming/", body).context["limit_form"].errors["amount"][0]
    german = client.post("/responsible-gaming/", body, HTTP_ACCEPT_LANGUAGE="de").context["limit_form"].errors["amount"]
    assert english.startswith('Amount must be an amount such as "12.50"')
    assert german[0].startswith("Betrag muss ein Betrag wie")
