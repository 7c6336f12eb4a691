"""What a person reads about a Caribbean hand: the one home of its words.

The labels of outcomes and decisions, a pay table as printed, the raise rule in words and
the lines that explain a settled seat's result are written here once. The pages render
them, ``selectors.hand_view`` puts them into what the API and the live table send, and
``static/js/table.js`` only draws them: it never re-derives a rule.

Everything here reads committed rows or plain data; nothing here writes. The words are
in the reader's language (``gettext`` at the time they are read; a hand's name through
``hand_name_in_language``, which asks ``casino.game.names`` for the active language).
"""

from __future__ import annotations

import functools

import orjson
from django.utils import translation
from django.utils.translation import get_language, gettext, gettext_lazy, gettext_noop

from casino.game.evaluator import Category
from casino.game.names import hand_name_from_codes
from casino.game.paytables import JackpotSchedule
from casino.money import money
from casino.templatetags.casino_tags import category_label  # the one way a category key is worded

DECISION_LABELS = {"raise": gettext_lazy("Raised"), "fold": gettext_lazy("Folded")}

OUTCOME_LABELS = {
    "win": gettext_lazy("Won"),
    "lose": gettext_lazy("Lost"),
    "push": gettext_lazy("Push"),
    "fold": gettext_lazy("Folded"),
    "dealer_not_qualified": gettext_lazy("Dealer did not qualify"),
    "cancelled": gettext_lazy("Cancelled"),
}

# SPEC A5 prints an unpaid raise as "push"; so does every pay table on a page.
NOT_PAID = gettext_lazy("push")

QUALIFIES = gettext_noop("qualified (ace-king or better).")
DOES_NOT_QUALIFY = gettext_noop("did not qualify (needs ace-king or better).")


def english(words) -> str:
    """A translatable text in English, whoever's request builds it (a frame every socket gets)."""
    with translation.override("en"):
        return str(words)


def in_sentence(label: str) -> str:
    """A hand's label inside a sentence: lower case in English ("a full house"); German
    keeps its nouns' capitals ("ein Full House")."""
    return str(label) if (get_language() or "en").startswith("de") else str(label).lower()


def hand_name_in_language(cards) -> str | None:
    """Five shown cards named as players say them in the active language ("pair of tens",
    "king high"); None without five shown cards."""
    if not cards or len(cards) != 5 or None in cards:
        return None
    return hand_name_from_codes(list(cards), language=get_language() or "en")


def spoken_name(cards, key: str | None = None) -> str:
    """Five shown cards named as players say them ("Pair of tens", "King high"), capitalised for
    a cell or a sentence's start; without five shown cards, the category's label."""
    name = hand_name_in_language(cards)
    if name:
        return name[0].upper() + name[1:]
    return category_label(key)


def paytable_rows(data: dict) -> list[dict]:
    """The raise pay table, best hand first: ``{"hand", "categories", "qualified", "not_qualified"}``."""
    rows = []
    qualified_odds = data.get("qualified", {})
    for category in sorted(Category, reverse=True):
        if category == Category.HIGH_CARD and qualified_odds.get("high_card") == qualified_odds.get("one_pair"):
            continue  # shown as "One pair or less"
        or_less = category == Category.ONE_PAIR and "high_card" in qualified_odds
        label = gettext("One pair or less") if or_less else category_label(category.key)
        qualified = qualified_odds.get(category.key)
        not_qualified = data.get("not_qualified", {}).get(category.key)
        rows.append(
            {
                "hand": label,
                "categories": "one_pair high_card" if or_less else category.key,
                "qualified": _odds(qualified) if qualified is not None else str(NOT_PAID),
                "not_qualified": _odds(not_qualified) if not_qualified is not None else str(NOT_PAID),
            }
        )
    return rows


def _odds(odds) -> str:
    return gettext("%(odds)s to 1") % {"odds": odds}


def _hand_name(category: Category) -> str:
    return in_sentence(category_label(category.key))


