"""The dealer workflow: sit, leave, bet, deal, decide, settle, cancel.

Each step is one database transaction that locks the hand (or the table) first, checks
the state, changes it and posts its money through ``wallets`` and ``jackpot`` services.
A step that is not legal in the current state is refused with a stable error code and
changes nothing. Events for the live tables are sent after commit (``tables.events``).
"""

from __future__ import annotations

import re
from datetime import timedelta

from django.db import transaction as db_transaction
from django.utils import timezone

from casino.errors import Conflict, NotFound, ValidationError
from casino.game import fair
from casino.game.evaluator import Category, category_of, dealer_qualifies, evaluate
from casino.game.paytables import PayTable as CorePayTable
from casino.game.rules import deal, settle_seat
from casino.game.cards import cards_to_str
from casino.money import format_cents
from jackpot.models import JackpotPool
from jackpot.services import jackpot_award, jackpot_contribute
from tables import events
from tables.models import MAX_SEATS, Hand, HandSeat, PayTable, Seat, Table
from wallets.locks import accounts_lock
from wallets.models import Account, LimitTier, Transaction
from wallets.services import account_get_or_create, ledger_post, player_accounts_ensure, transaction_reverse

DECISION_SECONDS = 20
CLIENT_SEED_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


# --- configuration ----------------------------------------------------------------------


def paytable_save(*, name: str, table: CorePayTable) -> PayTable:
    """Store a pay table after validating it (whole cents, higher hands never pay less)."""
    try:
        table.validate()
    except ValueError as exc:
        raise ValidationError(str(exc), code="paytable_invalid") from None
    paytable, _ = PayTable.objects.update_or_create(name=name, defaults={"data": table.to_dict()})
    return paytable


def table_create(*, name: str, tier: LimitTier, paytable: PayTable, pool: JackpotPool) -> Table:
    with db_transaction.atomic():
        house = account_get_or_create(code=f"house:table:{name}", kind=Account.Kind.HOUSE, name=f"House at {name}")
        return Table.objects.create(name=name, tier=tier, paytable=paytable, pool=pool, house_account=house)


# --- locks and lookups ------------------------------------------------------------------


def _lock_table(table_id: int) -> Table:
    table = Table.objects.select_for_update(of=("self",)).select_related("tier", "paytable", "pool").filter(pk=table_id).first()
    if table is None:
        raise NotFound("No such table.", code="table_not_found")
    return table


def _lock_hand(hand_id: int) -> Hand:
    """Lock the hand's table, then the hand: the one order every writer follows."""
    table_id = Hand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
    if table_id is None:
        raise NotFound("No such hand.", code="hand_not_found")
    table = _lock_table(table_id)
    hand = Hand.objects.select_for_update().get(pk=hand_id)
    hand.table = table
    return hand


def _live_hand(table: Table) -> Hand | None:
    return table.hands.filter(state__in=[Hand.State.BETTING, Hand.State.DECISIONS]).first()


def _hand_paytable(hand: Hand) -> CorePayTable:
    return CorePayTable.from_dict(hand.paytable_data)


def _touch(hand: Hand, *fields: str) -> None:
    hand.version += 1
    hand.save(update_fields=["version", *fields])


# --- seats ------------------------------------------------------------------------------


def hand_open(*, table: Table) -> Hand:
    """Open the next hand at a (locked) table: a fresh server seed, committed at once."""
    server_seed = fair.new_server_seed()
    paytable = table.paytable
    hand = Hand.objects.create(
        table=table,
        nonce=table.next_nonce,
        server_seed=server_seed,
        commitment=fair.commitment_of(server_seed),
        paytable_name=paytable.name,
        paytable_data=paytable.data,
        min_ante=table.tier.min_ante,
        max_ante=table.tier.max_ante,
        jackpot_bet_amount=table.pool.bet_amount,
    )
    table.next_nonce += 1
    table.save(update_fields=["next_nonce"])
    events.hand_opened(hand)
    return hand


