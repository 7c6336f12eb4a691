"""A separate process for test_killed.py: ``python -m tests.poker.killed_child <step> <table name>``.

``server``: the player to act posts the bring-in, then the other folds, and the process
hangs inside that step's settlement (to be killed with SIGKILL). ``worker``: the same,
but the next step is the time-out rule (SPEC B3) applied by the deadline sweeper (a Celery worker's or
the periodic loop's work). ``deal``: the two demo regulars seated there play as any two
players do (not waiting for company) and a hand is dealt. ``inspect``: print the table's
hand and money as JSON.
``resume``: finish the hand (the sweeper, or the fold) and reconcile.
"""

from __future__ import annotations

import json
import os
import sys
import time
from datetime import timedelta

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.utils import timezone  # noqa: E402

from casino.live.deadlines import sweep_deadlines  # noqa: E402
from poker import replay, services  # noqa: E402
from poker.models import PokerHand, PokerSeat, PokerTable  # noqa: E402
from wallets.models import Transaction  # noqa: E402


def live_hand(table):
    return PokerHand.objects.get(table=table, state="live")


def users_of(hand):
    from django.contrib.auth import get_user_model

    by_id = {u.pk: u for u in get_user_model().objects.filter(pk__in=[s["user_id"] for s in hand.seats])}
    return {s["seat"]: by_id[s["user_id"]] for s in hand.seats}


def act(hand, kind):
    state = replay.hand_state(hand)
    services.poker_act(user=users_of(hand)[state.to_act], table_id=hand.table_id, hand_id=hand.pk, action=kind)


def hang_in_settlement():
    real = services.ledger_post

    def hanging(**kwargs):
        if kwargs["kind"] == Transaction.Kind.POKER_HAND:
            print("POSTING", flush=True)
            time.sleep(600)
        return real(**kwargs)

    services.ledger_post = hanging


def main(step: str, name: str) -> None:
    table = PokerTable.objects.get(name=name)
    if step == "server":
        hand = live_hand(table)
        act(hand, "bring_in")
        hang_in_settlement()
        act(PokerHand.objects.get(pk=hand.pk), "fold")
    elif step == "worker":
        hand = live_hand(table)
        act(hand, "bring_in")
        PokerHand.objects.filter(pk=hand.pk).update(decision_deadline=timezone.now() - timedelta(seconds=1))
        hang_in_settlement()
        sweep_deadlines()
    elif step == "deal":
        PokerSeat.objects.filter(table=table).update(waits_for_company=False)
        services.poker_hand_start(table_id=table.pk)
    elif step == "inspect":
        hand = PokerHand.objects.filter(table=table).order_by("-number").first()
        print(
            json.dumps(
                {
                    "hand": hand.pk,
                    "state": hand.state,
                    "version": hand.version,
                    "rake": hand.rake,
                    "settlements": Transaction.objects.filter(
                        kind=Transaction.Kind.POKER_HAND, hand_ref=hand.pk
                    ).count(),
                    "stacks": sorted(PokerSeat.objects.filter(table=table).values_list("stack", flat=True)),
                }
            )
        )
    elif step == "resume-server":
        act(live_hand(table), "fold")
        call_command("reconcile_poker")
    elif step == "resume-worker":
        sweep_deadlines()
        call_command("reconcile_poker")
    else:
        raise SystemExit(f"unknown step {step}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