def raise_rules(data: dict) -> dict:
    """What the dealer's qualification means for the raise, in words, from a pay table's data.

    ``not_qualified``: the sentence for a dealer who does not qualify (which hands, if any,
    the raise pays then, and at what odds); ``qualified``: the range the raise pays when
    the player beats a qualified dealer. Never written by hand, so it cannot disagree
    with the table the hands are settled by.
    """
    paid = {Category.from_key(k): odds for k, odds in data.get("not_qualified", {}).items() if odds}
    if paid:
        lowest = min(paid)
        if lowest != max(Category):
            who = gettext("a %(hand)s or better") % {"hand": _hand_name(lowest)}
        else:
            who = gettext("a %(hand)s") % {"hand": _hand_name(lowest)}
        odds = ", ".join(f"{_hand_name(c)} {_odds(paid[c])}" for c in sorted(paid, reverse=True))
        not_qualified = gettext(
            "If not, your ante pays 1 to 1 and the raise is returned, except that %(who)s also wins on the raise: "
            "%(odds)s."
        ) % {"who": who, "odds": odds}
    else:
        not_qualified = gettext("If not, your ante pays 1 to 1 and the raise is returned.")
    qualified = {Category.from_key(k): odds for k, odds in data["qualified"].items()}
    bottom = min(qualified)
    low_name = _hand_name(bottom)
    if bottom == Category.HIGH_CARD and qualified.get(Category.ONE_PAIR) == qualified[bottom]:
        low_name = in_sentence(gettext("One pair or less"))
    top = max(qualified)
    return {
        "not_qualified": not_qualified,
        "qualified": gettext(
            "If so, the better hand wins: the ante pays 1 to 1 and the raise by the pay table, from "
            "%(low_odds)s to 1 for %(low)s up to %(top_odds)s to 1 for a %(top)s; a tie returns both."
        )
        % {"low_odds": qualified[bottom], "low": low_name, "top_odds": qualified[top], "top": _hand_name(top)},
    }


def jackpot_lowest_prize(jackpot_rules: dict | None) -> str:
    """The lowest hand a jackpot chip wins with, by the rules the hand's chips were placed
    under (``Hand.jackpot_rules``): ``"Flush"``; ``""`` when unknown."""
    key = _jackpot_lowest_key(jackpot_rules)
    return category_label(key) if key else ""


def _jackpot_lowest_key(jackpot_rules: dict | None) -> str | None:
    if not jackpot_rules:
        return None
    schedule = JackpotSchedule.from_dict(jackpot_rules["schedule"])
    categories = set(schedule.percent_prizes) | set(schedule.fixed_prizes)
    return min(categories).key if categories else None


def _name(cards, key: str | None) -> str:
    return in_sentence(spoken_name(cards, key))


def seat_explanation(hand, seat, *, you: bool) -> list[str]:
    """Why a settled seat won or lost, line by line, in plain words of the active language.

    ``hand`` is a ``Hand`` row and ``seat`` one of its ``HandSeat`` rows. ``you``: the words
    spoken to the seat's own player ("Your hand: …", "You folded …"); otherwise the words of
    a record ("Hand: …", "Folded …"), as the hand's page shows it. Nothing before the hand
    is over (an open hand explains nothing and reveals nothing).
    """
    return explanation_in_language(seat_explanation_parts(hand, seat, you=you))


def explanation_in_language(parts: list) -> list[str]:
    """The lines of ``seat_explanation_parts`` worded in the active language.

    A settled seat's lines are worded for each socket that shows them (every reader of the
    public event, and every player's own view of the hand): the same parts in the same
    language come out the same, so they are worded once and remembered by their text."""
    return list(_worded_lines(get_language() or "en", orjson.dumps(parts)))


@functools.lru_cache(maxsize=4096)
def _worded_lines(language: str, parts: bytes) -> tuple[str, ...]:
    """``parts`` (as JSON) worded in ``language``, which is the active language."""
    return tuple(
        gettext(msgid) % {name: _worded(value) for name, value in details.items()}
        for msgid, details in orjson.loads(parts)
    )


def _worded(value):
    """One detail of an explanation's line in the active language (see ``seat_explanation_parts``)."""
    if not isinstance(value, dict):
        return value
    if "cents" in value:
        return money(value["cents"], signed=value.get("signed", False))
    if "cards" in value:
        return _name(value["cards"], value.get("category"))
    if "category" in value:
        label = category_label(value["category"])
        return in_sentence(label) if value.get("in_sentence") else label
    return gettext(value["words"])


