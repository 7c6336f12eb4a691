"""What a person reads about a Caribbean hand: the one home of its words.

The labels of outcomes and decisions, a pay table as printed, the raise rule in words and
the lines that explain a settled seat's result are written here once. The pages render
them, ``selectors.hand_view`` puts them into what the API and the live table send, and
``static/js/table.js`` only draws them: it never re-derives a rule.

Everything here reads committed rows or plain data; nothing here writes.
"""

from __future__ import annotations

from casino.game.evaluator import Category
from casino.game.names import hand_name_from_codes
from casino.game.paytables import JackpotSchedule
from casino.money import money
from casino.templatetags.casino_tags import category_label  # the one way a category key is worded

DECISION_LABELS = {"raise": "Raised", "fold": "Folded"}

OUTCOME_LABELS = {
    "win": "Won",
    "lose": "Lost",
    "push": "Push",
    "fold": "Folded",
    "dealer_not_qualified": "Dealer did not qualify",
    "cancelled": "Cancelled",
}

# SPEC A5 prints an unpaid raise as "push"; so does every pay table on a page.
NOT_PAID = "push"

QUALIFIES = "qualified (ace-king or better)."
DOES_NOT_QUALIFY = "did not qualify (needs ace-king or better)."


def spoken_name(cards, key: str | None = None) -> str:
    """Five shown cards named as players say them ("Pair of tens", "King high"), capitalised for
    a cell or a sentence's start; without five shown cards, the category's label."""
    if cards and len(cards) == 5 and None not in cards:
        name = hand_name_from_codes(list(cards))
        return name[0].upper() + name[1:]
    return category_label(key)


def paytable_rows(data: dict) -> list[dict]:
    """The raise pay table, best hand first: ``{"hand", "categories", "qualified", "not_qualified"}``."""
    rows = []
    qualified_odds = data.get("qualified", {})
    for category in sorted(Category, reverse=True):
        if category == Category.HIGH_CARD and qualified_odds.get("high_card") == qualified_odds.get("one_pair"):
            continue  # shown as "One pair or less"
        label = "One pair or less" if category == Category.ONE_PAIR and "high_card" in qualified_odds else category.label
        qualified = qualified_odds.get(category.key)
        not_qualified = data.get("not_qualified", {}).get(category.key)
        rows.append(
            {
                "hand": label,
                "categories": "one_pair high_card" if label == "One pair or less" else category.key,
                "qualified": f"{qualified} to 1" if qualified is not None else NOT_PAID,
                "not_qualified": f"{not_qualified} to 1" if not_qualified is not None else NOT_PAID,
            }
        )
    return rows


def _hand_name(category: Category) -> str:
    return category.label.lower()


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
        who = f"a {_hand_name(lowest)}" + (" or better" if lowest != max(Category) else "")
        odds = ", ".join(f"{_hand_name(c)} {paid[c]} to 1" for c in sorted(paid, reverse=True))
        not_qualified = (
            f"If not, your ante pays 1 to 1 and the raise is returned, except that {who} "
            f"also wins on the raise: {odds}."
        )
    else:
        not_qualified = "If not, your ante pays 1 to 1 and the raise is returned."
    qualified = {Category.from_key(k): odds for k, odds in data["qualified"].items()}
    bottom = min(qualified)
    low_name = _hand_name(bottom)
    if bottom == Category.HIGH_CARD and qualified.get(Category.ONE_PAIR) == qualified[bottom]:
        low_name = "one pair or less"
    top = max(qualified)
    return {
        "not_qualified": not_qualified,
        "qualified": (
            f"If so, the better hand wins: the ante pays 1 to 1 and the raise by the pay table, from "
            f"{qualified[bottom]} to 1 for {low_name} up to {qualified[top]} to 1 for a {_hand_name(top)}; "
            "a tie returns both."
        ),
    }


