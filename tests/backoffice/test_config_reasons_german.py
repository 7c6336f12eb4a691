"""A manager's refused table settings say the specific reason in the manager's language: a
poker table's stakes (the stud engine's checks), a pay table's odds and a jackpot pool's
prize schedule (the game core's checks), on the manager's pages and in the API's
``message``, with amounts in the reader's money and hands by their German names. The
``code`` stays the same in every language."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from casino.http.errors import ApplicationError
from casino.stud.games import PRESETS
from poker import replay
from poker.services import poker_table_create
from tables.models import PayTable

pytestmark = pytest.mark.django_db
GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}


def _stakes(**changes) -> dict:
    """The 2-4 seven card stud table's config (bring-in 1.00, small bet 2.00) with ``changes``."""
    return replay.config_to_json(PRESETS["seven_stud/2-4"]) | changes


def _refused_poker_table(language: str, config: dict) -> ApplicationError:
    with translation.override(language), pytest.raises(ApplicationError) as refused:
        poker_table_create(name="Bad stakes", game="seven_stud", config=config, actor=None)
    return refused.value


def test_a_bring_in_of_the_small_bet_is_refused_with_the_reason_in_german():
    config = _stakes(bring_in="2.00")
    german = _refused_poker_table("de", config)
    english = _refused_poker_table("en", config)
    assert german.code == english.code == "config_invalid"
    with translation.override("de"):
        assert german.message == (
            "Das Bring-in (2,00\u00a0€) muss kleiner als die Small Bet (2,00\u00a0€) sein: "
            "Completen erhöht es auf die Small Bet."
        )
    assert english.message == (
        "The bring-in (€2.00) must be less than the small bet (€2.00): completing raises it to the small bet."
    )


@pytest.mark.parametrize(
    "changes, german",
    [
        (
            {"limit": {"type": "fixed", "small_bet": "4.00", "big_bet": "2.00"}},
            "Small Bet 4,00\u00a0€, Big Bet 2,00\u00a0€",
        ),
        ({"bring_in_rule": "middle"}, "Die Bring-in-Regel ist lowest oder highest, nicht 'middle'."),
        ({"rake_rule": {"percent": "150", "cap": "3.00", "no_first_round": True}}, "nicht 150."),
        ({"limit": {"type": "spread", "min_bet": "1.00", "max_bet": "5.00", "unit": "0.25"}, "bring_in": "5.00"}, None),
    ],
)
def test_every_stake_check_reads_german(changes, german):
    refused = _refused_poker_table("de", _stakes(**changes))
    assert refused.code == "config_invalid"
    with translation.override("de"):
        message = refused.message
    assert message != str(translation.gettext("This table's settings are not valid."))
    if german:
        assert german in message, message
    else:  # the spread's maximum, in German money
        assert message == "Das Bring-in (5,00\u00a0€) muss kleiner als das Maximum des Spreads (5,00\u00a0€) sein."


def test_a_missing_setting_is_named_in_german():
    config = _stakes()
    del config["ante"]
    refused = _refused_poker_table("de", config)
    assert refused.code == "config_invalid"
    assert refused.message == "Die Konfiguration ist fehlerhaft: ihr fehlt 'ante'."


def test_the_poker_tables_page_speaks_german_to_a_german_manager(browser, manager):
    poker_table_create(name="Reno", game="soko", preset="2-4", actor=None)
    client = browser(manager)
    page = client.get(reverse("poker-staff-tables"), **GERMAN).content.decode()
    assert "5 %, höchstens 3,00\u00a0€" in page  # the table's rake rule in German words and money
    bad = client.post(
        reverse("poker-staff-table-new"),
        {"name": "Vegas", "preset": "seven_stud/2-4", "max_seats": "6", "rake_percent": "viel", "rake_cap": "2,00"},
        **GERMAN,
    )
    assert bad.status_code == 400 and "Ein Prozentsatz wie 5 oder 4,5." in bad.content.decode()
    good = client.post(
        reverse("poker-staff-table-new"),
        {"name": "Vegas", "preset": "seven_stud/2-4", "max_seats": "6", "rake_percent": "4,5", "rake_cap": "2,00"},
        **GERMAN,
    )
    assert good.status_code == 302
    from poker.models import PokerTable

    assert PokerTable.objects.get(name="Vegas").config["rake_rule"]["percent"] == "4.5"


# --- pay tables and the jackpot schedule ---------------------------------------------------

QUALIFIED = {
    "royal_flush": 250,
    "straight_flush": 50,
    "four_of_a_kind": 25,
    "full_house": 9,
    "flush": 6,
    "straight": 4,
    "three_of_a_kind": 3,
    "two_pair": 2,
    "one_pair": 1,
    "high_card": 1,
}
FLUSH_OVER_FULL_HOUSE = {"name": "broken", "qualified": {**QUALIFIED, "flush": 12}, "not_qualified": {}}


