"""A pool's rules change from each table's next hand (SPEC A6).

A manager may change the chip, the split and the prize schedule while jackpot chips are
in play: the change is accepted at once, every hand holding chips is contributed and paid
by the rules it opened under (its copy in ``Hand.jackpot_rules``), and each table plays
the new rules from its next hand. The seed is the pool's present state: a new seed
applies to the next reset. The audit entry names the hands still on the previous rules.
"""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model

from casino.models import AuditEntry
from jackpot import services as jackpot_services
from jackpot.models import JackpotHit, JackpotPool
from jackpot.selectors import ledger_total
from tables.models import Hand
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.conftest import require_postgres, run_together
from wallets.models import Account, Transaction

ANTE = 100
FOUR_ACES = "Ac Ad Ah As 2c"
FLUSH = "2h 5h 7h 9h Jh"
DEALER_NOT_QUALIFIED = "3c 4d 6s 8s Tc"

OLD = {"meter_share_bp": 7000, "reserve_share_bp": 1000}  # the pool fixture's split
NEW_SCHEDULE = {
    "percent_prizes": {"royal_flush": 50},
    "fixed_prizes": {
        "straight_flush": 100_000,
        "four_of_a_kind": 40_000,
        "full_house": 3_000,
        "flush": 2_000,
        "straight": 500,
        "three_of_a_kind": 300,
    },
}
NEW_RULES = {  # as the manager's API takes them: amounts as text
    "bet_amount": "1.00",
    "meter_share_bp": 5000,
    "reserve_share_bp": 2000,
    "schedule": {
        "percent_prizes": NEW_SCHEDULE["percent_prizes"],
        "fixed_prizes": {
            key: f"{cents // 100}.{cents % 100:02d}" for key, cents in NEW_SCHEDULE["fixed_prizes"].items()
        },
    },
}


def live_hand(table) -> Hand:
    return table.hands.live().get()


def contribution_legs(hand_id: int, pool) -> dict[str, int]:
    """What the hand's contribution put on the meter, the reserve and the house, in cents."""
    txn = Transaction.objects.get(idempotency_key=f"hand:{hand_id}:jackpot_contribution")
    legs = {leg.account_id: leg for leg in txn.legs.all()}
    house = Hand.objects.get(pk=hand_id).table.house_account_id
    return {
        name: legs[account_id].amount
        for name, account_id in (
            ("meter", pool.meter_account_id),
            ("reserve", pool.reserve_account_id),
            ("house", house),
        )
    }


def prizes(hand_id: int) -> dict[int, int]:
    """Jackpot prize per seat, from the prize transactions' wallet legs."""
    hits = JackpotHit.objects.filter(hand_ref=hand_id).select_related("prize_transaction")
    paid = {}
    for hit in hits:
        wallet = Account.objects.get(owner_id=hit.player_id, kind=Account.Kind.PLAYER_WALLET)
        paid[hit.seat_number] = hit.prize_transaction.legs.get(account=wallet).amount
    return paid


@pytest.fixture
def players(table, make_player):
    alice, bob = make_player(200_000, "alice"), make_player(200_000, "bob")
    table_sit(user=alice, table_id=table.pk, seat_number=1)
    table_sit(user=bob, table_id=table.pk, seat_number=2)
    return alice, bob