def seat_explanation_parts(hand, seat, *, you: bool) -> list[list]:
    """``seat_explanation`` before it is worded: one ``[msgid, details]`` a line, every detail
    plain data in no language (``{"cents": …}`` money, ``{"cards": …, "category": …}`` a
    hand's name, ``{"category": …}`` its label, ``{"words": msgid}`` a phrase, or a number).
    A public frame carries these, so each socket words them for its reader
    (``event_in_language``), whichever language the step that settled the hand ran in."""
    if hand.state == "cancelled":
        if you:
            return [[gettext_noop("The hand was cancelled: every stake went back to your wallet."), {}]]
        return [[gettext_noop("The hand was cancelled: every stake went back to the wallet."), {}]]
    if hand.state != "settled" or not seat.cards:
        return []
    mine = {"cards": list(seat.cards), "category": seat.category}
    theirs = {"cards": list(hand.dealer_cards), "category": hand.dealer_category}
    ante, raised = seat.ante, seat.raise_amount
    dealer = {
        "mine": mine,
        "theirs": theirs,
        "qualified": {"words": QUALIFIES if hand.dealer_qualified else DOES_NOT_QUALIFY},
    }
    lines = [
        [
            gettext_noop("Your hand: %(mine)s. Dealer: %(theirs)s, %(qualified)s")
            if you
            else gettext_noop("Hand: %(mine)s. Dealer: %(theirs)s, %(qualified)s"),
            dealer,
        ]
    ]
    outcome = seat.outcome
    amounts = {"ante": {"cents": ante}, "raise": {"cents": raised}}
    if outcome == "fold":
        if seat.decided_by_timeout:
            line = (
                gettext_noop("You folded (time ran out): the ante %(ante)s is lost.")
                if you
                else gettext_noop("Folded (time ran out): the ante %(ante)s is lost.")
            )
        else:
            line = (
                gettext_noop("You folded: the ante %(ante)s is lost.")
                if you
                else gettext_noop("Folded: the ante %(ante)s is lost.")
            )
        lines.append([line, amounts])
    elif outcome == "lose":
        line = (
            gettext_noop("The dealer's %(theirs)s beats your %(mine)s: ante %(ante)s and raise %(raise)s lost.")
            if you
            else gettext_noop("The dealer's %(theirs)s beats the %(mine)s: ante %(ante)s and raise %(raise)s lost.")
        )
        lines.append([line, {**amounts, "theirs": theirs, "mine": mine}])
    elif outcome == "push":
        lines.append([gettext_noop("A tie with the dealer: ante %(ante)s and raise %(raise)s returned."), amounts])
    elif outcome in ("win", "dealer_not_qualified"):
        if outcome == "win":
            line = (
                gettext_noop("You beat the dealer: ante %(ante)s pays 1 to 1 (+%(ante)s).")
                if you
                else gettext_noop("Beats the dealer: Ante %(ante)s pays 1 to 1 (+%(ante)s).")
            )
        else:
            line = gettext_noop("Ante %(ante)s pays 1 to 1 (+%(ante)s).")
        lines.append([line, amounts])
        if seat.paytable_line:
            column, _, key = seat.paytable_line.partition(":")
            odds = hand.paytable_data.get(column, {}).get(key)
            line = (
                gettext_noop("Raise %(raise)s: %(hand)s pays %(odds)s to 1 (dealer qualified) (+%(won)s).")
                if column == "qualified"
                else gettext_noop("Raise %(raise)s: %(hand)s pays %(odds)s to 1 (dealer not qualified) (+%(won)s).")
            )
            won = {"cents": seat.raise_return - raised}
            lines.append([line, {**amounts, "hand": {"category": key}, "odds": odds, "won": won}])
        else:
            lines.append([gettext_noop("Raise %(raise)s returned (push: the dealer did not qualify)."), amounts])
    if seat.jackpot_bet:
        chip = {"chip": {"cents": seat.jackpot_bet}, "mine": mine}
        if seat.jackpot_win:
            won = {**chip, "won": {"cents": seat.jackpot_win}}
            lines.append([gettext_noop("Jackpot chip %(chip)s wins %(won)s (%(mine)s)."), won])
        else:
            lowest = _jackpot_lowest_key(hand.jackpot_rules)
            if lowest:
                lines.append(
                    [
                        gettext_noop("Jackpot chip %(chip)s: no prize (%(lowest)s or better wins)."),
                        {**chip, "lowest": {"category": lowest, "in_sentence": True}},
                    ]
                )
            else:
                lines.append([gettext_noop("Jackpot chip %(chip)s: no prize."), chip])
    if seat.net is not None:
        lines.append([gettext_noop("Net: %(net)s."), {"net": {"cents": seat.net, "signed": True}}])
    return lines


