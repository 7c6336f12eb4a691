"""The poker room's writes: tables, seats and their money, hands, time-outs, cancellations.

Money (SPEC B1). A player's chips at a table are the balance of their ``poker_stack``
ledger account for that table (one per player and table; the database keeps it at or
above zero, and ``PokerSeat.stack`` mirrors it in the same transaction). The buy-in, a
top-up and the cash-out move wallet <-> stack, each one idempotent ledger transaction.

Design of the money in play: **kept in the hand, posted at its end.** The antes and bets
of a hand are the hand's stored actions; they leave nobody's account while the hand
runs. When the hand ends, ONE transaction (key ``poker:hand:<id>:settle``) moves each
player's result (final stack minus starting stack: awards less what they put in) between
the stack accounts and the rake to the table's house rake account. So a crash in the
middle of a hand loses nothing and pays nothing twice: nothing was posted yet, and the
hand's state is rebuilt from its seeds and actions (``poker.replay``).

A player whose time-out rule fires is **sat out** from the next hand on (auto-ante off,
``sitting_out`` in the snapshot) until they sit in again (``poker_sit_in``, "I'm back"); a
seat sat out for ``SIT_OUT_LIMIT`` hands in a row is stood up and cashed out, and a table
with fewer than two players ready deals no hand, so absent players never keep it dealing.

Crash safety: **a hand resumes** after a restart from its stored state and actions: the
deadline sweeper (``casino.live.deadlines``, game ``"poker"``) finds a player's passed
deadline in the ``decision_deadline`` column and applies the time-out rule of SPEC B3,
so the hand goes on. **A hand stuck** (no step for ``POKER_HAND_STUCK_SECONDS``, default
300 s, far beyond the longest turn of 10 s + a 60 s time bank) **is cancelled**
(``poker_hand_cancel``): every chip put in is returned to its owner's stack, which, by
the design above, means that nothing is posted at all; the hand is kept as cancelled.

Lock order, the Caribbean tables' own: the table row, then the hand row, then (a time-out's)
the player's all-in allowance row (``poker.locks``), then the money (every player's wallet
and money in play plus the table's stack and rake accounts in one statement, by primary
key; ``wallets.locks.player_accounts_lock``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from dataclasses import replace as dc_replace
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from casino.access import policy
from casino.audit import audit_record
from casino.cents import format_cents
from casino.game import fair
from casino.http.errors import (
    ApplicationError,
    Conflict,
    Detailed,
    NotFound,
    Translated,
    ValidationError,
    reason_of,
)
from casino.http.validation import has_unseen_characters
from casino.live import deadlines, outbox, seating
from casino.money import money as money_text
from casino.stud import evaluate, games
from casino.stud.engine import (
    ACTION_KINDS,
    TIMEOUT_KINDS,
    Action,
    HandState,
    SeatIn,
    StudError,
    apply,
    cents,
    hand_record,
    start_hand,
)
from poker import replay
from poker.locks import allowance_lock
from poker.models import PokerAllowance, PokerHand, PokerHandPlayer, PokerSeat, PokerTable, PokerWaiting
from poker.selectors import poker_hand_public
from wallets import responsible
from wallets.locks import PlayerAccounts, player_accounts_lock
from wallets.models import Account, PlayerProtection, Transaction
from wallets.services import account_get_or_create, ledger_post, player_accounts_ensure

log = logging.getLogger(__name__)

GROUPS = outbox.Groups("poker")
SIT_OUT_LIMIT = 20  # hands sat out in a row before a player is stood up (SPEC B1)
HAND_PAUSE = timedelta(seconds=3)  # between a hand's end and the next one's start
TIME_BANK_REFILL_MS = 5_000  # every TIME_BANK_REFILL_EVERY hands dealt (SPEC B3)
TIME_BANK_REFILL_EVERY = 10
TIME_BANK_MAX_MS = 60_000
ALLOWANCE_EVERY = timedelta(hours=24)
PLAYER_ACTIONS = ACTION_KINDS - TIMEOUT_KINDS
SIZED = frozenset({"complete", "bet", "raise"})
# The boxes a player may tick before their turn (``poker_preact``), in the page's order.
PREACTION_KINDS = ("check_fold", "check", "call", "call_any", "fold")
# Pre-actions ticked for one amount to call: cleared when that amount changes.
PREACTIONS_FOR_AN_AMOUNT = frozenset({"check", "call"})


def stuck_after() -> timedelta:
    return timedelta(seconds=getattr(settings, "POKER_HAND_STUCK_SECONDS", 300))


@contextmanager
def _step():
    """One write: a transaction whose events are sent only after it commits. The stud
    evaluator's tables are built before it (once a process), not under its locks."""
    evaluate.prepare()
    with transaction.atomic(), outbox.outbox():
        yield


# --------------------------------------------------------------------------- locks and reads


def _live_hands(table_id: int):
    """The table's live hand (one at most: ``poker_hand_one_live_per_table``)."""
    return PokerHand.objects.filter(table_id=table_id, state=PokerHand.State.LIVE).order_by()


# What a step that does not end the hand changes in its row besides its ``version``
# (``updated_at``: the stuck-hand rule's clock).
_STEP_FIELDS = ["actions", "preactions", "to_act", "turn_started_at", "decision_deadline", "updated_at"]


def _lock_table(table_id) -> PokerTable:
    if isinstance(table_id, bool) or not isinstance(table_id, int):
        raise NotFound("No such poker table.", code="table_not_found")
    table = PokerTable.objects.select_for_update().filter(pk=table_id).order_by().first()
    if table is None:
        raise NotFound("No such poker table.", code="table_not_found")
    return table


def _live_hand(table: PokerTable) -> PokerHand | None:
    return _live_hands(table.pk).select_for_update().first()


def _seat_of(table: PokerTable, user) -> PokerSeat:
    seat = table.seats.filter(player=user).first()
    if seat is None:
        raise Conflict("You do not sit at this table.", code="not_seated")
    return seat


def _dealt_in(hand: PokerHand | None, user_id: int) -> bool:
    return hand is not None and any(s["user_id"] == user_id for s in hand.seats)


def _lock_money(*, player_ids: Iterable[int], account_ids: Iterable[int]) -> PlayerAccounts:
    return player_accounts_lock(player_ids=set(player_ids), account_ids=list(account_ids))


def _stack_account(table: PokerTable, user) -> Account:
    return account_get_or_create(
        code=f"poker_stack:{table.pk}:{user.pk}",
        kind=Account.Kind.POKER_STACK,
        name=f"Chips of {user.get_username()} at {table.name}",
        owner=user,
    )


# --------------------------------------------------------------------------- events


