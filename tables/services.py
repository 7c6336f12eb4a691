"""The dealer workflow: sit, leave, bet, deal, decide, settle, cancel.

Each step is one database transaction that locks the hand (or the table) first, checks
the state, changes it and posts its money through ``wallets`` and ``jackpot`` services.
A step that is not legal in the current state is refused with a stable error code and
changes nothing. Events for the live tables are sent after commit (``tables.events``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import contextmanager
from datetime import timedelta

from django.db import transaction as db_transaction
from django.utils import timezone

from casino.audit import audit_record, snapshot
from casino.db import Prepared
from casino.errors import Conflict, NotFound, ValidationError
from casino.game import fair
from casino.game.evaluator import Category, category_of, dealer_qualifies, evaluate
from casino.game.paytables import PayTable as CorePayTable
from casino.game.rules import deal, earns_extension, settle_seat
from casino.game.cards import cards_to_str
from casino.money import MAX_AMOUNT_CENTS, format_cents
from jackpot.models import JackpotPool
from jackpot.services import PoolRules, hand_pool_rules, jackpot_award, jackpot_contribute
from casino.live.outbox import outbox
from tables import events, timers
from tables.models import MAX_SEATS, Hand, HandSeat, PayTable, Seat, Table
from wallets import responsible
from wallets.locks import PlayerAccounts, player_accounts_lock
from wallets.models import Account, LimitTier, Transaction
from wallets.services import (
    Entry,
    account_get_or_create,
    ledger_post,
    ledger_post_many,
    player_accounts_ensure,
    transaction_reverse,
)

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
    with db_transaction.atomic(), outbox():
        yield


# The queries every step runs, compiled once per connection (casino.db). The table lock:
# OF self and its own ordering, since the model's ordering joins the tier, and FOR UPDATE
# would lock that row too, making every table of a tier wait for each other.
_TABLE_FOR_UPDATE = Prepared(lambda pk: Table.objects.select_for_update(of=("self",)).filter(pk=pk).order_by("pk"))
_HAND_TABLE_ID = Prepared(lambda pk: Hand.objects.filter(pk=pk).only("id", "table_id").order_by())
_HAND_FOR_UPDATE = Prepared(lambda pk: Hand.objects.select_for_update().filter(pk=pk).order_by())
_LIVE_HAND_FOR_UPDATE = Prepared(
    lambda table_id: Hand.objects.select_for_update()
    .filter(table_id=table_id, state__in=[Hand.State.BETTING, Hand.State.DECISIONS])
    .order_by("-id")
)
_HAND_SEATS = Prepared(lambda hand_id: HandSeat.objects.filter(hand_id=hand_id).order_by("seat_number"))
_TABLE_SEATS = Prepared(lambda table_id: Seat.objects.filter(table_id=table_id).order_by("number"))


def _lock_table(table_id: int) -> Table:
    """Lock the table row alone (a join would be planned and built at every step);
    ``_table_rules`` loads its tier, pay table and pool for the steps that need them."""
    table = _TABLE_FOR_UPDATE.first(pk=table_id)
    if table is None:
        raise NotFound("No such table.", code="table_not_found")
    return table


def _table_rules(table: Table) -> Table:
    """Load the (locked) table's tier, pay table and jackpot pool in one query, once."""
    if not Table._meta.get_field("pool").is_cached(table):
        row = Table.objects.select_related("tier", "paytable", "pool").get(pk=table.pk)
        table.tier, table.paytable, table.pool = row.tier, row.paytable, row.pool
    return table


def _lock_money(table: Table, player_ids: set[int]) -> PlayerAccounts:
    """Lock, in one statement, every ordinary account this table's step may touch.

    The players' wallets and money in play and the table's house account; the shared
    jackpot accounts are locked later, last. Postings pass ``money.by_id`` to the ledger,
    which then neither locks these rows again nor loses track of their balances.
    """
    return player_accounts_lock(player_ids=player_ids, account_ids=[table.house_account_id])