def test_a_pay_table_whose_higher_hand_pays_less_is_refused_in_german_over_the_api(api, manager, paytables):
    german = api(manager).post("/api/manager/paytables/", FLUSH_OVER_FULL_HOUSE, format="json", **GERMAN)
    english = api(manager).post("/api/manager/paytables/", FLUSH_OVER_FULL_HOUSE, format="json")
    assert german.status_code == english.status_code == 400
    assert german.json()["code"] == english.json()["code"] == "paytable_invalid"
    assert german.json()["message"].startswith(
        "Dealer qualifiziert sich: Full House zahlt 9 zu 1, weniger als Flush (12 zu 1); "
        "ein höheres Blatt darf nie weniger zahlen. Quoten sind ganze Zahlen"
    ), german.json()
    assert english.json()["message"].startswith(
        "Dealer qualifies: Full house pays 9 to 1, less than Flush (12 to 1); a higher hand must never pay less. "
        "Odds are"
    )
    unknown = {**FLUSH_OVER_FULL_HOUSE, "qualified": {**QUALIFIED, "five_aces": 500}}
    refused = api(manager).post("/api/manager/paytables/", unknown, format="json", **GERMAN).json()
    assert refused["code"] == "paytable_invalid"
    assert refused["message"].startswith(
        "Dealer qualifiziert sich: 'five_aces' ist kein Blatt; die Blätter sind high_card, "
    )
    missing = {**FLUSH_OVER_FULL_HOUSE, "qualified": {k: v for k, v in QUALIFIED.items() if k != "two_pair"}}
    refused = api(manager).post("/api/manager/paytables/", missing, format="json", **GERMAN).json()
    assert refused["message"].startswith("Dealer qualifiziert sich: keine Quote für Zwei Paare.")
    assert not PayTable.objects.filter(name="broken").exists()


def test_the_pay_table_page_refuses_in_german(browser, manager, paytables):
    data = {"name": "broken"}
    for key, odds in QUALIFIED.items():
        data[f"q_{key}"] = odds
    data["q_flush"] = 12
    page = browser(manager).post(reverse("staff-manager-paytable-new"), data, **GERMAN)
    assert page.status_code == 400
    text = page.content.decode()
    assert "Dealer qualifiziert sich: Full House zahlt 9 zu 1, weniger als Flush (12 zu 1)" in text
    assert "qualified:" not in text  # the column as the grid heads it, not the API's field
    assert not PayTable.objects.filter(name="broken").exists()


POOL = {
    "name": "High rollers",
    "seed_amount": "5000.00",
    "bet_amount": "1.00",
    "meter_share_bp": 6000,
    "reserve_share_bp": 1500,
    "schedule": {"percent_prizes": {"royal_flush": 100}, "fixed_prizes": {"full_house": "50.00", "flush": "80.00"}},
}


def test_a_prize_schedule_whose_higher_hand_wins_less_is_refused_in_german(api, manager):
    german = api(manager).post("/api/manager/pools/", POOL, format="json", **GERMAN)
    english = api(manager).post("/api/manager/pools/", POOL, format="json")
    assert german.status_code == english.status_code == 400
    assert german.json()["code"] == english.json()["code"] == "schedule_invalid"
    assert german.json()["message"].startswith(
        "Fester Gewinn: Full House gewinnt 50,00\u00a0€, weniger als Flush (80,00\u00a0€); "
        "ein höheres Blatt darf nie weniger gewinnen. "
    ), german.json()
    assert english.json()["message"].startswith("Fixed prize: Full house wins €50.00, less than Flush (€80.00)")
    gap = {**POOL, "schedule": {"percent_prizes": {"royal_flush": 100}, "fixed_prizes": {"flush": "80.00"}}}
    refused = api(manager).post("/api/manager/pools/", gap, format="json", **GERMAN).json()
    assert refused["code"] == "schedule_invalid"
    assert refused["message"].startswith(
        "Straight Flush, Vier Gleiche, Full House muss einen Gewinn erhalten, wie Flush."
    ), refused


# The pool page's form as a German manager types it (amounts with a decimal comma).
POOL_PAGE = {
    "name": "High rollers",
    "seed_amount": "5000,00",
    "bet_amount": "1,00",
    "meter_share_bp": 6000,
    "reserve_share_bp": 1500,
}


def _cell(page: str, name: str) -> re.Match | None:
    """A grid cell of a page: its input named ``name``, and what follows it in the cell."""
    return re.search(rf'<input [^>]*name="{name}"[^>]*>(.*?)</td>', page)


def test_the_pool_page_refuses_a_prize_schedule_in_german(browser, manager):
    data = {
        **POOL_PAGE,
        "pct_royal_flush": 100,
        "fixed_full_house": "50,00",
        "fixed_flush": "80,00",
    }
    page = browser(manager).post(reverse("staff-manager-pool-new"), data, **GERMAN)
    assert page.status_code == 400
    assert "Full House gewinnt 50,00\u00a0€, weniger als Flush (80,00\u00a0€)" in page.content.decode()