def _hand_public(state: HandState, events: list[dict]) -> list[dict]:
    """The engine's events without anything hidden: others' down cards, burns, mucked hands."""
    out = []
    for e in events:
        t = e["type"]
        if t == "deal" and not e["up"]:
            e = {**e, "card": None}
        elif t == "burn":
            e = {**e, "card": None}
        elif t == "showdown":
            e = {**e, "hands": [h if h["shown"] else {"seat": h["seat"], "shown": False} for h in e["hands"]]}
        out.append(e)
    return out


def _publish_hand(
    hand: PokerHand,
    state: HandState,
    events: list[dict],
    *,
    nudge: Iterable[int],
    time_bank_ms: int | None = None,
) -> None:
    """The step's public event, enough for a page to draw the change without a snapshot: the
    engine's new events (hidden cards stripped) and the hand's public state after them
    (``public``: the hand, every seat's stack, bets and up cards, the legal actions of the
    player to act; at the hand's end, when its server seed is revealed to players, SPEC B4).
    A player's own new down cards only reach that player's own group as a nudge, answered by
    their consumer from a selector."""
    message = {
        "kind": "poker.hand",
        "table": hand.table_id,
        "hand": hand.pk,
        "version": hand.version,
        "state": hand.state,
        "to_act": state.to_act,
        "deadline": hand.decision_deadline.isoformat() if hand.decision_deadline else None,
        "events": _hand_public(state, events),
        "public": poker_hand_public(hand=hand, state=state, time_bank_ms=time_bank_ms),
    }
    outbox.send(GROUPS.table(hand.table_id), message)
    for user_id in sorted(set(nudge)):
        outbox.private_changed(GROUPS, player_id=user_id, hand_id=hand.pk, table_id=hand.table_id)


def _publish_seat(table: PokerTable, number: int, seat: PokerSeat | None) -> None:
    outbox.send(
        GROUPS.table(table.pk),
        {
            "kind": "poker.seat",
            "table": table.pk,
            "seat": number,
            "player": seat.player.get_username() if seat else None,
            "stack": format_cents(seat.stack) if seat else None,
            "sitting_out": seat.sitting_out if seat else None,
        },
    )
    if seat is not None:
        outbox.wallet_changed(GROUPS, player_id=seat.player_id)


def _publish_table(table: PokerTable, what: str) -> None:
    outbox.send(GROUPS.table(table.pk), {"kind": "poker.table", "table": table.pk, "what": what, "state": table.state})


# --------------------------------------------------------------------------- tables


def poker_table_create(
    *,
    name: str,
    game: str,
    preset: str | None = None,
    config: dict | None = None,
    max_seats: int = games.MAX_SEATS,
    actor,
) -> PokerTable:
    """A table from a SPEC B1 preset (``preset="2-4"``) or a manager-made config (validated),
    recorded in the audit log as ``actor``'s (``None``: the system, e.g. the demo tables)."""
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 80:
        raise ValidationError("A table needs a name of 1 to 80 characters.", code="name_invalid")
    name = " ".join(name.split())
    if has_unseen_characters(name):
        raise ValidationError("A table's name may not contain control or invisible characters.", code="name_invalid")
    if game not in games.GAMES:
        raise ValidationError(
            Translated(gettext("Unknown game; choose one of %(games)s.") % {"games": ", ".join(games.GAMES)}),
            code="game_invalid",
        )
    if isinstance(max_seats, bool) or not isinstance(max_seats, int) or not 2 <= max_seats <= games.MAX_SEATS:
        raise ValidationError(
            Translated(gettext("A table seats 2 to %(max)s players.") % {"max": games.MAX_SEATS}), code="seats_invalid"
        )
    if (preset is None) == (config is None):
        raise ValidationError("Give either a preset or a config.", code="config_invalid")
    if preset is not None:
        cfg = games.preset(game, preset)
        preset_key = f"{game}/{preset}"
    else:
        if not isinstance(config, dict):
            raise ValidationError("A config is an object.", code="config_invalid")
        _config_fields_check(config)
        try:
            cfg = replay.config_from_json({**config, "game": game, "table": config.get("table") or name})
        except StudError as exc:
            if exc.code == "config_invalid":
                raise
            raise ValidationError(
                Translated(gettext("The config is malformed: %(problem)s") % {"problem": exc.message}),
                code="config_invalid",
            ) from None
        except KeyError as exc:
            raise ValidationError(
                Translated(gettext("The config is malformed: it has no %(field)s.") % {"field": repr(exc.args[0])}),
                code="config_invalid",
            ) from None
        except (TypeError, ValueError, ArithmeticError, AttributeError) as exc:
            reason = exc.args[0] if exc.args else None
            if not isinstance(reason, Detailed):  # Python's own words: not the manager's reason
                raise ValidationError("The config is malformed.", code="config_invalid") from None
            raise ValidationError(
                Translated(gettext("The config is malformed: %(problem)s") % {"problem": reason_of(exc)}),
                code="config_invalid",
            ) from None
        preset_key = ""
    cfg = dc_replace(cfg, max_seats=max_seats)
    cfg.validate()
    with _step():
        if PokerTable.objects.filter(name__iexact=name).exists():  # "SOKO 2-4" beside "soko 2-4" reads the same
            raise Conflict("A poker table of this name exists.", code="table_name_taken")
        rake = account_get_or_create(
            code=f"poker_rake:{uuid.uuid4().hex[:16]}", kind=Account.Kind.HOUSE, name=f"Poker rake, {name}"
        )
        table = PokerTable.objects.create(
            name=name,
            game=game,
            preset=preset_key,
            config=replay.config_to_json(cfg),
            max_seats=max_seats,
            rake_account=rake,
        )
        audit_record(actor=actor, action="poker_table.create", obj=table, before=None, after=_audit_snapshot(table))
        _publish_table(table, "created")
        return table


def _audit_snapshot(table: PokerTable) -> dict:
    """What the audit log keeps of a poker table: its name, game, SPEC B1 preset (empty for a
    manager-made config), seats, state and rake rule."""
    return {
        "name": table.name,
        "game": table.game,
        "preset": table.preset,
        "max_seats": table.max_seats,
        "state": table.state,
        "rake_rule": dict(table.config.get("rake_rule") or {}),
    }


# A manager's config, field by field: what each field needs ("limit" and "rake_rule" are
# objects of their own fields; "limit.type" says which of the limit's fields it has).
_CONFIG_FIELDS = {
    "limit": "object",
    "rake_rule": "object",
    "buy_in": "amount",
    "ante": "amount",
    "bring_in": "amount",
    "bring_in_rule": "text",
    "max_seats": "whole",
    "table": "text",
}
_LIMIT_FIELDS = {
    "fixed": {"small_bet": "amount", "big_bet": "amount"},
    "spread": {"min_bet": "amount", "max_bet": "amount", "unit": "amount"},
}
_RAKE_FIELDS = {"percent": "percent", "cap": "amount", "no_first_round": "yes_no"}