def _lock_hand(hand_id: int, *, at_table: int | None = None) -> tuple[Hand, list[HandSeat], PlayerAccounts]:
    """Lock the hand's table, the hand, then its money: the one order every writer follows.

    Returns the hand, its seats (by seat number; the step's one copy of them, which it
    changes and saves) and its players' locked accounts. With ``at_table``, a hand of
    another table is not found (and nothing of that table is locked).
    """
    found = _HAND_TABLE_ID.first(pk=hand_id)
    if found is None or (at_table is not None and found.table_id != at_table):
        raise NotFound("No such hand.", code="hand_not_found")
    return _lock_hand_of(_lock_table(found.table_id), _HAND_FOR_UPDATE.first(pk=hand_id))


def _lock_hand_of(table: Table, hand: Hand) -> tuple[Hand, list[HandSeat], PlayerAccounts]:
    """``_lock_hand`` for a locked table and its locked hand: the seats, then the money."""
    hand.table = table
    seats = _HAND_SEATS.all(hand_id=hand.pk)
    return hand, seats, _lock_money(table, {s.player_id for s in seats})


def _live_hand(table: Table) -> Hand | None:
    return table.hands.filter(state__in=[Hand.State.BETTING, Hand.State.DECISIONS]).first()


def _lock_live_hand(table: Table) -> Hand | None:
    """The (locked) table's live hand, locked: the same order as ``_lock_hand``."""
    return _LIVE_HAND_FOR_UPDATE.first(table_id=table.pk)


def _hand_paytable(hand: Hand) -> CorePayTable:
    return CorePayTable.from_dict(hand.paytable_data)


def _save_seats(seats: list[HandSeat], fields: list[str]) -> None:
    """One UPDATE per seat: for four rows, a third of the time ``bulk_update`` takes to
    build its CASE expressions (4.5 ms against 1.4 ms on the project's machine)."""
    for hand_seat in seats:
        hand_seat.save(update_fields=fields)


def _touch(hand: Hand, *fields: str) -> None:
    """Save a public change of the hand: its public ``version`` moves (never for a private one)."""
    hand.version += 1
    hand.save(update_fields=["version", *fields])


# --- seats ------------------------------------------------------------------------------