@pytest.mark.parametrize(
    "changes, german, english",
    [
        (
            {"limit": "fixed"},
            "Das Feld limit der Konfiguration muss ein Objekt mit eigenen Einstellungen sein.",
            "The config's limit must be an object of its own settings.",
        ),
        (
            {"limit": {"type": "pot", "small_bet": "2.00", "big_bet": "4.00"}},
            "Das Feld limit.type der Konfiguration ist 'fixed' oder 'spread'.",
            "The config's limit.type is 'fixed' or 'spread'.",
        ),
        (
            {"limit": {"type": "fixed", "small_bet": ["2.00"], "big_bet": "4.00"}},
            'Das Feld limit.small_bet der Konfiguration muss ein Betrag in ganzen Cent sein, etwa "1.50".',
            'The config\'s limit.small_bet must be an amount in whole cents, such as "1.50".',
        ),
        (
            {"ante": "0.005"},
            'Das Feld ante der Konfiguration muss ein Betrag in ganzen Cent sein, etwa "1.50".',
            'The config\'s ante must be an amount in whole cents, such as "1.50".',
        ),
        (
            {"rake_rule": {"percent": "viel", "cap": "3.00", "no_first_round": True}},
            'Das Feld rake_rule.percent der Konfiguration muss ein Prozentsatz sein, etwa "5".',
            'The config\'s rake_rule.percent must be a percentage, such as "5".',
        ),
        (
            {"rake_rule": {"percent": "5", "cap": "3.00", "no_first_round": "no"}},
            "Das Feld rake_rule.no_first_round der Konfiguration muss true oder false sein.",
            "The config's rake_rule.no_first_round must be true or false.",
        ),
        (
            {"max_seats": "six"},
            "Das Feld max_seats der Konfiguration muss eine ganze Zahl sein.",
            "The config's max_seats must be a whole number.",
        ),
        (
            {"bring_in_rule": 3},
            "Das Feld bring_in_rule der Konfiguration muss ein Text sein.",
            "The config's bring_in_rule must be a text.",
        ),
    ],
)
def test_a_field_of_the_wrong_type_is_named_with_what_it_needs_in_german(changes, german, english):
    """Not Python's own words for an odd type: the field, and the type it needs."""
    refused = _refused_poker_table("de", _stakes(**changes))
    assert refused.code == "config_invalid"
    with translation.override("de"):
        assert refused.message == german
    assert _refused_poker_table("en", _stakes(**changes)).message == english


def test_the_pool_page_names_a_hand_s_prize_field_in_german(browser, manager):
    """A refused amount names its field by its label: the hand and the column in the manager's
    words, not English put together."""
    data = {
        **POOL_PAGE,
        "pct_royal_flush": 100,
        "fixed_four_of_a_kind": "viel",
    }
    page = browser(manager).post(reverse("staff-manager-pool-new"), data, **GERMAN)
    assert page.status_code == 400
    text = page.content.decode()
    assert "Vier Gleiche: fester Gewinn muss" in text, text
    assert "fixed prize" not in text and "Four of a kind" not in text
    english = browser(manager).post(reverse("staff-manager-pool-new"), data).content.decode()
    assert "Four of a kind: fixed prize must be" in english


def test_the_pay_table_form_s_labels_read_german():
    from backoffice.manager.forms import PayTableForm, PoolForm

    with translation.override("de"):
        assert str(PayTableForm().fields["q_three_of_a_kind"].label) == "Drei Gleiche, Dealer qualifiziert sich"
        assert str(PayTableForm().fields["nq_flush"].label) == "Flush, Dealer qualifiziert sich nicht"
        assert str(PoolForm().fields["pct_royal_flush"].label) == "Royal Flush: Prozent des Zählers"
    assert str(PoolForm().fields["fixed_full_house"].label) == "Full house: fixed prize"


def test_odds_over_the_most_a_pay_table_pays_are_refused_beside_the_cell_in_german(browser, manager, paytables):
    """Odds above ``MAX_ODDS`` are refused by the form, beside the hand's cell and in the
    manager's words, not by the service in its API words ("qualified: royal_flush …")."""
    data = {"name": "Zu großzügig"} | {f"q_{key}": odds for key, odds in paytables["classic"].data["qualified"].items()}
    data["q_royal_flush"] = 5000
    page = browser(manager).post(reverse("staff-manager-paytable-new"), data, **GERMAN)
    assert page.status_code == 400
    text = page.content.decode()
    cell = _cell(text, "q_royal_flush")
    assert cell and "Dieser Wert muss kleiner oder gleich 1000 sein." in cell.group(1), text
    assert 'aria-invalid="true"' in cell.group(0)
    assert "qualified" not in text and "royal_flush pays" not in text
    assert not PayTable.objects.filter(name="Zu großzügig").exists()
    english = browser(manager).post(reverse("staff-manager-paytable-new"), data).content.decode()
    assert "Ensure this value is less than or equal to 1000." in english


def test_a_percent_prize_over_100_is_refused_beside_the_cell_in_german(browser, manager):
    data = {
        **POOL_PAGE,
        "pct_royal_flush": 150,
    }
    page = browser(manager).post(reverse("staff-manager-pool-new"), data, **GERMAN)
    assert page.status_code == 400
    text = page.content.decode()
    cell = _cell(text, "pct_royal_flush")
    assert cell and "Dieser Wert muss kleiner oder gleich 100 sein." in cell.group(1), text
    assert "percent_prizes" not in text