def _config_fields_check(config: dict) -> None:
    """Refuse a manager's config with a field of the wrong type (``config_invalid``), naming
    the field and what it needs, before the engine reads it (Python's own words would be
    English); a missing field is named when the engine misses it."""
    _fields_check(config, _CONFIG_FIELDS, "")
    limit = config.get("limit")
    if isinstance(limit, dict):
        kind = limit.get("type")
        if kind not in _LIMIT_FIELDS:
            raise ValidationError(
                Detailed(gettext_noop("The config's %(field)s is 'fixed' or 'spread'."), field="limit.type"),
                code="config_invalid",
            )
        _fields_check(limit, _LIMIT_FIELDS[kind], "limit.")
    if isinstance(config.get("rake_rule"), dict):
        _fields_check(config["rake_rule"], _RAKE_FIELDS, "rake_rule.")


def _fields_check(data: dict, needs: dict[str, str], prefix: str) -> None:
    for key, need in needs.items():
        if key in data and not _is_a(data[key], need):
            raise _field_refused(prefix + key, need)


def _is_a(value, need: str) -> bool:
    if need == "object":
        return isinstance(value, dict)
    if need == "text":
        return isinstance(value, str)
    if need == "yes_no":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        return False
    if need == "whole":
        return isinstance(value, int)
    try:
        number = Decimal(str(value).strip())
    except ArithmeticError:
        return False
    if not number.is_finite():
        return False
    return need == "percent" or number * 100 == (number * 100).to_integral_value()


def _field_refused(field: str, need: str) -> ValidationError:
    """A config's ``field`` that is not what it ``need``s, said in the reader's language."""
    if need == "object":
        reason = Detailed(gettext_noop("The config's %(field)s must be an object of its own settings."), field=field)
    elif need == "amount":
        reason = Detailed(
            gettext_noop('The config\'s %(field)s must be an amount in whole cents, such as "1.50".'), field=field
        )
    elif need == "percent":
        reason = Detailed(gettext_noop('The config\'s %(field)s must be a percentage, such as "5".'), field=field)
    elif need == "whole":
        reason = Detailed(gettext_noop("The config's %(field)s must be a whole number."), field=field)
    elif need == "yes_no":
        reason = Detailed(gettext_noop("The config's %(field)s must be true or false."), field=field)
    else:
        reason = Detailed(gettext_noop("The config's %(field)s must be a text."), field=field)
    return ValidationError(reason, code="config_invalid")


def poker_table_open(*, actor, table_id: int) -> PokerTable:
    """Open a table (again), recorded in the audit log as ``actor``'s; an open table stays as it is."""
    with _step():
        table = _lock_table(table_id)
        if not table.is_open:
            before = _audit_snapshot(table)
            table.state = PokerTable.State.OPEN
            table.save(update_fields=["state"])
            audit_record(actor=actor, action="poker_table.open", obj=table, before=before, after=_audit_snapshot(table))
            _publish_table(table, "opened")
            _maybe_start(table)
        return table


def poker_table_close(*, actor, table_id: int) -> PokerTable:
    """No new hand starts; a live hand plays to its end; players leave when they like.
    Recorded in the audit log as ``actor``'s; a closed table stays as it is."""
    with _step():
        table = _lock_table(table_id)
        if table.is_open:
            before = _audit_snapshot(table)
            table.state = PokerTable.State.CLOSED
            table.next_hand_at = None
            table.save(update_fields=["state", "next_hand_at"])
            audit_record(
                actor=actor, action="poker_table.close", obj=table, before=before, after=_audit_snapshot(table)
            )
            _publish_table(table, "closed")
        return table


# --------------------------------------------------------------------------- seats and money


def _check_amount(amount, needed: int) -> None:
    if amount is None:
        return
    if isinstance(amount, bool) or not isinstance(amount, int) or amount != needed:
        raise ValidationError(
            Translated(gettext("The amount is exactly %(amount)s here.") % {"amount": money_text(needed)}),
            code="wrong_buy_in",
            extra={"amount": format_cents(needed)},
        )


def poker_sit(
    *,
    user,
    table_id: int,
    seat_number: int | None = None,
    client_seed: str | None = None,
    amount: int | None = None,
    waits_for_company: bool = False,
) -> PokerSeat:
    """Take a seat with exactly the table's buy-in, moved from the wallet to the stack.

    ``waits_for_company``: a demo regular's seat (``PokerSeat.waits_for_company``)."""
    policy.require(user, "play")
    seating.sit_request_check(client_seed=client_seed, seat_number=seat_number, max_seats=games.MAX_SEATS)
    responsible.guard_play(player=user)
    player_accounts_ensure(user=user)
    with _step():
        table = _lock_table(table_id)
        if not table.is_open:
            raise Conflict("This table is closed.", code="table_closed")
        buy_in = replay.table_config(table).buy_in
        _check_amount(amount, buy_in)
        taken = dict(table.seats.values_list("number", "player_id"))
        free = seating.free_seats(
            taken=taken,
            player_id=user.pk,
            seats=table.max_seats,
            full=gettext_noop("Every seat is taken; join the waiting list."),
        )
        first_waiting = table.waiting.order_by("created_at", "id").values_list("player_id", flat=True).first()
        if first_waiting is not None and first_waiting != user.pk:
            raise Conflict("Players are waiting for a seat here; join the waiting list.", code="waiting_list")
        seat_number = seating.seat_choose(seat_number=seat_number, taken=taken, free=free, seats=table.max_seats)
        account = _stack_account(table, user)
        money = _lock_money(player_ids=[user.pk], account_ids=[account.pk])
        account = money.by_id[account.pk]
        if account.balance != 0:  # a stack left behind would be bought in twice
            raise Conflict("Your chips at this table are still being cashed out.", code="stack_not_cashed_out")
        responsible.guard_stake(player=user, stake=buy_in)
        seat = PokerSeat.objects.create(
            table=table,
            number=seat_number,
            player=user,
            account=account,
            stack=buy_in,
            client_seed=client_seed or fair.new_client_seed(),
            time_bank_ms=table.time_bank_seconds * 1000,
            waits_for_company=waits_for_company,
        )
        ledger_post(
            kind=Transaction.Kind.POKER_BUY_IN,
            idempotency_key=f"poker:seat:{seat.pk}:buy_in",
            postings=[(money.wallet(user.pk), -buy_in), (account, buy_in)],
            memo=f"Buy-in at {table.name}, seat {seat_number}",
            table_ref=table.pk,
            game=Transaction.Game.POKER,
            locked=money.by_id,
        )
        PokerWaiting.objects.filter(table=table, player=user).delete()
        _publish_seat(table, seat_number, seat)
        _maybe_start(table)
        return seat


