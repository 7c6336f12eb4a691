"""The demo's regulars play (``make run`` only): a newcomer alone finds company that acts.

Under ``make run`` the demo regulars seated by ``load_demo_poker`` (the seats marked
``waits_for_company``) are played by the stud engine's bots (``casino.stud.bots``): when it
is such a seat's turn, the bot acts after a human pause (``THINK_SECONDS``, well inside
the time to act), through ``poker_act`` like any player; between hands a regular's stack
below the buy-in is topped up (and, when its wallet runs short, the demo's cashier pays
in), so that the regulars never run out of chips.

Off unless ``POKER_DEMO_BOTS`` (on with ``DEBUG`` only; production settings refuse it),
and run by the periodic work of the server process (``casino.live.periodic``), which
``make run`` runs; Celery beat never runs it.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from casino.http.errors import ApplicationError
from casino.stud.bots import aggressive, calling_station
from poker import replay
from poker.models import PokerHand, PokerSeat
from poker.services import poker_act, poker_sit_in, poker_top_up
from wallets.selectors import wallet_balances
from wallets.services import cashier_deposit

log = logging.getLogger(__name__)

THINK_SECONDS = (1.5, 4.0)  # a bot's pause before it acts, drawn per turn
AGGRESSION = 0.2  # how often a bot bets or raises when it may (else it checks or calls)
REFILL_CENTS = 20_000  # what the demo's cashier pays into a regular's wallet that ran short
DEMO_CASHIER = "cashier"


def bots_enabled() -> bool:
    return bool(getattr(settings, "POKER_DEMO_BOTS", False))


def bot_names(*, table_id: int) -> list[str]:
    """The players at this table whom the demo's bot plays (none unless it is on)."""
    if not bots_enabled():
        return []
    return list(
        PokerSeat.objects.filter(table_id=table_id, waits_for_company=True).values_list("player__username", flat=True)
    )


def _rng(hand: PokerHand) -> random.Random:
    return random.Random(f"demo-bot:{hand.pk}:{hand.version}")


def think_time(hand: PokerHand) -> timedelta:
    return timedelta(seconds=_rng(hand).uniform(*THINK_SECONDS))


def _choose(hand: PokerHand):
    rng = _rng(hand)
    rng.random()  # the think time's draw
    state = replay.hand_state(hand)
    strategy = aggressive if rng.random() < AGGRESSION else calling_station
    return strategy(state, rng)


def _act_where_due(now: datetime) -> int:
    acted = 0
    regulars = PokerSeat.objects.filter(waits_for_company=True)
    tables = set(regulars.values_list("table_id", flat=True))
    if not tables:
        return 0
    for hand in PokerHand.objects.filter(table_id__in=tables, state=PokerHand.State.LIVE).exclude(to_act=None):
        seat = regulars.filter(table_id=hand.table_id, number=hand.to_act).select_related("player").first()
        dealt = next((s for s in hand.seats if s["seat"] == hand.to_act), None)
        if seat is None or dealt is None or dealt["user_id"] != seat.player_id:
            continue
        if hand.turn_started_at is None or now < hand.turn_started_at + think_time(hand):
            continue
        action = _choose(hand)
        try:
            poker_act(user=seat.player, table_id=hand.table_id, hand_id=hand.pk, action=action.kind, amount=action.to)
            acted += 1
        except ApplicationError as exc:  # the hand moved on meanwhile (a time-out, another step): next round
            log.info("demo bot %s did not act in hand %s: %s", seat.player, hand.pk, exc.code)
    return acted


def _refill() -> None:
    """Between hands, every regular sat in with its stack back at the buy-in (its wallet
    refilled first if short)."""
    live = {h.table_id: h for h in PokerHand.objects.filter(state=PokerHand.State.LIVE)}
    cashier = get_user_model().objects.filter(username=DEMO_CASHIER).first()
    for seat in PokerSeat.objects.filter(waits_for_company=True).select_related("player", "table"):
        hand = live.get(seat.table_id)
        if hand is not None and any(s["user_id"] == seat.player_id for s in hand.seats):
            continue
        needed = replay.table_config(seat.table).buy_in - seat.stack
        try:
            if not seat.auto_ante:  # timed out once (a busy machine): back in
                poker_sit_in(user=seat.player, table_id=seat.table_id)
            if needed <= 0:
                continue
            if wallet_balances(user=seat.player).available < needed and cashier is not None:
                cashier_deposit(
                    cashier=cashier,
                    player=seat.player,
                    amount=max(REFILL_CENTS, needed),
                    idempotency_key=f"demo-bot-{seat.pk}-{seat.table.next_nonce}",
                    memo="Demo regular's refill",
                )
            poker_top_up(user=seat.player, table_id=seat.table_id)
        except ApplicationError as exc:
            log.info("demo regular %s was not topped up at %s: %s", seat.player, seat.table, exc.code)


def demo_bots_step(now: datetime | None = None) -> int:
    """One round of the demo's bots: every regular whose turn has lasted its think time acts;
    regulars between hands are topped up. Returns how many acted."""
    if not bots_enabled():
        return 0
    now = now or timezone.now()
    acted = _act_where_due(now)
    _refill()
    return acted