def hand_open(*, table: Table) -> Hand:
    """Open the next hand at a (locked) table: a fresh server seed, committed at once."""
    server_seed = fair.new_server_seed()
    _table_rules(table)
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
        jackpot_rules=PoolRules.of_pool(table.pool).to_dict(),
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
    responsible.guard_play(player=user)
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
        seats = {seat.player_id: seat for seat in _TABLE_SEATS.all(table_id=table.pk)}
        seat = seats.get(user.pk)
        if seat is None:
            raise Conflict("Take a seat at this table before you bet.", code="not_seated")
        hand = _lock_live_hand(table)
        if hand is None or hand.state != Hand.State.BETTING:
            raise Conflict("The cards are dealt; bets are closed for this hand.", code="betting_closed")
        hand.table = table
        hand_seats = _HAND_SEATS.all(hand_id=hand.pk)
        bettors = {s.player_id for s in hand_seats}
        if user.pk in bettors:
            raise Conflict("You have already bet on this hand.", code="already_bet")
        if not hand.min_ante <= ante <= hand.max_ante:
            raise ValidationError(
                f"The ante at this table is {format_cents(hand.min_ante)} to {format_cents(hand.max_ante)}.",
                code="ante_out_of_range",
                extra={"min_ante": format_cents(hand.min_ante), "max_ante": format_cents(hand.max_ante)},
            )
        money = _lock_money(table, set(seats) | bettors)
        jackpot_bet = hand.jackpot_bet_amount if jackpot else 0
        held = 3 * ante + jackpot_bet  # ante, chip, and the raise held so that it cannot fail
        responsible.guard_stake(player=user, stake=held)
        ledger_post(
            kind=Transaction.Kind.BET,
            idempotency_key=f"hand:{hand.pk}:seat:{seat.number}:bet",
            postings=[(money.wallet(user.pk), -held), (money.in_play(user.pk), held)],
            memo=f"Ante {format_cents(ante)}"
            + (f", jackpot {format_cents(jackpot_bet)}" if jackpot_bet else "")
            + f", raise {format_cents(2 * ante)} held",
            table_ref=table.pk,
            hand_ref=hand.pk,
            locked=money.by_id,
            fresh=True,  # one bet per seat and hand: refused above under the hand's lock
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
        if set(seats) <= bettors | {user.pk}:
            hand_seats.append(hand_seat)
            _deal(hand, sorted(hand_seats, key=lambda s: s.seat_number), money, seated=list(seats.values()))
        return hand_seat


def hand_deal(*, hand_id: int) -> Hand:
    """Close betting, shuffle provably fairly, deal five cards each, take the jackpot bets."""
    with _step():
        hand, seats, money = _lock_hand(hand_id)
        return _deal(hand, seats, money)


def _deal(hand: Hand, seats: list[HandSeat], money: PlayerAccounts, *, seated: list[Seat] | None = None) -> Hand:
    """``hand_deal`` for a hand whose table, hand row, seats (by number) and money the caller has locked."""
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
    _save_seats(seats, ["cards", "strength", "category", "decision_deadline"])
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
    _count_sit_outs(table, dealt_in={s.player_id for s in seats}, seated=seated)
    # Last, so that the shared meter row is locked for the shortest time.
    bets = [(money.in_play(s.player_id), s.jackpot_bet) for s in seats if s.jackpot_bet]
    if bets:
        pool = _table_rules(table).pool
        jackpot_contribute(
            pool=pool,
            rules=hand_pool_rules(hand=hand, pool=pool),  # the split the chips were placed under
            bets=bets,
            house_account=money.by_id[table.house_account_id],
            idempotency_key=f"hand:{hand.pk}:jackpot_contribution",
            table_ref=table.pk,
            hand_ref=hand.pk,
            locked=money.by_id,
            fresh=True,  # dealt once: the state was checked above under the hand's lock
        )
    return hand


def _count_sit_outs(table: Table, *, dealt_in: set[int], seated: list[Seat] | None = None) -> None:
    """Seated players who did not bet sat this round out; too many in a row stand them up."""
    sat_out = table.seats.exclude(player_id__in=dealt_in) if seated is None else [s for s in seated if s.player_id not in dealt_in]
    for seat in sat_out:
        seat.rounds_sat_out += 1
        if seat.rounds_sat_out >= table.sit_out_limit:
            seat.delete()
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
    if action not in (HandSeat.Decision.FOLD, HandSeat.Decision.RAISE):
        raise ValidationError("The action is 'fold' or 'raise'.", code="action_invalid")
    if hand_id is None and table_id is None:
        raise ValueError("hand_decide() takes a hand_id or a table_id")
    with _step():
        if hand_id is not None:
            hand, seats, money = _lock_hand(hand_id, at_table=table_id)
        else:
            table = _lock_table(table_id)
            hand = _lock_live_hand(table)
            if hand is None:
                raise Conflict("No hand is being played at this table.", code="no_current_hand")
            hand, seats, money = _lock_hand_of(table, hand)
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
            locked=money.by_id,
            fresh=True,  # one decision per seat: refused above under the hand's lock
        )
    hand_seat.save(update_fields=["decision", "decided_by_timeout", "raise_amount"])
    _touch(hand)
    events.decision_made(hand, hand_seat)
    if all(s.decision for s in seats):
        _settle(hand, seats, money)


def hand_expire(*, hand_id: int) -> None:
    """Act on every deadline of the hand that has passed; do nothing when none has (stale).

    The one home of SPEC A4's time bank, called by the timer task and the sweeper alike:
    a closed betting window deals; an undecided seat out of time is folded, unless it
    holds a pair or better and has its one extension left, which it then gets (when that
    runs out too, the table's option applies: fold by default, or raise).
    """
    with _step():
        hand, seats, money = _lock_hand(hand_id)
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
    """A pair's extension is a private fact: only its seat's row changes. The hand's public
    ``version`` moves with public events alone; bumped here, it would tell every other
    player (and spectator) that this seat holds a pair or better."""
    hand_seat.extension_used = True
    hand_seat.decision_deadline = base + timedelta(seconds=hand.table.extension_seconds)
    hand_seat.save(update_fields=["extension_used", "decision_deadline"])
    timers.schedule(hand.pk, hand_seat.decision_deadline)
    events.private_changed(hand, hand_seat.player_id)