def poker_top_up(*, user, table_id: int, amount: int | None = None) -> PokerSeat:
    """Between hands: bring a stack below the buy-in back to exactly the buy-in."""
    policy.require(user, "play")
    responsible.guard_play(player=user)
    with _step():
        table = _lock_table(table_id)
        seat = _seat_of(table, user)
        if _dealt_in(_live_hand(table), user.pk):
            raise Conflict("Top up between hands.", code="hand_in_progress")
        buy_in = replay.table_config(table).buy_in
        needed = buy_in - seat.stack
        if needed <= 0:
            raise Conflict("Your stack is at the buy-in already.", code="stack_full")
        _check_amount(amount, needed)
        money = _lock_money(player_ids=[user.pk], account_ids=[seat.account_id])
        responsible.guard_stake(player=user, stake=needed)
        ledger_post(
            kind=Transaction.Kind.POKER_BUY_IN,
            idempotency_key=f"poker:seat:{seat.pk}:top_up:{table.next_nonce}",
            postings=[(money.wallet(user.pk), -needed), (money.by_id[seat.account_id], needed)],
            memo=f"Top-up at {table.name}, seat {seat.number}",
            table_ref=table.pk,
            game=Transaction.Game.POKER,
            locked=money.by_id,
        )
        seat.stack = buy_in
        seat.save(update_fields=["stack"])
        _publish_seat(table, seat.number, seat)
        _maybe_start(table)
        return seat


def _cash_out(table: PokerTable, seat: PokerSeat, money: PlayerAccounts, why: str) -> None:
    """The whole stack back to the wallet; the seat is freed (``money`` holds both accounts)."""
    account = money.by_id[seat.account_id]
    if account.balance != seat.stack:
        raise RuntimeError(
            f"poker seat {seat.pk}: stack {seat.stack} but account {account.code} holds {account.balance}"
        )
    if seat.stack:
        ledger_post(
            kind=Transaction.Kind.POKER_CASH_OUT,
            idempotency_key=f"poker:seat:{seat.pk}:cash_out",
            postings=[(account, -seat.stack), (money.wallet(seat.player_id), seat.stack)],
            memo=f"Cash-out at {table.name}, seat {seat.number} ({why})",
            table_ref=table.pk,
            game=Transaction.Game.POKER,
            locked=money.by_id,
        )
    number = seat.number
    seat.delete()
    _publish_seat(table, number, None)
    outbox.wallet_changed(GROUPS, player_id=seat.player_id)
    table_id = table.pk
    transaction.on_commit(lambda: _promote_quietly(table_id))


def _promote_quietly(table_id: int) -> None:
    try:
        poker_waitlist_promote(table_id=table_id)
    except Exception:  # the next free seat tries again
        log.exception("promoting the waiting list of poker table %s failed", table_id)


def poker_leave(*, user, table_id: int) -> PokerSeat | None:
    """Stand up and cash out the whole stack; dealt into the live hand: at that hand's end.

    Returns ``None`` when the seat is freed now, or the seat (``leave_after_hand``) when the
    cash-out waits for the hand.
    """
    with _step():
        table = _lock_table(table_id)
        seat = _seat_of(table, user)
        if _dealt_in(_live_hand(table), user.pk):
            if not seat.leave_after_hand:
                seat.leave_after_hand = True
                seat.save(update_fields=["leave_after_hand"])
            return seat
        money = _lock_money(player_ids=[user.pk], account_ids=[seat.account_id])
        _cash_out(table, seat, money, "left")
        return None


def poker_sit_out(*, user, table_id: int) -> PokerSeat:
    """Auto-ante off: not dealt into the next hands (the current one plays on)."""
    with _step():
        table = _lock_table(table_id)
        seat = _seat_of(table, user)
        if seat.auto_ante:
            seat.auto_ante = False
            seat.save(update_fields=["auto_ante"])
            _publish_seat(table, seat.number, seat)
        return seat


def poker_sit_in(*, user, table_id: int) -> PokerSeat:
    """Auto-ante on again: dealt into the next hand."""
    with _step():
        table = _lock_table(table_id)
        seat = _seat_of(table, user)
        if not seat.auto_ante or seat.leave_after_hand:
            seat.auto_ante = True
            seat.hands_sat_out = 0
            seat.leave_after_hand = False
            seat.save(update_fields=["auto_ante", "hands_sat_out", "leave_after_hand"])
            _publish_seat(table, seat.number, seat)
        _maybe_start(table)
        return seat


def poker_always_show(*, user, table_id: int, show: bool) -> PokerSeat:
    """Show a losing hand at showdown instead of mucking it (from the next hand; SPEC B4)."""
    if not isinstance(show, bool):
        raise ValidationError("Say yes or no.", code="invalid")
    with _step():
        table = _lock_table(table_id)
        seat = _seat_of(table, user)
        seat.always_show = show
        seat.save(update_fields=["always_show"])
        return seat


# --------------------------------------------------------------------------- waiting list


def poker_waitlist_join(*, user, table_id: int) -> PokerWaiting:
    responsible.guard_play(player=user)
    with _step():
        table = _lock_table(table_id)
        if not table.is_open:
            raise Conflict("This table is closed.", code="table_closed")
        if table.seats.filter(player=user).exists():
            raise Conflict("You already sit at this table.", code="already_seated")
        if table.seats.count() < table.max_seats and not table.waiting.exists():
            raise Conflict("A seat is free: take it.", code="seat_free")
        entry, _ = PokerWaiting.objects.get_or_create(table=table, player=user)
        _publish_table(table, "waiting_list")
        return entry


def poker_waitlist_leave(*, user, table_id: int) -> None:
    with _step():
        table = _lock_table(table_id)
        PokerWaiting.objects.filter(table=table, player=user).delete()
        _publish_table(table, "waiting_list")


def poker_waitlist_promote(*, table_id: int) -> PokerSeat | None:
    """Seat the first waiting player in a free seat (buy-in from their wallet).

    A player the buy-in is refused to (funds, limits, self-exclusion) leaves the list and
    the next one is tried. Runs after a seat is freed (on commit), in its own transaction.
    """
    while True:
        with _step():
            table = _lock_table(table_id)
            if not table.is_open or table.seats.count() >= table.max_seats:
                return None
            first = table.waiting.select_related("player").order_by("created_at", "id").first()
            if first is None:
                return None
            player = first.player
        try:
            return poker_sit(user=player, table_id=table_id)
        except ApplicationError as exc:  # StudError is one too
            if exc.code in ("table_full", "table_closed"):
                return None
            PokerWaiting.objects.filter(table_id=table_id, player=player).delete()


# --------------------------------------------------------------------------- hands


def _excluded(player_ids: list[int], now: datetime) -> set[int]:
    return set(
        PlayerProtection.objects.filter(player_id__in=player_ids, excluded_until__gt=now).values_list(
            "player_id", flat=True
        )
    )


def _stand_up(table: PokerTable, seats: list[PokerSeat], why: Callable[[PokerSeat], str]) -> None:
    """Cash these seats out (no hand is live at the table: the caller checked)."""
    if not seats:
        return
    money = _lock_money(player_ids=[s.player_id for s in seats], account_ids=[s.account_id for s in seats])
    for seat in seats:
        _cash_out(table, seat, money, why(seat))