def seat_words(hand, seat, *, you: bool, worded: bool = True) -> dict:
    """The words of one seat that travel with its data (API, live table): its labels and,
    once the hand is over, its explanation (``worded``: in the active language; else
    ``explanation_parts``, for a frame each socket words for its own reader)."""
    words = {
        "decision_label": str(DECISION_LABELS[seat.decision]) if seat.decision in DECISION_LABELS else None,
        "outcome_label": str(OUTCOME_LABELS[seat.outcome]) if seat.outcome in OUTCOME_LABELS else None,
    }
    if worded:
        words["explanation"] = seat_explanation(hand, seat, you=you) if hand.is_over else []
    else:
        words["explanation_parts"] = seat_explanation_parts(hand, seat, you=you)
    return words


def hand_view_in_language(hand: dict | None) -> dict | None:
    """A hand view of ``tables.selectors`` (its hand names and category labels written in
    English) with those words in the active language: the live table draws what it is sent."""
    if not hand or (get_language() or "en").startswith("en"):
        return hand
    for part in [*hand.get("seats", ()), hand.get("dealer") or {}]:
        if part.get("hand_name") and (name := hand_name_in_language(part.get("cards"))):
            part["hand_name"] = name
        if part.get("category_label") and part.get("category"):
            part["category_label"] = category_label(part["category"])
    return hand


def event_in_language(event: dict) -> dict | None:
    """A public event of the table with its words in the reader's language (a copy): a
    decision's label, a settled hand's names, labels and explanation lines (the step wrote
    them once, for every socket of the table, its lines as ``seat_explanation_parts``);
    None for an event without words."""
    kind = event.get("kind")
    english = (get_language() or "en").startswith("en")
    if kind == "decision.made" and event.get("decision") in DECISION_LABELS and not english:
        return {**event, "decision_label": str(DECISION_LABELS[event["decision"]])}
    if kind in ("hand.settled", "hand.cancelled") and event.get("result"):
        return {**event, "result": hand_in_language(event["result"])}
    return None


def hand_in_language(hand: dict) -> dict:
    """A hand view built in no language (``selectors.hand_view(worded=False)``: a settled
    hand's event, a step's private views) as a copy with its words in the active language:
    each seat's explanation lines and labels, the hands' names. The copy is new down to
    what it rewords (the hand, its seats, the dealer); the rest it shares with ``hand``."""
    decisions, outcomes = _labels(get_language() or "en")
    hand = dict(hand)
    if hand.get("seats") is not None:
        hand["seats"] = [dict(seat) for seat in hand["seats"]]
    if hand.get("dealer") is not None:
        hand["dealer"] = dict(hand["dealer"])
    for seat in hand.get("seats") or ():
        if "explanation_parts" in seat:
            seat["explanation"] = explanation_in_language(seat.pop("explanation_parts"))
        if seat.get("decision") in decisions:
            seat["decision_label"] = decisions[seat["decision"]]
        if seat.get("outcome") in outcomes:
            seat["outcome_label"] = outcomes[seat["outcome"]]
    return hand_view_in_language(hand)


@functools.lru_cache(maxsize=8)
def _labels(language: str) -> tuple[dict[str, str], dict[str, str]]:
    """The decisions' and outcomes' labels in ``language``, which is the active language
    (a settled hand's view labels every seat, for every socket that shows it)."""
    return (
        {key: str(label) for key, label in DECISION_LABELS.items()},
        {key: str(label) for key, label in OUTCOME_LABELS.items()},
    )
