"""A hand's steps: open, bet, deal, decide, expire, settle, cancel (SPEC A1-A6).

Each public function is one step (``steps.step``): it locks in the order of
``tables.locks``, checks the hand's state, changes it and posts its money through the
``wallets`` and ``jackpot`` services.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext

from casino.access import policy
from casino.cents import format_cents
from casino.game import fair
from casino.game.cards import cards_to_str
from casino.game.evaluator import Category, category_of, dealer_qualifies, evaluate
from casino.game.paytables import jackpot_prize
from casino.game.rules import deal, earns_extension, raise_of
from casino.http.errors import Conflict, NotFound, Translated, ValidationError
from casino.money import money as money_text
from jackpot.services import PoolRules, hand_pool_rules, jackpot_award, jackpot_contribute
from tables import events, timers
from tables.locks import hand_lock, live_hand_lock, table_lock
from tables.models import Hand, HandSeat, Table
from tables.selectors import table_live_hand
from tables.services.steps import hand_paytable, seat_settled, step, table_rules, touch
from wallets import responsible
from wallets.locks import PlayerAccounts
from wallets.models import Transaction
from wallets.services import Entry, ledger_post, ledger_post_many, transaction_reverse


def hand_open(*, table: Table) -> Hand:
    """Open the next hand at a (locked) table: a fresh server seed, committed at once."""
    server_seed = fair.new_server_seed()
    table_rules(table)
    paytable = table.paytable
    hand = Hand(
        table=table,
        nonce=table.next_nonce,
        server_seed=server_seed,
        commitment=fair.commitment_of(server_seed),
        paytable_name=paytable.name,
        paytable_data=paytable.data,
        min_ante=table.tier.min_ante,
        max_ante=table.tier.max_ante,
        jackpot_bet_amount=table.pool.bet_amount,
        jackpot_rules=PoolRules.of_pool(table.pool).to_dict(),
    )
    table.next_nonce += 1
    table.save(update_fields=["next_nonce"])
    hand.save(force_insert=True)
    events.hand_opened(hand)
    return hand


def hand_open_next(table: Table, *, ended: Hand | None = None) -> Hand | None:
    """Open the (locked) table's next hand if anybody sits and none is live: none is when
    ``ended``, the live hand, just ended (a table has one at most: a unique index)."""
    seated = bool(table.seats_read) if table.seats_read is not None else table.seats.exists()
    if table.is_open and seated and (ended is not None or table_live_hand(table=table) is None):
        return hand_open(table=table)
    return None


def hand_bet(*, user, table_id: int, ante: int, jackpot: bool) -> HandSeat:
    """Place the ante (and the jackpot chip), holding the possible raise (SPEC A1, A2).

    The first ante opens the betting window; when every seated player has bet, the hand
    is dealt in the same transaction.
    """
    policy.require(user, "play")
    if type(ante) is not int or ante <= 0:
        raise ValidationError("The ante must be a positive amount.", code="amount_not_positive")
    with step():
        live = live_hand_lock(table_id, player_id=user.pk)
        table, hand, hand_seats, money = live.table, live.hand, live.seats, live.money
        seats = {seat.player_id: seat for seat in live.table_seats}
        seat = seats.get(user.pk)
        if seat is None:
            raise Conflict("Take a seat at this table before you bet.", code="not_seated")
        if hand is None or hand.state != Hand.State.BETTING:
            raise Conflict("The cards are dealt; bets are closed for this hand.", code="betting_closed")
        bettors = {s.player_id for s in hand_seats}
        if user.pk in bettors:
            raise Conflict("You have already bet on this hand.", code="already_bet")
        if not hand.min_ante <= ante <= hand.max_ante:
            raise ValidationError(
                Translated(
                    gettext("The ante at this table is %(min)s to %(max)s.")
                    % {"min": money_text(hand.min_ante), "max": money_text(hand.max_ante)}
                ),
                code="ante_out_of_range",
                extra={"min_ante": format_cents(hand.min_ante), "max_ante": format_cents(hand.max_ante)},
            )
        deals = set(seats) <= bettors | {user.pk}  # the last bet deals: every bettor's money moves
        jackpot_bet = hand.jackpot_bet_amount if jackpot else 0
        held = ante + raise_of(ante) + jackpot_bet  # ante, chip, and the raise held so that it cannot fail
        responsible.guard_stake(player=user, stake=held, facts=live.stake_facts)
        bet = Entry(  # posted with the hand's change below; one bet per seat and hand
            kind=Transaction.Kind.BET,
            idempotency_key=f"hand:{hand.pk}:seat:{seat.number}:bet",
            postings=[(money.wallet(user.pk), -held), (money.in_play(user.pk), held)],
            memo=f"Ante {format_cents(ante)}"
            + (f", jackpot {format_cents(jackpot_bet)}" if jackpot_bet else "")
            + f", raise {format_cents(raise_of(ante))} held",
            table_ref=table.pk,
            hand_ref=hand.pk,
            game=Transaction.Game.CARIBBEAN,
        )
        hand_seat = HandSeat(  # inserted with the hand's change below
            hand=hand,
            seat_number=seat.number,
            player=user,
            client_seed=seat.client_seed,
            ante=ante,
            jackpot_bet=jackpot_bet,
            history_at=hand.opened_at,
        )
        if seat.rounds_sat_out:
            seat.rounds_sat_out = 0
            seat.save(update_fields=["rounds_sat_out"])
        if hand.betting_deadline is None:
            hand.betting_deadline = timezone.now() + timedelta(seconds=table.bet_seconds)
            timers.schedule(hand.pk, hand.betting_deadline)
            events.betting_closes(hand)
        if deals:  # the bet's public change, written with the deal's below
            hand.version += 1
        else:
            touch(hand, "betting_deadline", new_seat=hand_seat, post=[bet], money=money)
        events.bet_placed(hand, hand_seat, money)
        if deals:
            hand_seats.append(hand_seat)
            _deal(hand, sorted(hand_seats, key=lambda s: s.seat_number), money, bet=hand_seat, post=[bet])
        return hand_seat


def _deal(
    hand: Hand,
    seats: list[HandSeat],
    money: PlayerAccounts,
    *,
    bet: HandSeat | None = None,
    post: list[Entry] = (),
) -> Hand:
    """Close betting, shuffle provably fairly, deal five cards each, take the jackpot bets.

    For a hand whose table, hand row, seats (by number) and money the caller has locked.
    ``bet``: the last bet's seat, among ``seats`` but not saved yet (nor the hand's betting
    deadline), inserted dealt with the deal's change; ``post``: its posting, with it.
    """
    if hand.state != Hand.State.BETTING:
        raise Conflict("This hand is already dealt.", code="already_dealt")
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
    hand.dealer_cards = cards_to_str(dealer_hand)
    hand.dealer_strength = evaluate(dealer_hand)
    hand.dealer_category = category_of(hand.dealer_strength).key
    hand.dealer_qualified = dealer_qualifies(hand.dealer_strength)
    hand.state = Hand.State.DECISIONS
    hand.dealt_at = now
    hand.decision_deadline = deadline
    touch(
        hand,
        *("client_seed", "dealer_cards", "dealer_strength", "dealer_category", "dealer_qualified"),
        *("state", "dealt_at", "decision_deadline"),
        *(("betting_deadline",) if bet is not None else ()),
        seats=[s for s in seats if s is not bet],
        seat_fields=["cards", "strength", "category", "decision_deadline"],
        new_seat=bet,
        post=post,
        money=money,
    )
    events.hand_dealt(hand, seats)
    timers.schedule(hand.pk, deadline)
    _count_sit_outs(table, dealt_in={s.player_id for s in seats})
    # Last, so that the shared meter row is locked for the shortest time.
    bets = [(money.in_play(s.player_id), s.jackpot_bet) for s in seats if s.jackpot_bet]
    if bets:
        pool = table_rules(table).pool
        jackpot_contribute(
            pool=pool,
            rules=hand_pool_rules(hand=hand, pool=pool),  # the split the chips were placed under
            bets=bets,
            house_account=money.by_id[table.house_account_id],
            idempotency_key=f"hand:{hand.pk}:jackpot_contribution",
            table_ref=table.pk,
            hand_ref=hand.pk,
            game=Transaction.Game.CARIBBEAN,
            locked=money.by_id,
            fresh=True,  # dealt once: the state was checked above under the hand's lock
        )
    return hand


def _count_sit_outs(table: Table, *, dealt_in: set[int]) -> None:
    """Seated players who did not bet sat this round out; too many in a row stand them up."""
    seated = table.seats_read if table.seats_read is not None else list(table.seats.all())
    for seat in [s for s in seated if s.player_id not in dealt_in]:
        seat.rounds_sat_out += 1
        if seat.rounds_sat_out >= table.sit_out_limit:
            seat.delete()
            if table.seats_read is not None:  # what the step read stays what the table holds
                table.seats_read.remove(seat)
            events.seat_changed(table, seat.number)
        else:
            seat.save(update_fields=["rounds_sat_out"])


def hand_decide(*, user, hand_id: int | None = None, table_id: int | None = None, action: str) -> HandSeat:
    """Fold (the ante is lost at settlement; the held raise comes back now) or raise 2x ante.

    The hand by its id (REST); by its id and its table's (the live table's socket: a hand
    of another table is not found); or the table's current hand by the table's id alone.
    A decision for a hand that is over is refused (``hand_over``): it never lands on the
    next hand.
    """
    policy.require(user, "play")
    if action not in (HandSeat.Decision.FOLD, HandSeat.Decision.RAISE):
        raise ValidationError("The action is 'fold' or 'raise'.", code="action_invalid")
    if hand_id is None and table_id is None:
        raise ValueError("hand_decide() takes a hand_id or a table_id")
    with step():
        if hand_id is not None:
            hand, seats, money = hand_lock(hand_id, at_table=table_id)
        else:
            live = live_hand_lock(table_id, player_id=user.pk)
            if live.hand is None:
                raise Conflict("No hand is being played at this table.", code="no_current_hand")
            hand, seats, money = live.hand, live.seats, live.money
        hand_seat = next((s for s in seats if s.player_id == user.pk), None)
        if hand_seat is None:
            raise Conflict("You have no ante in this hand.", code="no_ante")
        _decide(hand, seats, money, hand_seat, action, by_timeout=False)
        return hand_seat


def _decide(
    hand: Hand, seats: list[HandSeat], money: PlayerAccounts, hand_seat: HandSeat, action: str, *, by_timeout: bool
) -> None:
    if hand.state == Hand.State.BETTING:
        raise Conflict("The cards are not dealt yet.", code="not_dealt")
    if hand.is_over:
        raise Conflict("This hand is over.", code="hand_over")
    if hand_seat.decision:
        chosen = (
            gettext("You have already chosen to fold.")
            if hand_seat.decision == HandSeat.Decision.FOLD
            else gettext("You have already chosen to raise.")
        )
        raise Conflict(Translated(chosen), code="already_decided")
    hand_seat.decision = action
    hand_seat.decided_by_timeout = by_timeout
    release = []  # a fold's, posted with the decision's change (one decision per seat: refused above)
    if action == HandSeat.Decision.RAISE:
        hand_seat.raise_amount = raise_of(hand_seat.ante)
    else:
        held = raise_of(hand_seat.ante)
        release.append(
            Entry(
                kind=Transaction.Kind.HOLD_RELEASE,
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:release",
                postings=[(money.in_play(hand_seat.player_id), -held), (money.wallet(hand_seat.player_id), held)],
                memo="Fold: the held raise returns to the wallet",
                table_ref=hand.table_id,
                hand_ref=hand.pk,
                game=Transaction.Game.CARIBBEAN,
            )
        )
    settles = all(s.decision for s in seats)
    if settles:  # the decision's public change and its posting, written with the settlement's
        hand.version += 1
    else:
        touch(hand, seats=[hand_seat], seat_fields=_DECISION_FIELDS, post=release, money=money)
    events.decision_made(hand, hand_seat, money)
    if settles:
        _settle(hand, seats, money, first=release)


_DECISION_FIELDS = ["decision", "decided_by_timeout", "raise_amount"]


def hand_expire(*, hand_id: int) -> None:
    """Act on every deadline of the hand that has passed; do nothing when none has (stale).

    The one home of SPEC A4's time bank, called by the timer task and the sweeper alike:
    a closed betting window deals; an undecided seat out of time is folded, unless it
    holds a pair or better and has its one extension left, which it then gets (when that
    runs out too, the table's option applies: fold by default, or raise).
    """
    with step():
        hand, seats, money = hand_lock(hand_id)
        now = timezone.now()
        if hand.state == Hand.State.BETTING:
            if hand.betting_deadline is not None and hand.betting_deadline <= now:
                _deal(hand, seats, money)
            return
        if hand.state != Hand.State.DECISIONS:
            return
        due = [s for s in seats if not s.decision and s.decision_deadline is not None and s.decision_deadline <= now]
        for hand_seat in reversed(due):
            pair_or_better = earns_extension(hand_seat.strength)
            if pair_or_better and not hand_seat.extension_used:
                _extend(hand, hand_seat, base=now)
            else:
                action = hand.table.pair_timeout_action if pair_or_better else HandSeat.Decision.FOLD
                _decide(hand, seats, money, hand_seat, action, by_timeout=True)


def hand_seat_disconnected(*, user, table_id: int) -> None:
    """A player's connection dropped: a pair or better gets its one extension now (SPEC A4)."""
    with step():
        try:
            table = table_lock(table_id)
        except NotFound:  # the table was closed while the player's page was open: no hand waits
            return
        hand = table.hands.select_for_update().filter(state=Hand.State.DECISIONS).first()
        if hand is None:
            return
        hand.table = table
        hand_seat = hand.hand_seats.filter(player=user, decision=HandSeat.Decision.NONE).first()
        if hand_seat is not None and not hand_seat.extension_used and earns_extension(hand_seat.strength):
            _extend(hand, hand_seat, base=max(hand_seat.decision_deadline, timezone.now()))


def _extend(hand: Hand, hand_seat: HandSeat, *, base) -> None:
    """A pair's extension is a private fact: only its seat's row changes. The hand's public
    ``version`` moves with public events alone; bumped here, it would tell every other
    player (and spectator) that this seat holds a pair or better."""
    hand_seat.extension_used = True
    hand_seat.decision_deadline = base + timedelta(seconds=hand.table.extension_seconds)
    hand_seat.save(update_fields=["extension_used", "decision_deadline"])
    timers.schedule(hand.pk, hand_seat.decision_deadline)
    events.private_changed(hand, hand_seat.player_id)


def _settle(hand: Hand, seats: list[HandSeat], money: PlayerAccounts, *, first: list[Entry] = ()) -> Hand:
    """Reveal the dealer and settle every seat right to left (SPEC A5, A6).

    Ante and raise first, seat 4 to seat 1; then the jackpot bets in the same order, last
    in the transaction, so that the shared meter row is held only for the prizes; when no
    seat wins one, the postings go in the hand's one write. For a hand whose table (with
    its rules and seats, ``tables.locks``), hand row, seats and money the caller has
    locked. ``first``: the last decision's posting, before the settlement's in the same batch.
    """
    if hand.state != Hand.State.DECISIONS:
        raise Conflict("Only a dealt hand can be settled.", code="not_settleable")
    seats = sorted(seats, key=lambda s: -s.seat_number)  # right to left: seat 4 first
    if any(not s.decision for s in seats):
        raise Conflict("Some players have not decided yet.", code="decisions_pending")
    table = hand.table
    paytable = hand_paytable(hand)
    settlements = []
    for hand_seat in seats:
        result = seat_settled(hand, hand_seat, paytable)
        staked = hand_seat.ante + hand_seat.raise_amount
        returned = result.ante_return + result.raise_return
        settlements.append(
            Entry(
                kind=Transaction.Kind.SETTLEMENT,
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:settle",
                postings=[
                    (money.in_play(hand_seat.player_id), -staked),
                    (money.wallet(hand_seat.player_id), returned),
                    (money.by_id[table.house_account_id], staked - returned),
                ],
                memo=f"Seat {hand_seat.seat_number}: {result.outcome}",
                table_ref=table.pk,
                hand_ref=hand.pk,
                game=Transaction.Game.CARIBBEAN,
            )
        )
        hand_seat.outcome = result.outcome
        hand_seat.paytable_line = result.line_key
        hand_seat.ante_return = result.ante_return
        hand_seat.raise_return = result.raise_return
        hand_seat.net = returned - staked - hand_seat.jackpot_bet
    postings = [*first, *settlements]  # one batch, in seat order (4 to 1); the hand's state proves the keys unused
    pool = table_rules(table).pool
    rules = hand_pool_rules(hand=hand, pool=pool)  # the schedule the chips were placed under
    prized = [s for s in seats if s.jackpot_bet and jackpot_prize(rules.schedule, Category.from_key(s.category))]
    if prized:  # posted before the prizes; else with the hand's change below
        ledger_post_many(postings, locked=money.by_id, fresh=True)
        postings = []
    for hand_seat in prized:
        award = jackpot_award(
            pool=pool,
            rules=rules,
            category=Category.from_key(hand_seat.category),
            player_id=hand_seat.player_id,
            wallet=money.wallet(hand_seat.player_id),
            house_account=money.by_id[table.house_account_id],
            idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:jackpot",
            table_ref=table.pk,
            hand_ref=hand.pk,
            game=Transaction.Game.CARIBBEAN,
            seat_number=hand_seat.seat_number,
            locked=money.by_id,
        )
        if award is not None:
            hand_seat.jackpot_win = award.amount
            hand_seat.net += award.amount
    hand.state = Hand.State.SETTLED
    hand.settled_at = timezone.now()
    for hand_seat in seats:
        hand_seat.history_at = hand.settled_at
    touch(
        hand,
        "state",
        "settled_at",
        seats=seats,
        seat_fields=[
            *_DECISION_FIELDS,
            "outcome",
            "paytable_line",
            "ante_return",
            "raise_return",
            "jackpot_win",
            "net",
            "history_at",
        ],
        post=postings,
        money=money,
    )
    events.hand_settled(hand, seats, money)
    hand_open_next(table, ended=hand)
    return hand


def hand_cancel(*, hand_id: int, reason: str, actor=None) -> Hand:
    """Void a hand that has not been settled: every stake goes back to its wallet."""
    with step():
        hand, seats, money = hand_lock(hand_id)
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
        for hand_seat in reversed(seats):
            held = 0 if hand_seat.decision == HandSeat.Decision.FOLD else raise_of(hand_seat.ante)
            refund = hand_seat.ante + held + hand_seat.jackpot_bet
            ledger_post(
                kind=Transaction.Kind.REFUND,
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:refund",
                postings=[(money.in_play(hand_seat.player_id), -refund), (money.wallet(hand_seat.player_id), refund)],
                memo=f"Hand cancelled: {reason}"[:255],
                actor=actor,
                table_ref=table.pk,
                hand_ref=hand.pk,
                game=Transaction.Game.CARIBBEAN,
            )
        hand.state = Hand.State.CANCELLED
        hand.settled_at = timezone.now()
        for hand_seat in seats:
            hand_seat.outcome, hand_seat.net, hand_seat.history_at = "cancelled", 0, hand.settled_at
        touch(hand, "state", "settled_at", seats=seats, seat_fields=["outcome", "net", "history_at"])
        events.hand_settled(hand, seats)
        hand_open_next(table, ended=hand)
        return hand