def _ready(seats: list[PokerSeat], excluded: set[int]) -> list[PokerSeat]:
    """The seats a hand deals in: ante on, chips, not leaving, not excluded; demo regulars
    (``waits_for_company``) only beside a player who is not one."""
    ready = [s for s in seats if s.auto_ante and s.stack > 0 and not s.leave_after_hand and s.player_id not in excluded]
    return ready if any(not s.waits_for_company for s in ready) else []


def _maybe_start(table: PokerTable) -> PokerHand | None:
    """Start a hand now if none is live, the pause is over and two players can play.

    A self-excluded player is stood up and cashed out first, whether a hand can start or not
    (at a table of two, the hand that would stand them up never comes)."""
    now = timezone.now()
    if not table.is_open or (table.next_hand_at is not None and table.next_hand_at > now):
        return None
    if _live_hands(table.pk).exists():
        return None
    seats = list(table.seats.all())
    excluded = _excluded([s.player_id for s in seats], now)
    _stand_up(table, [s for s in seats if s.player_id in excluded], lambda seat: "self-excluded")
    if len(_ready(seats, excluded)) < 2:
        return None
    try:
        with transaction.atomic():
            return _start(table, now)
    except (Conflict, StudError):
        return None


def poker_hand_start(*, table_id: int, deck: list[int] | None = None) -> PokerHand:
    """Deal a hand: at least two players with chips, not sitting out (SPEC B1).

    Seats sitting out count another hand sat out (stood up and cashed out at 20). The
    server seed is drawn and its commitment stored before the antes are posted. ``deck``
    deals a fixed deck instead of the seeds' (tests only; the record says so).
    """
    with _step():
        table = _lock_table(table_id)
        return _start(table, timezone.now(), deck=deck)


def _start(table: PokerTable, now: datetime, *, deck: list[int] | None = None) -> PokerHand:
    if not table.is_open:
        raise Conflict("This table is closed.", code="table_closed")
    if _live_hand(table) is not None:
        raise Conflict("A hand is being played at this table.", code="hand_in_progress")
    config = replay.table_config(table)
    seats = list(table.seats.select_related("player").order_by("number"))
    excluded = _excluded([s.player_id for s in seats], now)
    ready = _ready(seats, excluded)
    if len(ready) < 2:
        raise Conflict("A hand starts with at least 2 players with chips.", code="not_enough_players")
    out = [s for s in seats if s not in ready]
    stand_up = []
    for seat in out:
        seat.hands_sat_out += 1
        if seat.hands_sat_out >= SIT_OUT_LIMIT or seat.player_id in excluded or seat.leave_after_hand:
            stand_up.append(seat)
        else:
            seat.save(update_fields=["hands_sat_out"])
    _stand_up(
        table,
        stand_up,
        lambda seat: (
            "self-excluded"
            if seat.player_id in excluded
            else ("left" if seat.leave_after_hand else f"sat out {SIT_OUT_LIMIT} hands")
        ),
    )
    # Each player's allowance row, for a time-out of this hand to lock (``_timeout_decided``).
    PokerAllowance.objects.bulk_create([PokerAllowance(player_id=s.player_id) for s in ready], ignore_conflicts=True)
    for seat in ready:
        seat.hands_sat_out = 0
        seat.hands_dealt += 1
        if seat.hands_dealt % TIME_BANK_REFILL_EVERY == 0:
            seat.time_bank_ms = min(TIME_BANK_MAX_MS, seat.time_bank_ms + TIME_BANK_REFILL_MS)
        seat.save(update_fields=["hands_sat_out", "hands_dealt", "time_bank_ms"])
    stored = [
        {
            "seat": s.number,
            "player": s.player.get_username(),
            "user_id": s.player_id,
            "stack": s.stack,
            "client_seed": s.client_seed,
            "always_show": s.always_show,
        }
        for s in ready
    ]
    server_seed = fair.new_server_seed()
    nonce = table.next_nonce
    state, events = start_hand(
        config=config,
        seats=[
            SeatIn(seat=s["seat"], player=s["player"], stack=s["stack"], client_seed=s["client_seed"]) for s in stored
        ],
        server_seed=server_seed,
        nonce=nonce,
        all_in_allowance={s["seat"]: False for s in stored},  # granted at the time-out, not here
        deck=deck,
        always_show=[s["seat"] for s in stored if s["always_show"]],
    )
    table.next_nonce = nonce + 1
    table.next_hand_at = None
    table.save(update_fields=["next_nonce", "next_hand_at"])
    hand = PokerHand.objects.create(
        table=table,
        number=nonce,
        server_seed=server_seed,
        commitment=state.commitment,
        client_seed=state.client_seed,
        seats=stored,
        actions=[],
        deck=list(deck) if deck is not None else None,
    )
    _after_step(
        table, hand, state, events, now, seats={s.number: s for s in ready}, nudge=[s["user_id"] for s in stored]
    )
    return hand


def _deadline_for(table: PokerTable, seat: PokerSeat, now: datetime) -> datetime:
    return now + timedelta(seconds=table.act_seconds, milliseconds=seat.time_bank_ms)


def _after_step(
    table: PokerTable,
    hand: PokerHand,
    state: HandState,
    events: list[dict],
    now: datetime,
    *,
    seats: dict[int, PokerSeat],
    nudge: Iterable[int],
) -> None:
    """Store what a step made: the next turn and its deadline, or the hand's end and its money.

    A player given the turn with a pre-action ticked (``poker_preact``) plays it here, at
    once and without their clock, when it is legal (``_preaction_move``); else it is cleared
    and the turn is theirs as usual. The turn is published first, as any turn, then the
    played action as its own step (version + 1): the table sees what it would see of a player
    who acted at once, nothing of the box. The next player's pre-action may follow, in order."""
    users = {s["seat"]: s["user_id"] for s in hand.seats}
    nudge = set(nudge)
    down_dealt: set[int] = set()
    while True:
        down_dealt |= {e["seat"] for e in events if e["type"] == "deal" and not e["up"]}
        nudge |= {users[n] for n in _preactions_stale(hand, state)}
        if state.is_over:
            break
        seat = seats.get(state.to_act) or table.seats.get(number=state.to_act)
        hand.to_act = state.to_act
        hand.turn_started_at = now
        hand.decision_deadline = _deadline_for(table, seat, now)
        entry = hand.preactions.pop(str(state.to_act), None)
        if entry is None:
            break
        nudge.add(users[state.to_act])  # their box is cleared: played, or not legal now
        move = _preaction_move(entry, state)
        if move is None:
            break
        _publish_hand(hand, state, events, nudge=(), time_bank_ms=seat.time_bank_ms)
        seat_number = state.to_act
        state, events = apply(state, seat_number, move)  # legal: _preaction_move read it from the state
        hand.actions = [*hand.actions, [seat_number, move.kind, move.to]]
        hand.version += 1
    if state.is_over:
        _settle(table, hand, state, now, seats=seats)
        nudge = {s["user_id"] for s in hand.seats}
        time_bank_ms = None
    else:
        hand.save_version(*_STEP_FIELDS)
        DEADLINES.schedule(hand.pk, hand.decision_deadline)
        # Only a player dealt a down card has a private change; whose turn it is and the
        # legal actions are public (in the event).
        nudge |= {users[n] for n in down_dealt}
        time_bank_ms = seat.time_bank_ms
    replay.remember(hand.pk, hand.version, state)
    _publish_hand(hand, state, events, nudge=nudge, time_bank_ms=time_bank_ms)