def hand_settle(*, hand_id: int) -> Hand:
    """Reveal the dealer and settle every seat right to left (SPEC A5, A6).

    Ante and raise first, seat 4 to seat 1; then the jackpot bets in the same order, last
    in the transaction, so that the shared meter row is held only for the prizes.
    """
    with _step():
        hand, seats, money = _lock_hand(hand_id)
        return _settle(hand, seats, money)


def _settle(hand: Hand, seats: list[HandSeat], money: PlayerAccounts) -> Hand:
    """``hand_settle`` for a hand whose table, hand row, seats and money the caller has locked."""
    if hand.state != Hand.State.DECISIONS:
        raise Conflict("Only a dealt hand can be settled.", code="not_settleable")
    seats = sorted(seats, key=lambda s: -s.seat_number)  # right to left: seat 4 first
    if any(not s.decision for s in seats):
        raise Conflict("Some players have not decided yet.", code="decisions_pending")
    table = hand.table
    paytable = _hand_paytable(hand)
    settlements = []
    for hand_seat in seats:
        result = settle_seat(
            ante=hand_seat.ante,
            raised=hand_seat.decision == HandSeat.Decision.RAISE,
            player_strength=hand_seat.strength,
            dealer_strength=hand.dealer_strength,
            paytable=paytable,
        )
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
            )
        )
        hand_seat.outcome = result.outcome
        hand_seat.paytable_line = result.line_key
        hand_seat.ante_return = result.ante_return
        hand_seat.raise_return = result.raise_return
        hand_seat.net = returned - staked - hand_seat.jackpot_bet
    # One batch, posted in seat order (4 to 1); the hand's state proves the keys unused.
    ledger_post_many(settlements, locked=money.by_id, fresh=True)
    pool = _table_rules(table).pool
    for hand_seat in seats:
        if hand_seat.jackpot_bet:
            award = jackpot_award(
                pool=pool,
                rules=hand_pool_rules(hand=hand, pool=pool),  # the schedule the chips were placed under
                category=Category.from_key(hand_seat.category),
                player_id=hand_seat.player_id,
                wallet=money.wallet(hand_seat.player_id),
                house_account=money.by_id[table.house_account_id],
                idempotency_key=f"hand:{hand.pk}:seat:{hand_seat.seat_number}:jackpot",
                table_ref=table.pk,
                hand_ref=hand.pk,
                seat_number=hand_seat.seat_number,
                locked=money.by_id,
            )
            if award is not None:
                hand_seat.jackpot_win = award.amount
                hand_seat.net += award.amount
    _save_seats(seats, ["outcome", "paytable_line", "ante_return", "raise_return", "jackpot_win", "net"])
    hand.state = Hand.State.SETTLED
    hand.settled_at = timezone.now()
    _touch(hand, "state", "settled_at")
    events.hand_settled(hand, player_ids=[s.player_id for s in seats])
    _open_next(table, ended=hand)
    return hand


def hand_cancel(*, hand_id: int, reason: str, actor=None) -> Hand:
    """Void a hand that has not been settled: every stake goes back to its wallet."""
    with _step():
        hand, seats, money = _lock_hand(hand_id)
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
        events.hand_settled(hand, player_ids=[s.player_id for s in seats])
        _open_next(table, ended=hand)
        return hand


def _open_next(table: Table, *, ended: Hand | None = None) -> Hand | None:
    """Open the (locked) table's next hand if anybody sits and none is live: none is when
    ``ended``, the live hand, just ended (a table has one at most: a unique index)."""
    if table.is_open and table.seats.exists() and (ended is not None or _live_hand(table) is None):
        return hand_open(table=table)
    return None


