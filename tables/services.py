"""The dealer workflow: sit, leave, bet, deal, decide, settle, cancel.

Each step is one database transaction that locks the hand (or the table) first, checks
the state, changes it and posts its money through ``wallets`` and ``jackpot`` services.
A step that is not legal in the current state is refused with a stable error code and
changes nothing. Events for the live tables are sent after commit (``tables.events``).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from datetime import timedelta

from django.db import transaction as db_transaction
from django.utils import timezone

from casino.errors import Conflict, NotFound, ValidationError
from casino.game import fair
from casino.game.evaluator import Category, category_of, dealer_qualifies, evaluate
from casino.game.paytables import PayTable as CorePayTable
from casino.game.rules import deal, earns_extension, settle_seat
from casino.game.cards import cards_to_str
from casino.money import format_cents
from jackpot.models import JackpotPool
from jackpot.services import jackpot_award, jackpot_contribute
from tables import events, timers
from tables.models import MAX_SEATS, Hand, HandSeat, PayTable, Seat, Table
from wallets.locks import PlayerAccounts, player_accounts_lock
from wallets.models import Account, LimitTier, Transaction
from wallets.services import account_get_or_create, ledger_post, player_accounts_ensure, transaction_reverse

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


@contextmanager
def _step():
    """One dealer step: one transaction; its events go out after commit, in one batch."""
    with db_transaction.atomic(), events.outbox():
        yield


def _lock_table(table_id: int) -> Table:
    table = (
        Table.objects.select_for_update(of=("self",))
        .select_related("tier", "paytable", "pool", "house_account")
        .filter(pk=table_id)
        .first()
    )
    if table is None:
        raise NotFound("No such table.", code="table_not_found")
    return table


def _lock_money(table: Table, hand: Hand | None) -> PlayerAccounts:
    """Lock, in one statement, every ordinary account this table's step may touch.

    The seated players' and the hand's players' wallets and money in play, and the
    table's house account; the shared jackpot accounts are locked later, last.
    """
    player_ids = set(table.seats.values_list("player_id", flat=True))
    if hand is not None:
        player_ids |= set(hand.hand_seats.values_list("player_id", flat=True))
    return player_accounts_lock(player_ids=player_ids, accounts=[table.house_account])


def _lock_hand(hand_id: int) -> tuple[Hand, PlayerAccounts]:
    """Lock the hand's table, the hand, then its money: the one order every writer follows."""
    table_id = Hand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
    if table_id is None:
        raise NotFound("No such hand.", code="hand_not_found")
    table = _lock_table(table_id)
    hand = Hand.objects.select_for_update().get(pk=hand_id)
    hand.table = table
    return hand, _lock_money(table, hand)


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
    with _step():
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
    with _step():
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

    The first ante opens the betting window; when every seated player has bet, the hand
    is dealt in the same transaction.
    """
    if type(ante) is not int or ante <= 0:
        raise ValidationError("The ante must be a positive amount.", code="amount_not_positive")
    with _step():
        table = _lock_table(table_id)
        seat = table.seats.filter(player=user).first()
        if seat is None:
            raise Conflict("Take a seat at this table before you bet.", code="not_seated")
        hand = table.hands.select_for_update().filter(state__in=[Hand.State.BETTING, Hand.State.DECISIONS]).first()
        if hand is None or hand.state != Hand.State.BETTING:
            raise Conflict("The cards are dealt; bets are closed for this hand.", code="betting_closed")
        if hand.hand_seats.filter(player=user).exists():
            raise Conflict("You have already bet on this hand.", code="already_bet")
        if not hand.min_ante <= ante <= hand.max_ante:
            raise ValidationError(
                f"The ante at this table is {format_cents(hand.min_ante)} to {format_cents(hand.max_ante)}.",
                code="ante_out_of_range",
                extra={"min_ante": format_cents(hand.min_ante), "max_ante": format_cents(hand.max_ante)},
            )
        money = _lock_money(table, hand)
        jackpot_bet = hand.jackpot_bet_amount if jackpot else 0
        held = 3 * ante + jackpot_bet  # ante, chip, and the raise held so that it cannot fail
        ledger_post(
            kind=Transaction.Kind.BET,
            idempotency_key=f"hand:{hand.pk}:seat:{seat.number}:bet",
            postings=[(money.wallet(user.pk), -held), (money.in_play(user.pk), held)],
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
        if seat.rounds_sat_out:
            seat.rounds_sat_out = 0
            seat.save(update_fields=["rounds_sat_out"])
        if hand.betting_deadline is None:
            hand.betting_deadline = timezone.now() + timedelta(seconds=table.bet_seconds)
            timers.schedule(hand.pk, hand.betting_deadline)
            events.betting_closes(hand)
        _touch(hand, "betting_deadline")
        events.bet_placed(hand, hand_seat)
        seated = set(table.seats.values_list("player_id", flat=True))
        if seated <= set(hand.hand_seats.values_list("player_id", flat=True)):
            hand_deal(hand_id=hand.pk)
        return hand_seat


def hand_deal(*, hand_id: int) -> Hand:
    """Close betting, shuffle provably fairly, deal five cards each, take the jackpot bets."""
    with _step():
        hand, money = _lock_hand(hand_id)
        if hand.state != Hand.State.BETTING:
            raise Conflict("This hand is already dealt.", code="already_dealt")
        seats = list(hand.hand_seats.order_by("seat_number"))
        if not seats:
            raise Conflict("Nobody has bet on this hand.", code="no_bets")
        table = hand.table
        hand.client_seed = fair.hand_client_seed([s.client_seed for s in seats])
        deck = fair.shuffled_deck(hand.server_seed, hand.client_seed, hand.nonce)
        player_hands, dealer_hand = deal(deck, len(seats))
        now = timezone.now()
        deadline = now + timedelta(seconds=table.decision_seconds)
        for hand_seat, cards in zip(seats, player_hands):
            hand_seat.cards = cards_to_str(cards)
            hand_seat.strength = evaluate(cards)
            hand_seat.category = category_of(hand_seat.strength).key
            hand_seat.decision_deadline = deadline
        HandSeat.objects.bulk_update(seats, ["cards", "strength", "category", "decision_deadline"])
        hand.dealer_cards = cards_to_str(dealer_hand)
        hand.dealer_strength = evaluate(dealer_hand)
        hand.dealer_category = category_of(hand.dealer_strength).key
        hand.dealer_qualified = dealer_qualifies(hand.dealer_strength)
        hand.state = Hand.State.DECISIONS
        hand.dealt_at = now
        hand.decision_deadline = deadline
        _touch(
            hand,
            *("client_seed", "dealer_cards", "dealer_strength", "dealer_category", "dealer_qualified"),
            *("state", "dealt_at", "decision_deadline"),
        )
        events.hand_dealt(hand, seats)
        timers.schedule(hand.pk, deadline)
        _count_sit_outs(table, dealt_in={s.player_id for s in seats})
        # Last, so that the shared meter row is locked for the shortest time.
        bets = [(money.in_play(s.player_id), s.jackpot_bet) for s in seats if s.jackpot_bet]
        if bets:
            jackpot_contribute(
                pool=table.pool,
                bets=bets,
                house_account=table.house_account,
                idempotency_key=f"hand:{hand.pk}:jackpot_contribution",
                table_ref=table.pk,
                hand_ref=hand.pk,
            )
            events.jackpot_changed(table.pool)
        return hand


def _count_sit_outs(table: Table, *, dealt_in: set[int]) -> None:
    """Seated players who did not bet sat this round out; too many in a row stand them up."""
    for seat in table.seats.exclude(player_id__in=dealt_in):
        seat.rounds_sat_out += 1
        if seat.rounds_sat_out >= table.sit_out_limit:
            seat.delete()
            events.seat_changed(table, seat.number)
        else:
            seat.save(update_fields=["rounds_sat_out"])


def hand_decide(*, user, hand_id: int, action: str) -> HandSeat:
    """Fold (the ante is lost at settlement; the held raise comes back now) or raise 2x ante."""
    if action not in (HandSeat.Decision.FOLD, HandSeat.Decision.RAISE):
        raise ValidationError("The action is 'fold' or 'raise'.", code="action_invalid")
    with _step():
        hand, money = _lock_hand(hand_id)
        hand_seat = hand.hand_seats.filter(player=user).first()
        if hand_seat is None:
            raise Conflict("You have no ante in this hand.", code="no_ante")
        _decide(hand, money, hand_seat, action, by_timeout=False)
        return hand_seat


def _decide(hand: Hand, money: PlayerAccounts, hand_seat: HandSeat, action: str, *, by_timeout: bool) -> None:
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
        ledger_post(
            kind=Transaction.Kind.HOLD_RELEASE,
            idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:release",
            postings=[(money.in_play(hand_seat.player_id), -2 * hand_seat.ante), (money.wallet(hand_seat.player_id), 2 * hand_seat.ante)],
            memo="Fold: the held raise returns to the wallet",
            table_ref=hand.table_id,
            hand_ref=hand.pk,
        )
    hand_seat.save(update_fields=["decision", "decided_by_timeout", "raise_amount"])
    _touch(hand)
    events.decision_made(hand, hand_seat)
    if not hand.hand_seats.filter(decision=HandSeat.Decision.NONE).exists():
        hand_settle(hand_id=hand.pk)
        hand.refresh_from_db(fields=["state", "version", "settled_at"])


def hand_expire(*, hand_id: int) -> None:
    """Act on every deadline of the hand that has passed; do nothing when none has (stale).

    The one home of SPEC A4's time bank, called by the timer task and the sweeper alike:
    a closed betting window deals; an undecided seat out of time is folded, unless it
    holds a pair or better and has its one extension left, which it then gets (when that
    runs out too, the table's option applies: fold by default, or raise).
    """
    with _step():
        hand, money = _lock_hand(hand_id)
        now = timezone.now()
        if hand.state == Hand.State.BETTING:
            if hand.betting_deadline is not None and hand.betting_deadline <= now:
                hand_deal(hand_id=hand.pk)
            return
        if hand.state != Hand.State.DECISIONS:
            return
        due = hand.hand_seats.filter(decision=HandSeat.Decision.NONE, decision_deadline__lte=now)
        for hand_seat in due.order_by("-seat_number"):
            pair_or_better = earns_extension(hand_seat.strength)
            if pair_or_better and not hand_seat.extension_used:
                _extend(hand, hand_seat, base=now)
            else:
                action = hand.table.pair_timeout_action if pair_or_better else HandSeat.Decision.FOLD
                _decide(hand, money, hand_seat, action, by_timeout=True)


def hand_seat_disconnected(*, user, table_id: int) -> None:
    """A player's connection dropped: a pair or better gets its one extension now (SPEC A4)."""
    with _step():
        table = _lock_table(table_id)
        hand = table.hands.select_for_update().filter(state=Hand.State.DECISIONS).first()
        if hand is None:
            return
        hand.table = table
        hand_seat = hand.hand_seats.filter(player=user, decision=HandSeat.Decision.NONE).first()
        if hand_seat is not None and not hand_seat.extension_used and earns_extension(hand_seat.strength):
            _extend(hand, hand_seat, base=max(hand_seat.decision_deadline, timezone.now()))


def _extend(hand: Hand, hand_seat: HandSeat, *, base) -> None:
    hand_seat.extension_used = True
    hand_seat.decision_deadline = base + timedelta(seconds=hand.table.extension_seconds)
    hand_seat.save(update_fields=["extension_used", "decision_deadline"])
    _touch(hand)
    timers.schedule(hand.pk, hand_seat.decision_deadline)
    events.private_changed(hand, hand_seat.player_id)


def hand_settle(*, hand_id: int) -> Hand:
    """Reveal the dealer and settle every seat right to left (SPEC A5, A6).

    Ante and raise first, seat 4 to seat 1; then the jackpot bets in the same order, last
    in the transaction, so that the shared meter row is held only for the prizes.
    """
    with _step():
        hand, money = _lock_hand(hand_id)
        if hand.state != Hand.State.DECISIONS:
            raise Conflict("Only a dealt hand can be settled.", code="not_settleable")
        seats = list(hand.hand_seats.select_related("player").order_by("-seat_number"))
        if any(not s.decision for s in seats):
            raise Conflict("Some players have not decided yet.", code="decisions_pending")
        table = hand.table
        paytable = _hand_paytable(hand)
        for hand_seat in seats:  # right to left: seat 4 first
            result = settle_seat(
                ante=hand_seat.ante,
                raised=hand_seat.decision == HandSeat.Decision.RAISE,
                player_strength=hand_seat.strength,
                dealer_strength=hand.dealer_strength,
                paytable=paytable,
            )
            staked = hand_seat.ante + hand_seat.raise_amount
            returned = result.ante_return + result.raise_return
            ledger_post(
                kind=Transaction.Kind.SETTLEMENT,
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:settle",
                postings=[
                    (money.in_play(hand_seat.player_id), -staked),
                    (money.wallet(hand_seat.player_id), returned),
                    (table.house_account, staked - returned),
                ],
                memo=f"Seat {hand_seat.seat_number}: {result.outcome}",
                table_ref=table.pk,
                hand_ref=hand.pk,
            )
            hand_seat.outcome = result.outcome
            hand_seat.paytable_line = (
                f"{result.paytable_line[0]}:{result.paytable_line[1].key}" if result.paytable_line else ""
            )
            hand_seat.ante_return = result.ante_return
            hand_seat.raise_return = result.raise_return
            hand_seat.net = returned - staked - hand_seat.jackpot_bet
        for hand_seat in seats:
            if hand_seat.jackpot_bet:
                award = jackpot_award(
                    pool=table.pool,
                    category=Category.from_key(hand_seat.category),
                    player=hand_seat.player,
                    wallet=money.wallet(hand_seat.player_id),
                    house_account=table.house_account,
                    idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:jackpot",
                    table_ref=table.pk,
                    hand_ref=hand.pk,
                    seat_number=hand_seat.seat_number,
                )
                if award is not None:
                    hand_seat.jackpot_win = award.amount
                    hand_seat.net += award.amount
        HandSeat.objects.bulk_update(
            seats, ["outcome", "paytable_line", "ante_return", "raise_return", "jackpot_win", "net"]
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
    with _step():
        hand, money = _lock_hand(hand_id)
        if hand.is_over:
            raise Conflict("This hand is over.", code="hand_over")
        table = hand.table
        contribution = Transaction.objects.filter(idempotency_key=f"hand:{hand.pk}:jackpot_contribution").first()
        if contribution is not None:  # the jackpot bets come back out of the pool first
            transaction_reverse(
                original=contribution,
                actor=actor,
                idempotency_key=f"hand:{hand.pk}:jackpot_contribution:reversal",
                reason=reason or "hand cancelled",
            )
            events.jackpot_changed(table.pool)
        for hand_seat in hand.hand_seats.order_by("-seat_number"):
            held = 0 if hand_seat.decision == HandSeat.Decision.FOLD else 2 * hand_seat.ante
            refund = hand_seat.ante + held + hand_seat.jackpot_bet
            ledger_post(
                kind=Transaction.Kind.REFUND,
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:refund",
                postings=[(money.in_play(hand_seat.player_id), -refund), (money.wallet(hand_seat.player_id), refund)],
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