def _to_call(state: HandState, seat: int) -> int:
    """What ``seat`` has to put in to call the street's bet now (cents; 0: nothing)."""
    return max(0, state.level - state.player(seat).bet)


def _preactions_stale(hand: PokerHand, state: HandState) -> list[int]:
    """Clear the pre-actions that no longer hold (the seats whose box was cleared): every one
    at the hand's end; a player's who cannot act any more (folded, all in); one ticked on an
    earlier street (a box is for its betting round); and a check or a call ticked for an
    amount to call that has changed since (a bet or a raise came)."""
    cleared = []
    for key, entry in list(hand.preactions.items()):
        seat = int(key)
        player = state.player(seat)
        if (
            state.is_over
            or not player.can_act
            or entry["street"] != state.street
            or (entry["kind"] in PREACTIONS_FOR_AN_AMOUNT and _to_call(state, seat) != entry["call"])
        ):
            del hand.preactions[key]
            cleared.append(seat)
    return cleared


def _preaction_move(entry: dict, state: HandState) -> Action | None:
    """The action a pre-action plays for the player to act, or None when it is not legal now
    (the player then acts as usual). check/fold: a check if it is free, else a fold; check:
    a free check only; call: the call of exactly the amount it was ticked for; call any: the
    call of whatever is bet (a free check when nothing is, all in when the stack is short of
    the call); fold: a fold facing a bet (a free check is never folded, SPEC B3)."""
    legal = state.legal()
    allowed = legal.actions
    kind = entry["kind"]
    if kind == "check_fold":
        return Action("check") if "check" in allowed else Action("fold") if "fold" in allowed else None
    if kind == "check":
        return Action("check") if "check" in allowed else None
    if kind == "fold":
        return Action("fold") if "fold" in allowed else None
    if kind == "call" and legal.call_amount != entry["call"]:
        return None
    if legal.call_amount == 0:
        return Action("check") if kind == "call_any" and "check" in allowed else None
    if "call" in allowed:
        return Action("call")
    if "all_in" in allowed and legal.all_in_to is not None and legal.all_in_to <= state.level:
        return Action("all_in")  # the whole stack is less than the call: all in, calling what it can
    return None


def _settle(
    table: PokerTable,
    hand: PokerHand,
    state: HandState,
    now: datetime,
    *,
    seats: dict[int, PokerSeat],
) -> None:
    """The hand is over: post every player's result and the rake in ONE transaction.

    ``seats``: the table's seats as the step read them (under the table's lock); those
    dealt in are read again only if the step did not hold them all."""
    record = hand_record(state)
    dealt = [s["seat"] for s in hand.seats]
    if not all(n in seats for n in dealt):
        seats = {s.number: s for s in PokerSeat.objects.filter(table_id=table.pk)}
    seats = {n: seats[n] for n in dealt if n in seats}
    leaving = [s for s in seats.values() if s.leave_after_hand]
    money = _lock_money(
        player_ids=[s.player_id for s in seats.values()],
        account_ids=[s.account_id for s in seats.values()] + [table.rake_account_id],
    )
    net = state.net
    postings = [(money.by_id[seats[n].account_id], amount) for n, amount in sorted(net.items()) if amount]
    if state.rake:
        postings.append((money.by_id[table.rake_account_id], state.rake))
    if postings:
        ledger_post(
            kind=Transaction.Kind.POKER_HAND,
            idempotency_key=f"poker:hand:{hand.pk}:settle",
            postings=postings,
            memo=f"{table.name} hand {hand.number}: pots and rake",
            table_ref=table.pk,
            hand_ref=hand.pk,
            game=Transaction.Game.POKER,
            locked=money.by_id,
        )
    for number, amount in net.items():
        if amount:
            seats[number].stack += amount
    hand.state = PokerHand.State.ENDED
    hand.record = record
    hand.pot_total = sum(cents(p["amount"]) for p in record["pots"])
    hand.rake = state.rake
    hand.to_act = None
    hand.decision_deadline = None
    hand.ended_at = now
    hand.save_version(*_STEP_FIELDS, "state", "record", "pot_total", "rake", "ended_at")
    for number, amount in sorted(net.items()):
        if amount:
            seats[number].save(update_fields=["stack"])
    PokerHandPlayer.objects.bulk_create(
        [  # how a player's hands are found
            PokerHandPlayer(hand=hand, player_id=s["user_id"], seat=s["seat"], net=net.get(s["seat"], 0), ended_at=now)
            for s in hand.seats
        ]
    )
    for seat in leaving:
        _cash_out(table, seat, money, "left")
    _pause_before_next_hand(table, hand, now)


def _pause_before_next_hand(table: PokerTable, hand: PokerHand, now: datetime) -> None:
    """The next hand starts after ``HAND_PAUSE``: its deadline is this ended hand's (the
    countdown task on Celery, the sweeper everywhere)."""
    if table.is_open:
        table.next_hand_at = now + HAND_PAUSE
        table.save(update_fields=["next_hand_at"])
        DEADLINES.schedule(hand.pk, table.next_hand_at)


def _lock_hand(table_id: int, hand_id) -> tuple[PokerTable, PokerHand, dict[int, PokerSeat]]:
    """The table locked, then its hand locked, and its seats by number."""
    if isinstance(hand_id, bool) or not isinstance(hand_id, int):
        raise NotFound("No such hand.", code="hand_not_found")
    if isinstance(table_id, bool) or not isinstance(table_id, int):
        raise NotFound("No such poker table.", code="table_not_found")
    table = _lock_table(table_id)
    hand = PokerHand.objects.select_for_update().filter(pk=hand_id, table_id=table_id).order_by().first()
    if hand is None:
        raise NotFound("No such hand.", code="hand_not_found")
    hand.table = table
    return table, hand, {s.number: s for s in PokerSeat.objects.filter(table_id=table_id)}