# --- configuration by managers: validated, audited, never under a hand in play -------------
#
# Every change below runs in one transaction with its audit entry (who, when, before,
# after). Bad input is refused with a stable code before anything is written. The rules a
# hand plays by (limits, pay table, jackpot chip) are copied into the hand when it opens,
# so a change never reaches a hand in play: the table's tier, pay table, pool and timeout
# rule cannot change while its live hand holds a bet, and a live hand that holds none
# yet takes the new rules at once.

TIER_NAME_MAX = 60
TABLE_NAME_MAX = 80
PAYTABLE_NAME_MAX = 40
MAX_ODDS = 1000
# Inclusive bounds of the time bank and the sit-out rule, per field.
TIMEBANK_LIMITS = {
    "bet_seconds": (3, 600),
    "decision_seconds": (3, 600),
    "extension_seconds": (0, 600),
    "sit_out_limit": (1, 100),
}
PAIR_TIMEOUT_ACTIONS = ("fold", "raise")
TABLE_FIELDS = frozenset({"name", "tier", "paytable", "pool", "pair_timeout_action", *TIMEBANK_LIMITS})
# Fields that change how a hand is played: they wait until the live hand is over.
TABLE_RULE_FIELDS = frozenset({"tier", "paytable", "pool", "pair_timeout_action"})


def _required(value, field: str) -> None:
    if value is None:
        raise ValidationError(f"{field} is required.", code="field_required", extra={"field": field})


def config_name(value, *, field: str = "name", max_length: int) -> str:
    """A display name: text, spaces collapsed, 1 to ``max_length`` characters."""
    _required(value, field)
    if not isinstance(value, str):
        raise ValidationError(f"{field} must be text.", code="field_invalid", extra={"field": field})
    name = " ".join(value.split())
    if not name:
        raise ValidationError(f"{field} must not be blank.", code="field_required", extra={"field": field})
    if len(name) > max_length:
        raise ValidationError(
            f"{field} is at most {max_length} characters.",
            code="value_too_long",
            extra={"field": field, "max_length": max_length},
        )
    return name