def jackpot_lowest_prize(jackpot_rules: dict | None) -> str:
    """The lowest hand a jackpot chip wins with, by the rules the hand's chips were placed
    under (``Hand.jackpot_rules``): ``"Flush"``; ``""`` when unknown."""
    if not jackpot_rules:
        return ""
    schedule = JackpotSchedule.from_dict(jackpot_rules["schedule"])
    categories = set(schedule.percent_prizes) | set(schedule.fixed_prizes)
    return min(categories).label if categories else ""


def _name(cards, key: str | None) -> str:
    return spoken_name(cards, key).lower()


def seat_explanation(hand, seat, *, you: bool) -> list[str]:
    """Why a settled seat won or lost, line by line, in plain words.

    ``hand`` is a ``Hand`` row and ``seat`` one of its ``HandSeat`` rows. ``you``: the words
    spoken to the seat's own player ("Your hand: …", "You folded …"); otherwise the words of
    a record ("Hand: …", "Folded …"), as the hand's page shows it. Nothing before the hand
    is over (an open hand explains nothing and reveals nothing).
    """
    if hand.state == "cancelled":
        return [f"The hand was cancelled: every stake went back to {'your' if you else 'the'} wallet."]
    if hand.state != "settled" or not seat.cards:
        return []
    mine = _name(list(seat.cards), seat.category)
    theirs = _name(list(hand.dealer_cards), hand.dealer_category)
    ante, raised = seat.ante, seat.raise_amount
    lines = [
        f"{'Your hand' if you else 'Hand'}: {mine}. Dealer: {theirs}, "
        + (QUALIFIES if hand.dealer_qualified else DOES_NOT_QUALIFY)
    ]
    outcome = seat.outcome
    if outcome == "fold":
        lines.append(
            f"{'You folded' if you else 'Folded'}{' (time ran out)' if seat.decided_by_timeout else ''}: "
            f"the ante {money(ante)} is lost."
        )
    elif outcome == "lose":
        lines.append(
            f"The dealer's {theirs} beats {'your' if you else 'the'} {mine}: "
            f"ante {money(ante)} and raise {money(raised)} lost."
        )
    elif outcome == "push":
        lines.append(f"A tie with the dealer: ante {money(ante)} and raise {money(raised)} returned.")
    elif outcome in ("win", "dealer_not_qualified"):
        if outcome == "win":
            lines.append(f"{'You beat the dealer: ante' if you else 'Beats the dealer: Ante'} {money(ante)} pays 1 to 1 (+{money(ante)}).")
        else:
            lines.append(f"Ante {money(ante)} pays 1 to 1 (+{money(ante)}).")
        if seat.paytable_line:
            column, _, key = seat.paytable_line.partition(":")
            odds = hand.paytable_data.get(column, {}).get(key)
            qualified_text = "dealer qualified" if column == "qualified" else "dealer not qualified"
            lines.append(
                f"Raise {money(raised)}: {category_label(key)} pays {odds} to 1 ({qualified_text}) "
                f"(+{money(seat.raise_return - raised)})."
            )
        else:
            lines.append(f"Raise {money(raised)} returned (push: the dealer did not qualify).")
    if seat.jackpot_bet:
        if seat.jackpot_win:
            lines.append(f"Jackpot chip {money(seat.jackpot_bet)} wins {money(seat.jackpot_win)} ({mine}).")
        else:
            lowest = jackpot_lowest_prize(hand.jackpot_rules)
            needed = f" ({lowest.lower()} or better wins)" if lowest else ""
            lines.append(f"Jackpot chip {money(seat.jackpot_bet)}: no prize{needed}.")
    if seat.net is not None:
        lines.append(f"Net: {money(seat.net, signed=True)}.")
    return lines


def seat_words(hand, seat, *, you: bool) -> dict:
    """The words of one seat that travel with its data (API, live table): its labels and,
    once the hand is over, its explanation."""
    return {
        "decision_label": DECISION_LABELS.get(seat.decision or "") or None,
        "outcome_label": OUTCOME_LABELS.get(seat.outcome or "") or None,
        "explanation": seat_explanation(hand, seat, you=you) if hand.is_over else [],
    }