def _timeout_decided(state: HandState, seat: PokerSeat, now: datetime) -> Action:
    """The time-out of ``seat``'s player (SPEC B3): facing a bet, all-in protection if the
    player's one allowance a day is left, else a fold. Decided now, under the lock of the
    player's allowance row (after the table's and the hand's), so that two tables timing
    the same player out at once grant it once (SPEC B4); the hand's state grants nothing
    by itself."""
    if "check" in state.legal().actions:
        return Action("timeout")
    allowance = allowance_lock(player_id=seat.player_id)
    if allowance.used_at is not None and allowance.used_at > now - ALLOWANCE_EVERY:
        return Action("timeout")  # spent in the last 24 hours, at this table or another: a fold
    allowance.used_at = now
    allowance.save(update_fields=["used_at"])
    return Action("timeout_all_in")


def _step_hand(
    table: PokerTable, hand: PokerHand, seats: dict[int, PokerSeat], seat_number: int, action: Action, now: datetime
) -> PokerHand:
    state = replay.hand_state(hand, replay.table_config(table))
    seat = seats[seat_number]
    if action.kind == "timeout":
        action = _timeout_decided(state, seat, now)
    new_state, events = apply(state, seat_number, action)  # StudError: refused, nothing changed
    before = (seat.time_bank_ms, seat.auto_ante)
    sat_out = False
    if action.kind in TIMEOUT_KINDS:
        # The player is not there: sat out from the next hand on (auto-ante off) until
        # "I'm back" (poker_sit_in); SIT_OUT_LIMIT hands out then stands them up.
        seat.time_bank_ms = 0
        sat_out = seat.auto_ante
        seat.auto_ante = False
    elif hand.turn_started_at is not None:
        over = (now - hand.turn_started_at) - timedelta(seconds=table.act_seconds)
        if over > timedelta(0):
            seat.time_bank_ms = max(0, seat.time_bank_ms - int(over.total_seconds() * 1000))
    if (seat.time_bank_ms, seat.auto_ante) != before:
        seat.save(update_fields=["time_bank_ms", "auto_ante"])
    if sat_out:
        _publish_seat(table, seat.number, seat)
    hand.actions = [*hand.actions, [seat_number, action.kind, action.to]]
    hand.version += 1
    # A time-out spends the player's time bank and maybe their allowance: their own view says so.
    _after_step(
        table, hand, new_state, events, now, seats=seats, nudge=[seat.player_id] if action.kind in TIMEOUT_KINDS else ()
    )
    return hand


def poker_act(*, user, table_id: int, hand_id: int, action: str, amount: int | None = None) -> PokerHand:
    """The player's action in the live hand: ``amount`` is the street total for complete/bet/raise.

    Refusals: ``not_in_hand``, ``hand_over``, the engine's own (``not_your_turn``, a wrong
    size, a raise past the cap, a check facing a bet, …); nothing changes on a refusal.
    """
    policy.require(user, "play")
    if not isinstance(action, str) or action not in PLAYER_ACTIONS:
        raise ValidationError(
            Translated(gettext("Unknown action; one of %(actions)s.") % {"actions": ", ".join(sorted(PLAYER_ACTIONS))}),
            code="action_invalid",
        )
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int) or amount < 0):
        raise ValidationError("An amount is a whole number of cents.", code="amount_invalid")
    if action in SIZED and amount is None:
        raise ValidationError(
            Translated(gettext("Say how much: %(action)s to what total.") % {"action": action}), code="amount_required"
        )
    with _step():
        table, hand, seats = _lock_hand(table_id, hand_id)
        if not hand.is_live:
            raise Conflict("This hand is over.", code="hand_over")
        seat_number = next((s["seat"] for s in hand.seats if s["user_id"] == user.pk), None)
        if seat_number is None:
            raise Conflict("You are not dealt into this hand.", code="not_in_hand")
        return _step_hand(table, hand, seats, seat_number, Action(action, amount), timezone.now())


def poker_preact(*, user, table_id: int, hand_id: int, kind: str | None, amount: int | None = None) -> dict | None:
    """Tick a box before your turn in the live hand (``kind``: one of ``PREACTION_KINDS``), or
    clear it (``None``). ``amount`` (cents) names the call of ``"call"``: it must be the amount
    to call now. Stored on the hand, so it holds whatever the connection does, and seen by
    this player alone (their ``you.preaction``); the step that gives them the turn plays it
    (``_after_step``). Returns the stored pre-action (``{"kind", "call", "street"}``) or None.

    Refusals, each changing nothing: ``kind_invalid``, ``amount_invalid``, ``amount_required``,
    ``hand_not_found`` (not this table's), ``hand_over``, ``not_in_hand``, ``folded``,
    ``all_in`` (nothing left to decide), ``your_turn`` (act instead), ``check_not_allowed``
    (facing a bet), ``fold_not_allowed`` (a check is free), ``nothing_to_call``,
    ``amount_changed`` (the bet moved on: ``extra.call_amount`` is the amount to call now).
    """
    policy.require(user, "play")
    if kind is not None and (not isinstance(kind, str) or kind not in PREACTION_KINDS):
        raise ValidationError(
            Translated(
                gettext("Unknown pre-action; one of %(kinds)s, or null to clear it.")
                % {"kinds": ", ".join(PREACTION_KINDS)}
            ),
            code="kind_invalid",
        )
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int) or amount < 0):
        raise ValidationError("An amount is a whole number of cents.", code="amount_invalid")
    if kind == "call" and amount is None:
        raise ValidationError("Say which amount you call.", code="amount_required")
    if kind != "call" and amount is not None:
        raise ValidationError("Only a call names an amount.", code="amount_invalid")
    with _step():
        table, hand, _ = _lock_hand(table_id, hand_id)
        if not hand.is_live:
            raise Conflict("This hand is over.", code="hand_over")
        seat_number = next((s["seat"] for s in hand.seats if s["user_id"] == user.pk), None)
        if seat_number is None:
            raise Conflict("You are not dealt into this hand.", code="not_in_hand")
        state = replay.hand_state(hand, replay.table_config(table))
        player = state.player(seat_number)
        if player.folded:
            raise Conflict("You folded this hand.", code="folded")
        if not player.can_act:
            raise Conflict("You are all in: there is nothing left to decide.", code="all_in")
        if state.to_act == seat_number:
            raise Conflict("It is your turn: act now.", code="your_turn")
        key = str(seat_number)
        entry = None
        if kind is None:
            changed = hand.preactions.pop(key, None) is not None
        else:
            to_call = _to_call(state, seat_number)
            if kind == "check" and to_call:
                raise Conflict("There is a bet to call; you cannot check.", code="check_not_allowed")
            if kind == "fold" and not to_call:
                raise Conflict(
                    "You may fold only when facing a bet; tick check/fold to fold if one comes.",
                    code="fold_not_allowed",
                )
            if kind == "call" and not to_call:
                raise Conflict("There is nothing to call.", code="nothing_to_call")
            if kind == "call" and amount != to_call:
                raise Conflict(
                    Translated(gettext("The amount to call is %(amount)s now.") % {"amount": money_text(to_call)}),
                    code="amount_changed",
                    extra={"call_amount": format_cents(to_call)},
                )
            entry = {"kind": kind, "call": to_call, "street": state.street}
            changed = hand.preactions.get(key) != entry
            hand.preactions[key] = entry
        if changed:
            hand.save(update_fields=["preactions"])
        # The player's own sockets read it back (``you.preaction``); the table hears nothing.
        outbox.private_changed(GROUPS, player_id=user.pk, hand_id=hand.pk, table_id=table.pk)
        return entry