def table_sit(*, user, table_id: int, seat_number: int | None = None, client_seed: str | None = None) -> Seat:
    if client_seed is not None and not CLIENT_SEED_RE.match(client_seed):
        raise ValidationError(
            "A client seed is 1 to 64 letters, digits, '-' or '_'.", code="client_seed_invalid"
        )
    if seat_number is not None and not (isinstance(seat_number, int) and 1 <= seat_number <= MAX_SEATS):
        raise ValidationError(f"Seats are numbered 1 to {MAX_SEATS}.", code="seat_invalid")
    player_accounts_ensure(user=user)
    with db_transaction.atomic():
        table = _lock_table(table_id)
        if not table.is_open:
            raise Conflict("This table is closed.", code="table_closed")
        taken = dict(table.seats.values_list("number", "player_id"))
        if user.pk in taken.values():
            raise Conflict("You already sit at this table.", code="already_seated")
        free = [n for n in range(1, MAX_SEATS + 1) if n not in taken]
        if not free:
            raise Conflict("All four seats are taken.", code="table_full")
        if seat_number is None:
            seat_number = free[0]
        elif seat_number in taken:
            raise Conflict(f"Seat {seat_number} is taken.", code="seat_taken", extra={"free_seats": free})
        seat = Seat.objects.create(
            table=table, number=seat_number, player=user, client_seed=client_seed or fair.new_client_seed()
        )
        if _live_hand(table) is None:
            hand_open(table=table)
        events.seat_changed(table, seat_number)
        return seat


def table_leave(*, user, table_id: int) -> None:
    """Stand up between hands; never with money in play at this table."""
    with db_transaction.atomic():
        table = _lock_table(table_id)
        seat = table.seats.filter(player=user).first()
        if seat is None:
            raise Conflict("You do not sit at this table.", code="not_seated")
        hand = _live_hand(table)
        if hand is not None and hand.hand_seats.filter(player=user).exists():
            raise Conflict("You have a bet in the current hand; leave when it is settled.", code="money_in_play")
        seat.delete()
        events.seat_changed(table, seat.number)


# --- the hand ---------------------------------------------------------------------------


def hand_bet(*, user, table_id: int, ante: int, jackpot: bool) -> HandSeat:
    """Place the ante (and the jackpot chip), holding the possible raise (SPEC A1, A2).

    When every seated player has bet, the hand is dealt in the same transaction.
    """
    if type(ante) is not int or ante <= 0:
        raise ValidationError("The ante must be a positive amount.", code="amount_not_positive")
    wallet, in_play = player_accounts_ensure(user=user)
    with db_transaction.atomic():
        table = _lock_table(table_id)
        hand = table.hands.select_for_update().filter(state__in=[Hand.State.BETTING, Hand.State.DECISIONS]).first()
        if hand is None:
            raise Conflict("No hand is taking bets at this table.", code="betting_closed")
        if hand.state != Hand.State.BETTING:
            raise Conflict("The cards are dealt; bets are closed for this hand.", code="betting_closed")
        seat = table.seats.filter(player=user).first()
        if seat is None:
            raise Conflict("Take a seat at this table before you bet.", code="not_seated")
        if hand.hand_seats.filter(player=user).exists():
            raise Conflict("You have already bet on this hand.", code="already_bet")
        if not hand.min_ante <= ante <= hand.max_ante:
            raise ValidationError(
                f"The ante at this table is {format_cents(hand.min_ante)} to {format_cents(hand.max_ante)}.",
                code="ante_out_of_range",
                extra={"min_ante": format_cents(hand.min_ante), "max_ante": format_cents(hand.max_ante)},
            )
        jackpot_bet = hand.jackpot_bet_amount if jackpot else 0
        ledger_post(
            kind=Transaction.Kind.BET,
            idempotency_key=f"hand:{hand.pk}:seat:{seat.number}:bet",
            postings=[(wallet, -(3 * ante + jackpot_bet)), (in_play, 3 * ante + jackpot_bet)],
            memo=f"Ante {format_cents(ante)}"
            + (f", jackpot {format_cents(jackpot_bet)}" if jackpot_bet else "")
            + f", raise {format_cents(2 * ante)} held",
            table_ref=table.pk,
            hand_ref=hand.pk,
        )
        hand_seat = HandSeat.objects.create(
            hand=hand,
            seat_number=seat.number,
            player=user,
            client_seed=seat.client_seed,
            ante=ante,
            jackpot_bet=jackpot_bet,
        )
        seat.rounds_sat_out = 0
        seat.save(update_fields=["rounds_sat_out"])
        _touch(hand)
        events.bet_placed(hand, hand_seat)
        seated = set(table.seats.values_list("player_id", flat=True))
        if seated <= set(hand.hand_seats.values_list("player_id", flat=True)):
            hand_deal(hand_id=hand.pk)
        return hand_seat