def config_int(value, *, field: str, low: int, high: int) -> int:
    """A whole number within ``low..high`` (not a bool, not a string, not a float)."""
    _required(value, field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(f"{field} must be a whole number.", code="field_invalid", extra={"field": field})
    if not low <= value <= high:
        raise ValidationError(
            f"{field} must be between {low} and {high}.",
            code="value_out_of_range",
            extra={"field": field, "min": low, "max": high},
        )
    return value


def config_cents(value, *, field: str) -> int:
    """A positive amount in int cents (the API and forms parse text with ``casino.money.to_cents``)."""
    _required(value, field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(f"{field} must be an amount in cents.", code="amount_invalid", extra={"field": field})
    if value <= 0:
        raise ValidationError(f"{field} must be more than zero.", code="amount_not_positive", extra={"field": field})
    if value > MAX_AMOUNT_CENTS:
        raise ValidationError(f"{field} is too large.", code="amount_too_large", extra={"field": field})
    return value


def config_changes(changes, allowed: frozenset[str] | set[str]) -> dict:
    """The fields of an update: a mapping, known fields only, at least one."""
    if not isinstance(changes, Mapping):
        raise ValidationError("The changes must be an object of fields.", code="field_invalid", extra={"field": "body"})
    unknown = sorted(str(key) for key in set(changes) - set(allowed))
    if unknown:
        raise ValidationError(
            f"Unknown field(s): {', '.join(unknown)}.",
            code="unknown_field",
            extra={"fields": unknown, "allowed": sorted(allowed)},
        )
    if not changes:
        raise ValidationError("Nothing to change: name at least one field.", code="nothing_to_change")
    return dict(changes)


def _config_get(model, pk, *, field: str, code: str, what: str, lock: bool = False):
    _required(pk, field)
    if isinstance(pk, bool) or not isinstance(pk, int):
        raise ValidationError(f"{field} must be the id of a {what}.", code="field_invalid", extra={"field": field})
    query = model.objects.select_for_update(of=("self",)) if lock else model.objects
    obj = query.filter(pk=pk).first()
    if obj is None:
        raise NotFound(f"No such {what}.", code=code, extra={"field": field, "id": pk})
    return obj


def _timebank(values: Mapping) -> dict:
    cleaned = {}
    for field, (low, high) in TIMEBANK_LIMITS.items():
        if field in values:
            cleaned[field] = config_int(values[field], field=field, low=low, high=high)
    if "pair_timeout_action" in values:
        action = values["pair_timeout_action"]
        _required(action, "pair_timeout_action")
        if action not in PAIR_TIMEOUT_ACTIONS:
            raise ValidationError(
                "pair_timeout_action is 'fold' or 'raise'.",
                code="field_invalid",
                extra={"field": "pair_timeout_action", "choices": list(PAIR_TIMEOUT_ACTIONS)},
            )
        cleaned["pair_timeout_action"] = action
    return cleaned


def _name_free(model, name: str, *, exclude_pk=None, account_code: str | None = None) -> None:
    taken = model.objects.filter(name=name).exclude(pk=exclude_pk).exists()
    if not taken and account_code is not None:
        taken = Account.objects.filter(code=account_code).exists()  # a renamed one's accounts keep the old name
    if taken:
        raise Conflict(f"The name {name!r} is already taken.", code="name_taken", extra={"field": "name"})


def _has_bets(hand: Hand) -> bool:
    return hand.hand_seats.exists()


def _refresh_open_hand(table: Table) -> Hand | None:
    """Give a (locked) table's live hand the table's current rules, if nobody has bet yet."""
    hand = table.hands.select_for_update().filter(state=Hand.State.BETTING).first()
    if hand is None or _has_bets(hand):
        return None
    _table_rules(table)
    hand.paytable_name = table.paytable.name
    hand.paytable_data = table.paytable.data
    hand.min_ante = table.tier.min_ante
    hand.max_ante = table.tier.max_ante
    hand.jackpot_bet_amount = table.pool.bet_amount
    hand.jackpot_rules = PoolRules.of_pool(table.pool).to_dict()
    _touch(hand, "paytable_name", "paytable_data", "min_ante", "max_ante", "jackpot_bet_amount", "jackpot_rules")
    events.hand_opened(hand)  # the table hears the new limits
    return hand


def _refresh_tables(tables) -> None:
    for table_id in sorted(t.pk for t in tables):
        _refresh_open_hand(_lock_table(table_id))


def tier_create(*, actor, name, min_ante, max_ante) -> LimitTier:
    name = config_name(name, max_length=TIER_NAME_MAX)
    min_ante = config_cents(min_ante, field="min_ante")
    max_ante = config_cents(max_ante, field="max_ante")
    _tier_bounds(min_ante, max_ante)
    with db_transaction.atomic():
        _name_free(LimitTier, name)
        tier = LimitTier.objects.create(name=name, min_ante=min_ante, max_ante=max_ante)
        audit_record(actor=actor, action="tier.create", obj=tier, before=None, after=snapshot(tier))
        return tier


def _tier_bounds(min_ante: int, max_ante: int) -> None:
    if min_ante > max_ante:
        raise ValidationError(
            "The minimum ante must not be above the maximum.",
            code="tier_invalid",
            extra={"min_ante": format_cents(min_ante), "max_ante": format_cents(max_ante)},
        )


def tier_update(*, actor, tier_id: int, changes: Mapping) -> LimitTier:
    """Rename a tier or move its ante bounds; its tables' next hands (and empty live ones) use them."""
    changes = config_changes(changes, {"name", "min_ante", "max_ante"})
    cleaned = {}
    if "name" in changes:
        cleaned["name"] = config_name(changes["name"], max_length=TIER_NAME_MAX)
    for field in ("min_ante", "max_ante"):
        if field in changes:
            cleaned[field] = config_cents(changes[field], field=field)
    with _step():
        tier = _config_get(LimitTier, tier_id, field="tier", code="tier_not_found", what="limit tier", lock=True)
        before = snapshot(tier)
        for field, value in cleaned.items():
            setattr(tier, field, value)
        _tier_bounds(tier.min_ante, tier.max_ante)
        if "name" in cleaned:
            _name_free(LimitTier, tier.name, exclude_pk=tier.pk)
        after = snapshot(tier)
        if after == before:
            return tier
        tier.save()
        audit_record(actor=actor, action="tier.update", obj=tier, before=before, after=after)
        if (before["min_ante"], before["max_ante"]) != (tier.min_ante, tier.max_ante):
            _refresh_tables(tier.tables.all())
        return tier


def _core_paytable(name: str, qualified, not_qualified) -> CorePayTable:
    for field, column in (("qualified", qualified), ("not_qualified", not_qualified)):
        _required(column, field)
        if not isinstance(column, Mapping):
            raise ValidationError(
                f"{field} must be an object of hand categories to odds.", code="field_invalid", extra={"field": field}
            )
        for key, odds in column.items():
            if isinstance(odds, int) and not isinstance(odds, bool) and odds > MAX_ODDS:
                raise ValidationError(
                    f"{field}: {key} pays {odds} to 1, more than {MAX_ODDS} to 1.",
                    code="value_out_of_range",
                    extra={"field": field, "category": str(key), "min": 0, "max": MAX_ODDS},
                )
    try:
        return CorePayTable.from_dict({"name": name, "qualified": dict(qualified), "not_qualified": dict(not_qualified)})
    except ValueError as exc:
        raise ValidationError(
            f"{exc}. Odds are whole numbers 'N to 1' (so every payout is whole cents), and a higher hand never pays less.",
            code="paytable_invalid",
        ) from None


def paytable_create(*, actor, name, qualified, not_qualified) -> PayTable:
    """A new pay table: odds "N to 1" per hand category, validated by the game core."""
    name = config_name(name, max_length=PAYTABLE_NAME_MAX)
    core = _core_paytable(name, qualified, not_qualified)
    with db_transaction.atomic():
        _name_free(PayTable, name)
        paytable = PayTable.objects.create(name=name, data=core.to_dict())
        audit_record(actor=actor, action="paytable.create", obj=paytable, before=None, after=snapshot(paytable))
        return paytable


def paytable_update(*, actor, paytable_id: int, changes: Mapping) -> PayTable:
    """Change a pay table; its tables' next hands (and empty live ones) pay by it."""
    changes = config_changes(changes, {"name", "qualified", "not_qualified"})
    with _step():
        paytable = _config_get(PayTable, paytable_id, field="paytable", code="paytable_not_found", what="pay table", lock=True)
        before = snapshot(paytable)
        name = config_name(changes["name"], max_length=PAYTABLE_NAME_MAX) if "name" in changes else paytable.name
        columns = {column: changes.get(column, paytable.data[column]) for column in ("qualified", "not_qualified")}
        core = _core_paytable(name, columns["qualified"], columns["not_qualified"])
        if name != paytable.name:
            _name_free(PayTable, name, exclude_pk=paytable.pk)
        paytable.name = name
        paytable.data = core.to_dict()
        after = snapshot(paytable)
        if after == before:
            return paytable
        paytable.save(update_fields=["name", "data"])
        audit_record(actor=actor, action="paytable.update", obj=paytable, before=before, after=after)
        _refresh_tables(paytable.tables.all())
        return paytable


def table_add(*, actor, name, tier_id, paytable_id, pool_id, timebank: Mapping | None = None) -> Table:
    """A new table (open), with its house account; time bank defaults from SPEC A4."""
    name = config_name(name, max_length=TABLE_NAME_MAX)
    if timebank:
        timebank = config_changes(timebank, {"pair_timeout_action", *TIMEBANK_LIMITS})
    options = _timebank(timebank or {})
    with db_transaction.atomic():
        tier = _config_get(LimitTier, tier_id, field="tier", code="tier_not_found", what="limit tier")
        paytable = _config_get(PayTable, paytable_id, field="paytable", code="paytable_not_found", what="pay table")
        pool = _config_get(JackpotPool, pool_id, field="pool", code="pool_not_found", what="jackpot pool")
        _name_free(Table, name, account_code=f"house:table:{name}")
        table = table_create(name=name, tier=tier, paytable=paytable, pool=pool)
        if options:
            for field, value in options.items():
                setattr(table, field, value)
            table.save(update_fields=list(options))
        audit_record(actor=actor, action="table.create", obj=table, before=None, after=snapshot(table))
        return table


def table_update(*, actor, table_id: int, changes: Mapping) -> Table:
    """Change a table. Tier, pay table, pool and the timeout rule wait for the live hand.

    While the live hand holds a bet those are refused (``hand_in_progress``); a live hand
    without bets takes them at once. The name and the timers may change at any time: a
    timer applies from the next deadline set.
    """
    changes = config_changes(changes, TABLE_FIELDS)
    cleaned = _timebank(changes)
    if "name" in changes:
        cleaned["name"] = config_name(changes["name"], max_length=TABLE_NAME_MAX)
    with _step():
        table = _lock_table(table_id)
        lookups = {
            "tier": (LimitTier, "tier_not_found", "limit tier"),
            "paytable": (PayTable, "paytable_not_found", "pay table"),
            "pool": (JackpotPool, "pool_not_found", "jackpot pool"),
        }
        for field, (model, code, what) in lookups.items():
            if field in changes:
                cleaned[field] = _config_get(model, changes[field], field=field, code=code, what=what)
        before = snapshot(table)
        for field, value in cleaned.items():
            setattr(table, field, value)
        after = snapshot(table)
        changed = sorted(field for field in after if after[field] != before[field])
        if not changed:
            return table
        if "name" in changed:
            _name_free(Table, table.name, exclude_pk=table.pk)
        if TABLE_RULE_FIELDS & set(changed):
            hand = _live_hand(table)
            if hand is not None and _has_bets(hand):
                raise Conflict(
                    "A hand is in play at this table: its tier, pay table, pool and timeout rule can change "
                    "when the hand is over.",
                    code="hand_in_progress",
                    extra={"hand": hand.pk, "fields": sorted(TABLE_RULE_FIELDS & set(changed))},
                )
        table.save(update_fields=changed)
        audit_record(actor=actor, action="table.update", obj=table, before=before, after=after)
        if TABLE_RULE_FIELDS & set(changed):
            _refresh_open_hand(table)
        return table


def table_open(*, actor, table_id: int) -> Table:
    """Open a table for play (again); players still seated get a hand at once."""
    with _step():
        table = _lock_table(table_id)
        if table.is_open:
            return table
        before = snapshot(table)
        table.is_open = True
        table.save(update_fields=["is_open"])
        audit_record(actor=actor, action="table.open", obj=table, before=before, after=snapshot(table))
        _open_next(table)
        return table


def table_close(*, actor, table_id: int) -> Table:
    """Close a table: no new seat, no new hand. A hand in play is played to its end.

    A live hand with bets goes on (its betting window and time bank run as usual) and is
    the table's last; one without bets is cancelled now and the seated players stand up.
    Closing a closed table again stands up anyone still seated once its last hand is over.
    """
    with _step():
        table = _lock_table(table_id)
        before = snapshot(table)
        was_open = table.is_open
        if was_open:
            table.is_open = False
            table.save(update_fields=["is_open"])
        hand = _live_hand(table)
        if hand is not None and not _has_bets(hand):
            hand_cancel(hand_id=hand.pk, reason="table closed", actor=actor)
            hand = None
        stood_up = []
        if hand is None:
            for seat in table.seats.order_by("number"):
                stood_up.append(seat.number)
                seat.delete()
                events.seat_changed(table, seat.number)
        table.hand_in_progress = hand.pk if hand is not None else None
        if was_open or stood_up:
            after = snapshot(table) | {"hand_in_progress": table.hand_in_progress, "stood_up": stood_up}
            audit_record(actor=actor, action="table.close", obj=table, before=before, after=after)
        return table
