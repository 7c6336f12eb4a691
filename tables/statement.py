"""A hand's lines on a player's statement, in the player's words (``wallets.statement``).

A bet without the jackpot chip is "Ante placed, raise held" (not "Ante and jackpot bet
placed"); a settlement's "Seat 1: dealer_not_qualified" reads "Seat 1: dealer did not qualify".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.utils.translation import gettext

from tables.models import HandSeat
from tables.presentation import OUTCOME_LABELS, in_sentence
from wallets.models import Transaction
from wallets.statement import kind_label

_SEAT_OUTCOME = re.compile(r"^Seat (\d+): ([a-z_]+)$")


def hand_statement_words(transactions: Sequence[Transaction], user) -> dict[int, tuple[str, str]]:
    bet_hands = {t.hand_ref for t in transactions if t.kind == Transaction.Kind.BET and t.hand_ref}
    chips = (
        dict(HandSeat.objects.filter(player=user, hand_id__in=bet_hands).values_list("hand_id", "jackpot_bet"))
        if bet_hands
        else {}
    )
    words = {}
    for txn in transactions:
        what, memo = kind_label(txn.kind), txn.memo
        if txn.kind == Transaction.Kind.BET:
            what = (
                gettext("Ante and jackpot chip placed, raise held")
                if chips.get(txn.hand_ref)
                else gettext("Ante placed, raise held")
            )
        match = _SEAT_OUTCOME.match(memo or "")
        if match and match.group(2) in OUTCOME_LABELS:
            memo = gettext("Seat %(seat)s: %(outcome)s") % {
                "seat": match.group(1),
                "outcome": in_sentence(OUTCOME_LABELS[match.group(2)]),
            }
        if (what, memo) != (kind_label(txn.kind), txn.memo):
            words[txn.pk] = (what, memo)
    return words