def hand_deal(*, hand_id: int) -> Hand:
    """Close betting, shuffle provably fairly, deal five cards each, take the jackpot bets."""
    with db_transaction.atomic():
        hand = _lock_hand(hand_id)
        if hand.state != Hand.State.BETTING:
            raise Conflict("This hand is already dealt.", code="already_dealt")
        seats = list(hand.hand_seats.select_related("player").order_by("seat_number"))
        if not seats:
            raise Conflict("Nobody has bet on this hand.", code="no_bets")
        hand.client_seed = fair.hand_client_seed([s.client_seed for s in seats])
        deck = fair.shuffled_deck(hand.server_seed, hand.client_seed, hand.nonce)
        player_hands, dealer_hand = deal(deck, len(seats))
        now = timezone.now()
        deadline = now + timedelta(seconds=DECISION_SECONDS)
        for hand_seat, cards in zip(seats, player_hands):
            strength = evaluate(cards)
            hand_seat.cards = cards_to_str(cards)
            hand_seat.strength = strength
            hand_seat.category = category_of(strength).key
            hand_seat.decision_deadline = deadline
            hand_seat.save(update_fields=["cards", "strength", "category", "decision_deadline"])
        dealer_strength = evaluate(dealer_hand)
        hand.dealer_cards = cards_to_str(dealer_hand)
        hand.dealer_strength = dealer_strength
        hand.dealer_category = category_of(dealer_strength).key
        hand.dealer_qualified = dealer_qualifies(dealer_strength)
        hand.state = Hand.State.DECISIONS
        hand.dealt_at = now
        hand.decision_deadline = deadline

        table = hand.table
        bets = [(player_accounts_ensure(user=s.player)[1], s.jackpot_bet) for s in seats if s.jackpot_bet]
        if bets:
            accounts_lock([account for account, _ in bets] + [table.house_account])
            jackpot_contribute(
                pool=table.pool,
                bets=bets,
                house_account=table.house_account,
                idempotency_key=f"hand:{hand.pk}:jackpot_contribution",
                table_ref=table.pk,
                hand_ref=hand.pk,
            )
        _touch(
            hand,
            "client_seed",
            "dealer_cards",
            "dealer_strength",
            "dealer_category",
            "dealer_qualified",
            "state",
            "dealt_at",
            "decision_deadline",
        )
        events.hand_dealt(hand, seats)
        if bets:
            events.jackpot_changed(table.pool)
        return hand


def hand_decide(*, user, hand_id: int, action: str) -> HandSeat:
    """Fold (the ante is lost at settlement; the held raise comes back now) or raise 2x ante."""
    if action not in (HandSeat.Decision.FOLD, HandSeat.Decision.RAISE):
        raise ValidationError("The action is 'fold' or 'raise'.", code="action_invalid")
    with db_transaction.atomic():
        hand = _lock_hand(hand_id)
        hand_seat = hand.hand_seats.filter(player=user).first()
        if hand_seat is None:
            raise Conflict("You have no ante in this hand.", code="no_ante")
        return _decide(hand, hand_seat, action, by_timeout=False)


def _decide(hand: Hand, hand_seat: HandSeat, action: str, *, by_timeout: bool) -> HandSeat:
    if hand.state == Hand.State.BETTING:
        raise Conflict("The cards are not dealt yet.", code="not_dealt")
    if hand.is_over:
        raise Conflict("This hand is over.", code="hand_over")
    if hand_seat.decision:
        raise Conflict(f"You have already chosen to {hand_seat.decision}.", code="already_decided")
    hand_seat.decision = action
    hand_seat.decided_by_timeout = by_timeout
    if action == HandSeat.Decision.RAISE:
        hand_seat.raise_amount = 2 * hand_seat.ante
    else:
        wallet, in_play = player_accounts_ensure(user=hand_seat.player)
        ledger_post(
            kind=Transaction.Kind.HOLD_RELEASE,
            idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:release",
            postings=[(in_play, -2 * hand_seat.ante), (wallet, 2 * hand_seat.ante)],
            memo="Fold: the held raise returns to the wallet",
            table_ref=hand.table_id,
            hand_ref=hand.pk,
        )
    hand_seat.save(update_fields=["decision", "decided_by_timeout", "raise_amount"])
    _touch(hand)
    events.decision_made(hand, hand_seat)
    if not hand.hand_seats.filter(decision=HandSeat.Decision.NONE).exists():
        hand_settle(hand_id=hand.pk)
    return hand_seat


