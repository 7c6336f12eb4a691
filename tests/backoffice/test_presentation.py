"""One presentation per object: the template filters, the typed recall that both the
auditor's page and API present, and the API's serializers reading it."""

from __future__ import annotations

from django.template import engines
from django.urls import reverse

from backoffice.auditor.recall import HandRecall, RecallSeat, hand_recall
from backoffice.auditor.serializers import HandRecallOutput
from casino.cents import parse_cents
from casino.money import money
from tables.models import Hand
from tables.selectors import hand_view
from tables.services.hands import hand_bet
from tables.services.seats import table_sit


def render(text: str, **context) -> str:
    return engines["django"].from_string("{% load casino_tags staff_tags %}" + text).render(context)


def test_the_money_filters_are_casino_money_and_read_cents_or_wire_strings():
    assert render(
        "{{ a|money }}|{{ b|money }}|{{ c|signed_money }}|{{ d|signed_money }}", a=125_000, b="-1.05", c=650, d=0
    ) == ("€1,250.00|\u2212€1.05|+€6.50|€0.00")
    assert render("{{ none|money }}", none=None) == ""
    assert parse_cents("12.5") == 1250 and parse_cents("-0.07") == -7 and parse_cents(None) == 0
    for bad in ("1e3", "12.345", " 5", "+5", 5):
        try:
            parse_cents(bad)
        except ValueError:
            continue
        raise AssertionError(f"parse_cents accepted {bad!r}")
    assert money("10000.00") == "€10,000.00"


def test_the_card_category_percent_and_label_filters():
    card = render("{% with c='Th'|card %}{{ c.rank }}{{ c.suit }} {{ c.name }} {{ c.red }}{% endwith %}")
    assert card == "10\u2665 Ten of hearts True"
    assert render("{{ none|card }}", none=None) == "None"
    assert (
        render("{{ 'one_pair'|category_label }}|{{ 'nonsense'|category_label }}|{{ none|category_label }}", none=None)
        == "One pair|nonsense|"
    )
    assert render("{{ cards|hand_name }}", cards=["Th", "Td", "2c", "5s", "9h"]) == "Pair of tens"
    assert render("{{ v|percent }}|{{ none|percent }}", v="97.40", none=None) == "97.40 %|\u2014"
    assert (
        render("{{ 'raise'|decision_label }}|{{ ''|decision_label }}|{{ 'dealer_not_qualified'|outcome_label }}")
        == "Raised|\u2014|Dealer did not qualify"
    )
    assert render("{% for k, v in d|sorted_items %}{{ k }}={{ v }};{% endfor %}", d={"b": 2, "a": 1}) == "a=1;b=2;"


def test_the_recall_is_one_typed_result_shown_as_hand_view_shows_it(
    table, make_player, play_hand, api, browser, auditor
):
    ann, ben = make_player(50_000, "ann"), make_player(50_000, "ben")
    hand = play_hand([(ann, 100, False, "raise"), (ben, 100, False, "fold")])
    recall = hand_recall(hand_id=hand.pk)
    assert isinstance(recall, HandRecall) and all(isinstance(seat, RecallSeat) for seat in recall.seats)
    view = hand_view(hand=hand, viewer=None)
    assert [seat.cards for seat in recall.seats] == [seat["cards"] for seat in view["seats"]]
    assert [seat.hand_name for seat in recall.seats] == [seat["hand_name"] for seat in view["seats"]]
    assert (
        recall.dealer_cards == view["dealer"]["cards"] and recall.server_seed == view["server_seed"] == hand.server_seed
    )
    assert [s.seat for s in recall.settlement_order] == [2, 1] and recall.verified

    # The API is the serializer of that same object; the page draws it with the filters.
    body = api(auditor).get(reverse("api-auditor-hand", args=[hand.pk])).json()
    assert body == _json(HandRecallOutput(recall, context={"table_names": recall.table_names}).data)
    assert body["seats"][0]["ante"] == "1.00" and body["seats"][1]["decision"] == "fold"
    page = browser(auditor).get(reverse("staff-auditor-hand", args=[hand.pk])).content.decode()
    assert recall.seats[0].hand_name.capitalize() in page and "Folded" in page
    assert "nonce" not in page.lower()
    assert not any(f">{seat.category}<" in page for seat in recall.seats if seat.category)  # no machine names


def test_a_live_hand_recall_withholds_what_hand_view_withholds(table, make_player, auditor):
    ann, ben = make_player(50_000, "ann"), make_player(50_000, "ben")
    for p in (ann, ben):
        table_sit(user=p, table_id=table.pk)
    for p in (ann, ben):
        hand_bet(user=p, table_id=table.pk, ante=100, jackpot=False)
    hand = Hand.objects.get(table=table, state=Hand.State.DECISIONS)
    recall = hand_recall(hand_id=hand.pk)
    assert hand_view(hand=hand, viewer=None)["server_seed"] is None
    assert not recall.revealed and recall.server_seed is None and recall.dealer_cards is None and recall.steps == []
    assert all(seat.cards is None and seat.category is None for seat in recall.seats)
    assert recall.checks == [] and not recall.verified


def _json(data):
    """What the API's JSON renderer makes of serializer data (datetimes as ISO text)."""
    import json

    from rest_framework.utils.encoders import JSONEncoder

    return json.loads(json.dumps(data, cls=JSONEncoder))


def test_the_pages_say_the_games_numbers_from_their_one_home(monkeypatch, browser, make_player, table):
    """The raise multiple and the seat count in the pages' prose come from casino.game.rules
    (through the casino_tags tags): changed there, every sentence follows."""
    from casino.game.names import number_word, times_word
    from casino.templatetags import casino_tags

    assert (number_word(4), number_word(8), number_word(12), times_word(1), times_word(2), times_word(3)) == (
        "four",
        "eight",
        "12",
        "once",
        "twice",
        "three times",
    )
    assert render("{% raise_times %} {% raise_multiple %}× {% seats_in_words %}") == "twice 2× four"
    player = make_player()
    lobby = browser(player).get("/").content.decode()
    assert "a raise of twice the ante" in lobby and "raise twice the ante" in lobby
    assert "Raise 2× ante" in browser(player).get(f"/tables/{table.pk}/").content.decode()
    assert "four players against the dealer" in browser().get("/accounts/login/").content.decode()

    monkeypatch.setattr(casino_tags, "RAISE_MULTIPLE", 3)
    monkeypatch.setattr(casino_tags, "MAX_SEATS", 6)
    lobby = browser(player).get("/").content.decode()
    assert "a raise of three times the ante" in lobby and "twice" not in lobby
    assert "Raise 3× ante" in browser(player).get(f"/tables/{table.pk}/").content.decode()
    assert "six players against the dealer" in browser().get("/accounts/login/").content.decode()