@pytest.mark.django_db
def test_a_change_under_jackpot_chips_is_accepted_and_reaches_the_next_hand_only(
    api, manager, table, pool, players, rig_deck
):
    alice, bob = players
    rig_deck([FOUR_ACES, FLUSH], DEALER_NOT_QUALIFIED)
    hand_bet(user=alice, table_id=table.pk, ante=ANTE, jackpot=True)
    first = live_hand(table)

    response = api(manager).patch(f"/api/manager/pools/{pool.pk}/", NEW_RULES, format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["rules_apply_from"] == "next_hand"
    assert body["hands_on_previous_rules"] == [{"hand": first.pk, "table": table.pk, "table_name": "Nassau"}]
    assert (body["meter_share_bp"], body["bet_amount"]) == (5000, "1.00")
    entry = AuditEntry.objects.get(action="pool.update")
    assert entry.actor == manager
    assert (entry.before["meter_share_bp"], entry.after["meter_share_bp"]) == (7000, 5000)
    assert entry.before["schedule"]["fixed_prizes"]["four_of_a_kind"] == 25_000
    assert entry.after["schedule"] == NEW_SCHEDULE
    assert entry.after["hands_on_previous_rules"] == [{"hand": first.pk, "table": table.pk, "table_name": "Nassau"}]

    # The first hand keeps its chip (€0.50, not €1), its split (70/10) and its prizes.
    assert hand_bet(user=bob, table_id=table.pk, ante=ANTE, jackpot=True).jackpot_bet == 50  # deals
    assert contribution_legs(first.pk, pool) == {"meter": 70, "reserve": 10, "house": 20}
    for player in players:
        hand_decide(user=player, hand_id=first.pk, action="fold")
    assert prizes(first.pk) == {1: 25_000, 2: 1_500}  # four of a kind and flush, old schedule

    # The next hand plays the new rules: €1 chips, 50/20, the new prizes.
    second = live_hand(table)
    assert second.jackpot_bet_amount == 100
    assert second.jackpot_rules == {"meter_share_bp": 5000, "reserve_share_bp": 2000, "schedule": NEW_SCHEDULE}
    assert api(manager).get(f"/api/manager/pools/{pool.pk}/").json()["hands_on_previous_rules"] == []
    assert hand_bet(user=alice, table_id=table.pk, ante=ANTE, jackpot=True).jackpot_bet == 100
    hand_bet(user=bob, table_id=table.pk, ante=ANTE, jackpot=True)  # deals
    assert contribution_legs(second.pk, pool) == {"meter": 100, "reserve": 40, "house": 60}
    for player in players:
        hand_decide(user=player, hand_id=second.pk, action="fold")
    assert prizes(second.pk) == {1: 40_000, 2: 2_000}
    assert ledger_total() == 0


@pytest.mark.django_db
def test_a_hand_taking_bets_without_a_jackpot_chip_takes_the_new_split_at_once(api, manager, table, pool, players):
    alice, bob = players
    hand_bet(user=alice, table_id=table.pk, ante=ANTE, jackpot=False)
    hand = live_hand(table)
    response = api(manager).patch(f"/api/manager/pools/{pool.pk}/", NEW_RULES, format="json")
    assert response.status_code == 200 and response.json()["hands_on_previous_rules"] == []
    assert AuditEntry.objects.get(action="pool.update").after["hands_on_previous_rules"] == []
    assert hand_bet(user=bob, table_id=table.pk, ante=ANTE, jackpot=True).jackpot_bet == 100  # deals
    assert contribution_legs(hand.pk, pool) == {"meter": 50, "reserve": 20, "house": 30}


@pytest.mark.django_db
def test_a_new_seed_under_jackpot_chips_applies_to_the_next_reset(api, manager, table, pool, players, rig_deck):
    alice, bob = players
    rig_deck(["Ah Kh Qh Jh Th", "2d 5d 7d 9d Jd"], DEALER_NOT_QUALIFIED)
    hand_bet(user=alice, table_id=table.pk, ante=ANTE, jackpot=True)
    hand = live_hand(table)
    response = api(manager).patch(f"/api/manager/pools/{pool.pk}/", {"seed_amount": "5000.00"}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["hands_on_previous_rules"] == []  # the seed is the pool's, not the hand's
    hand_bet(user=bob, table_id=table.pk, ante=ANTE, jackpot=True)
    for player in players:
        hand_decide(user=player, hand_id=hand.pk, action="fold")
    hit = JackpotHit.objects.get(hand_ref=hand.pk, category="royal_flush")
    assert hit.amount == 1_000_000 + 70  # the whole meter: the seed it had plus the hand's share
    assert hit.meter_after == 500_000  # reset to the new seed


# --- PostgreSQL: a rule change racing a deal and a settlement --------------------------

SPLITS = {  # chip and split; what two chips give the meter, the reserve and the house
    "A": (
        {"bet_amount": 50, "meter_share_bp": 7000, "reserve_share_bp": 1000},
        {"meter": 70, "reserve": 10, "house": 20},
    ),
    "B": (
        {"bet_amount": 70, "meter_share_bp": 4000, "reserve_share_bp": 3000},
        {"meter": 56, "reserve": 42, "house": 42},
    ),
}
SCHEDULES = {  # prize schedule; what four aces (seat 1) and a flush (seat 2) win
    "A": (
        {
            "percent_prizes": {"royal_flush": 100},
            "fixed_prizes": {"straight_flush": 125_000, "four_of_a_kind": 25_000, "full_house": 2_500, "flush": 1_500},
        },
        {1: 25_000, 2: 1_500},
    ),
    "B": (
        {
            "percent_prizes": {"royal_flush": 100},
            "fixed_prizes": {"straight_flush": 125_000, "four_of_a_kind": 60_000, "full_house": 5_000, "flush": 4_000},
        },
        {1: 60_000, 2: 4_000},
    ),
}
OTHER = {"A": "B", "B": "A"}


def _which(table: dict, value) -> str:
    return next(
        key
        for key, (rules, _) in table.items()
        if all(value.get(k) == v for k, v in rules.items() if k != "bet_amount")
    )


def head_start(round_: int, play, change):
    """Both calls at once; in some rounds one of them a moment late, so that each order
    (the hand's step first, the change first) takes the table's lock in some round."""

    def late(call):
        def run():
            time.sleep(0.3)
            return call()

        return run

    return [(late(play), change), (play, late(change)), (play, change)][round_ % 3]


@pytest.mark.django_db(transaction=True)
def test_a_rule_change_racing_a_deal_and_a_settlement_never_mixes_rules(manager, table, pool, players, rig_deck):
    """Each round, a change of chip and split races the deal (which takes the contribution)
    and a change of the schedule races the settlement (which pays the prizes), in both
    orders. Whichever commits first, the hand is taken and paid by the rules it opened under,
    to the cent, and the next hand opens on the rules as they stand after both."""
    require_postgres()
    alice, bob = players
    rig_deck([FOUR_ACES, FLUSH], DEALER_NOT_QUALIFIED)

    def fresh(user):
        return get_user_model().objects.get(pk=user.pk)

    def change(rules):
        return lambda: jackpot_services.pool_update(actor=fresh(manager), pool_id=pool.pk, changes=rules)

    jackpot_services.pool_update(actor=manager, pool_id=pool.pk, changes={"schedule": SCHEDULES["A"][0]})
    played, orders = [], set()
    for round_ in range(6):
        hand = live_hand(table)
        present = JackpotPool.objects.get(pk=pool.pk)
        # Every hand opens on (or, with no chip yet, takes) the pool's rules as they stand.
        assert hand.jackpot_rules == jackpot_services.PoolRules.of_pool(present).to_dict()
        assert hand.jackpot_bet_amount == present.bet_amount
        split, schedule = _which(SPLITS, hand.jackpot_rules), _which(SCHEDULES, hand.jackpot_rules["schedule"])
        hand_bet(user=fresh(alice), table_id=table.pk, ante=ANTE, jackpot=True)
        deal = lambda: hand_bet(user=fresh(bob), table_id=table.pk, ante=ANTE, jackpot=True)  # noqa: E731
        _, errors = run_together(*head_start(round_, deal, change(SPLITS[OTHER[split]][0])))
        assert errors == [None, None], errors
        hand_decide(user=fresh(alice), hand_id=hand.pk, action="fold")
        settle = lambda: hand_decide(user=fresh(bob), hand_id=hand.pk, action="fold")  # noqa: E731
        _, errors = run_together(*head_start(round_, settle, change({"schedule": SCHEDULES[OTHER[schedule]][0]})))
        assert errors == [None, None], errors
        played.append((hand.pk, split, schedule))
        deal_change, settle_change = AuditEntry.objects.filter(action="pool.update").order_by("-pk")[:2][::-1]
        hand.refresh_from_db()
        orders.add(("deal", hand.dealt_at < deal_change.at))  # which took the table's lock first
        orders.add(("settle", hand.settled_at < settle_change.at))

    for hand_id, split, schedule in played:
        hand = Hand.objects.get(pk=hand_id)
        assert hand.state == Hand.State.SETTLED
        assert (_which(SPLITS, hand.jackpot_rules), _which(SCHEDULES, hand.jackpot_rules["schedule"])) == (
            split,
            schedule,
        )
        chip = 50 if split == "A" else 70
        assert sorted(hand.hand_seats.values_list("jackpot_bet", flat=True)) == [chip, chip]
        assert contribution_legs(hand_id, pool) == SPLITS[split][1], hand_id
        assert prizes(hand_id) == SCHEDULES[schedule][1], hand_id
    assert {split for _, split, _ in played} == {"A", "B"}
    # Both orders happened, for the deal and for the settlement.
    assert orders == {("deal", True), ("deal", False), ("settle", True), ("settle", False)}
    assert AuditEntry.objects.filter(action="pool.update").count() == 1 + 2 * len(played)
    assert ledger_total() == 0