def hand_settle(*, hand_id: int) -> Hand:
    """Reveal the dealer and settle every seat right to left (SPEC A5, A6)."""
    with db_transaction.atomic():
        hand = _lock_hand(hand_id)
        if hand.state != Hand.State.DECISIONS:
            raise Conflict("Only a dealt hand can be settled.", code="not_settleable")
        seats = list(hand.hand_seats.select_related("player").order_by("-seat_number"))
        if any(not s.decision for s in seats):
            raise Conflict("Some players have not decided yet.", code="decisions_pending")
        table = hand.table
        paytable = _hand_paytable(hand)
        accounts = {s.player_id: player_accounts_ensure(user=s.player) for s in seats}
        accounts_lock([a for pair in accounts.values() for a in pair] + [table.house_account])
        for hand_seat in seats:  # right to left: seat 4 first
            wallet, in_play = accounts[hand_seat.player_id]
            raised = hand_seat.decision == HandSeat.Decision.RAISE
            result = settle_seat(
                ante=hand_seat.ante,
                raised=raised,
                player_strength=hand_seat.strength,
                dealer_strength=hand.dealer_strength,
                paytable=paytable,
            )
            staked = hand_seat.ante + hand_seat.raise_amount
            returned = result.ante_return + result.raise_return
            ledger_post(
                kind=Transaction.Kind.SETTLEMENT,
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:settle",
                postings=[(in_play, -staked), (wallet, returned), (table.house_account, staked - returned)],
                memo=f"Seat {hand_seat.seat_number}: {result.outcome}",
                table_ref=table.pk,
                hand_ref=hand.pk,
            )
            jackpot_win = 0
            if hand_seat.jackpot_bet:
                award = jackpot_award(
                    pool=table.pool,
                    category=Category.from_key(hand_seat.category),
                    player=hand_seat.player,
                    wallet=wallet,
                    house_account=table.house_account,
                    idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:jackpot",
                    table_ref=table.pk,
                    hand_ref=hand.pk,
                    seat_number=hand_seat.seat_number,
                )
                jackpot_win = award.amount if award else 0
            hand_seat.outcome = result.outcome
            hand_seat.paytable_line = (
                f"{result.paytable_line[0]}:{result.paytable_line[1].key}" if result.paytable_line else ""
            )
            hand_seat.ante_return = result.ante_return
            hand_seat.raise_return = result.raise_return
            hand_seat.jackpot_win = jackpot_win
            hand_seat.net = returned + jackpot_win - staked - hand_seat.jackpot_bet
            hand_seat.save(
                update_fields=["outcome", "paytable_line", "ante_return", "raise_return", "jackpot_win", "net"]
            )
        hand.state = Hand.State.SETTLED
        hand.settled_at = timezone.now()
        _touch(hand, "state", "settled_at")
        events.hand_settled(hand)
        if any(s.jackpot_win for s in seats):
            events.jackpot_changed(table.pool)
        _open_next(table)
        return hand


def hand_cancel(*, hand_id: int, reason: str, actor=None) -> Hand:
    """Void a hand that has not been settled: every stake goes back to its wallet."""
    with db_transaction.atomic():
        hand = _lock_hand(hand_id)
        if hand.is_over:
            raise Conflict("This hand is over.", code="hand_over")
        table = hand.table
        contribution = Transaction.objects.filter(idempotency_key=f"hand:{hand.pk}:jackpot_contribution").first()
        if contribution is not None:
            transaction_reverse(
                original=contribution,
                actor=actor,
                idempotency_key=f"hand:{hand.pk}:jackpot_contribution:reversal",
                reason=reason or "hand cancelled",
            )
            events.jackpot_changed(table.pool)
        for hand_seat in hand.hand_seats.select_related("player").order_by("-seat_number"):
            wallet, in_play = player_accounts_ensure(user=hand_seat.player)
            held = 0 if hand_seat.decision == HandSeat.Decision.FOLD else 2 * hand_seat.ante
            refund = hand_seat.ante + held + hand_seat.jackpot_bet
            ledger_post(
                kind=Transaction.Kind.REFUND,
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:refund",
                postings=[(in_play, -refund), (wallet, refund)],
                memo=f"Hand cancelled: {reason}"[:255],
                actor=actor,
                table_ref=table.pk,
                hand_ref=hand.pk,
            )
            hand_seat.outcome = "cancelled"
            hand_seat.net = 0
            hand_seat.save(update_fields=["outcome", "net"])
        hand.state = Hand.State.CANCELLED
        hand.settled_at = timezone.now()
        _touch(hand, "state", "settled_at")
        events.hand_settled(hand)
        _open_next(table)
        return hand


def _open_next(table: Table) -> Hand | None:
    """After a hand ends, open the next one if anybody still sits (the table is locked)."""
    if table.is_open and table.seats.exists() and _live_hand(table) is None:
        return hand_open(table=table)
    return None