def poker_timeout(*, hand_id: int, version: int, now: datetime | None = None) -> PokerHand | None:
    """SPEC B3's time-out for the player to act, once the deadline has passed.

    Stale (the hand moved on, or the deadline is not reached): nothing happens, ``None``.
    """
    now = now or timezone.now()
    found = PokerHand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
    if found is None:
        return None
    with _step():
        table, hand, seats = _lock_hand(found, hand_id)
        if not hand.is_live or hand.version != version or hand.to_act is None:
            return None
        if hand.decision_deadline is None or hand.decision_deadline > now:
            return None
        return _step_hand(table, hand, seats, hand.to_act, Action("timeout"), now)


def poker_hand_cancel(*, hand_id: int, reason: str) -> PokerHand:
    """Cancel a live hand: every chip put in goes back to its owner's stack.

    The antes and bets were never posted (they are posted at the hand's end), so the
    stacks are exactly as before the hand; the hand is kept, cancelled, with its reason.
    """
    found = PokerHand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
    if found is None:
        raise NotFound("No such hand.", code="hand_not_found")
    with _step():
        table, hand, _ = _lock_hand(found, hand_id)
        if hand.state == PokerHand.State.CANCELLED:
            return hand
        if hand.state != PokerHand.State.LIVE:
            raise Conflict("This hand is over; it was settled.", code="hand_over")
        now = timezone.now()
        try:
            hand.record = hand_record(replay.hand_state(hand, replay.table_config(table)))
        except Exception:  # a hand that cannot be replayed is exactly the one to cancel
            hand.record = None
        hand.state = PokerHand.State.CANCELLED
        hand.cancel_reason = str(reason)[:200]
        hand.preactions = {}  # the players are nudged below: their boxes go
        hand.to_act = None
        hand.decision_deadline = None
        hand.ended_at = now
        hand.save()
        numbers = [s["seat"] for s in hand.seats]
        _stand_up(table, list(table.seats.filter(number__in=numbers, leave_after_hand=True)), lambda seat: "left")
        _pause_before_next_hand(table, hand, now)
        outbox.send(
            GROUPS.table(table.pk),
            {
                "kind": "poker.hand",
                "table": table.pk,
                "hand": hand.pk,
                "version": hand.version,
                "state": hand.state,
                "to_act": None,
                "deadline": None,
                "events": [{"type": "cancelled", "reason": hand.cancel_reason}],
            },
        )
        for s in hand.seats:
            outbox.private_changed(GROUPS, player_id=s["user_id"], hand_id=hand.pk, table_id=table.pk)
        return hand


def poker_next_hand(*, table_id: int) -> PokerHand | None:
    """After the pause: start the table's next hand, or stop waiting when it cannot start."""
    with _step():
        table = _lock_table(table_id)
        now = timezone.now()
        if table.next_hand_at is None or table.next_hand_at > now:
            return None
        hand = _maybe_start(table)
        if hand is None:
            table.next_hand_at = None
            table.save(update_fields=["next_hand_at"])
        return hand


# --------------------------------------------------------------------------- deadlines


def poker_deadlines_due(now: datetime) -> list[int]:
    """Hands whose deadline passed: a player's turn, a stuck hand, or the pause before the next hand."""
    turns = PokerHand.objects.filter(state=PokerHand.State.LIVE, decision_deadline__lte=now)
    stuck = PokerHand.objects.filter(state=PokerHand.State.LIVE, updated_at__lte=now - stuck_after())
    ids = set(turns.values_list("pk", flat=True)) | set(stuck.values_list("pk", flat=True))
    for table_id in PokerTable.objects.filter(next_hand_at__lte=now, state=PokerTable.State.OPEN).values_list(
        "pk", flat=True
    ):
        last = PokerHand.objects.filter(table_id=table_id).order_by("-number").values_list("pk", flat=True).first()
        if last is not None:
            ids.add(last)
    return sorted(ids)


def poker_deadlines_upcoming(after: datetime, until: datetime) -> list[tuple[int, datetime]]:
    """The deadlines in ``(after, until]``, as (hand, deadline): a player's turn, or the
    pause before a table's next hand (under the table's last hand). A stuck hand is the
    sweeper's alone."""
    turns = PokerHand.objects.filter(
        state=PokerHand.State.LIVE, decision_deadline__gt=after, decision_deadline__lte=until
    ).values_list("pk", "decision_deadline")
    found = set(turns)
    pauses = PokerTable.objects.filter(next_hand_at__gt=after, next_hand_at__lte=until, state=PokerTable.State.OPEN)
    for table_id, at in pauses.values_list("pk", "next_hand_at"):
        last = PokerHand.objects.filter(table_id=table_id).order_by("-number").values_list("pk", flat=True).first()
        if last is not None:
            found.add((last, at))
    return sorted(found)


def poker_hand_expire(hand_id: int) -> None:
    """Enforce what of this hand has passed (a re-check under the locks makes a stale call do nothing)."""
    now = timezone.now()
    hand = PokerHand.objects.filter(pk=hand_id).select_related("table").first()
    if hand is None:
        return
    if hand.is_live:
        if hand.updated_at <= now - stuck_after():
            poker_hand_cancel(hand_id=hand.pk, reason="stuck: no step for too long")
        elif hand.decision_deadline is not None and hand.decision_deadline <= now:
            poker_timeout(hand_id=hand.pk, version=hand.version, now=now)
        return
    table = hand.table
    if table.next_hand_at is not None and table.next_hand_at <= now:
        poker_next_hand(table_id=table.pk)


DEADLINES = deadlines.register(
    "poker", due=poker_deadlines_due, upcoming=poker_deadlines_upcoming, expire=poker_hand_expire
)

__all__ = [
    "DEADLINES",
    "poker_act",
    "poker_always_show",
    "poker_deadlines_due",
    "poker_deadlines_upcoming",
    "poker_hand_cancel",
    "poker_hand_expire",
    "poker_hand_start",
    "poker_leave",
    "poker_next_hand",
    "poker_preact",
    "poker_sit",
    "poker_sit_in",
    "poker_sit_out",
    "poker_table_close",
    "poker_table_create",
    "poker_table_open",
    "poker_timeout",
    "poker_top_up",
    "poker_waitlist_join",
    "poker_waitlist_leave",
    "poker_waitlist_promote",
]
