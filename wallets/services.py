"""The only code that moves money.

``ledger_post`` writes one balanced, idempotent transaction under row locks; everything
else (cashier flows, bets, settlements, jackpot flows) is expressed as calls to it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import IntegrityError, connection
from django.db import transaction as db_transaction
from django.db.models import Sum, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext

from casino.access.policy import require
from casino.cents import format_cents
from casino.http.errors import Conflict, InsufficientFunds, NotFound, PermissionDenied, Translated, ValidationError
from casino.models import IDEMPOTENCY_KEY_MAX
from casino.money import MAX_AMOUNT_CENTS, money
from wallets import responsible
from wallets.integrity import mac_of
from wallets.locks import accounts_lock, player_accounts_lock
from wallets.models import FORM_KEY_MAX, Account, CashRequest, DepositRequest, Leg, Transaction

HOUSE_BANKROLL_CODE = "house:bankroll"

Posting = tuple[Account, int]
"""An account and the signed change of its credit-normal balance (+credit, -debit)."""


# --- accounts ---------------------------------------------------------------------------


def account_get_or_create(*, code: str, kind: str, name: str, owner=None) -> Account:
    account, _ = Account.objects.get_or_create(
        code=code, defaults={"kind": kind, "name": name, "owner": owner, "currency": settings.CASINO_CURRENCY}
    )
    if account.kind != kind:
        raise ValueError(f"account {code} exists with kind {account.kind}, not {kind}")
    return account


def player_accounts_ensure(*, user) -> tuple[Account, Account]:
    """The player's wallet (available money) and money-in-play accounts."""
    wallet = account_get_or_create(
        code=f"wallet:{user.pk}", kind=Account.Kind.PLAYER_WALLET, name=f"Wallet of {user.get_username()}", owner=user
    )
    in_play = account_get_or_create(
        code=f"in_play:{user.pk}",
        kind=Account.Kind.PLAYER_IN_PLAY,
        name=f"In play for {user.get_username()}",
        owner=user,
    )
    return wallet, in_play


def desk_hold_account(*, player) -> Account:
    """Where a desk movement waiting for approval keeps what it takes out of the wallet."""
    return account_get_or_create(
        code=f"desk_held:{player.pk}",
        kind=Account.Kind.DESK_HELD,
        name=f"Held at the desk for {player.get_username()}",
        owner=player,
    )


def house_bankroll() -> Account:
    return account_get_or_create(code=HOUSE_BANKROLL_CODE, kind=Account.Kind.HOUSE, name="House bankroll")


def cashier_cash_account(*, cashier) -> Account:
    return account_get_or_create(
        code=f"cash:{cashier.pk}",
        kind=Account.Kind.CASHIER_CASH,
        name=f"Cash drawer of {cashier.get_username()}",
        owner=cashier,
    )


# --- the ledger -------------------------------------------------------------------------


def _merge(postings: Iterable[Posting]) -> dict[int, tuple[Account, int]]:
    merged: dict[int, tuple[Account, int]] = {}
    for account, amount in postings:
        if type(amount) is not int:
            raise TypeError(f"amounts are int cents, not {type(amount).__name__}")
        previous = merged.get(account.pk, (account, 0))[1]
        merged[account.pk] = (account, previous + amount)
    return {pk: (acc, amt) for pk, (acc, amt) in merged.items() if amt != 0}


def _fingerprint(kind: str, merged: dict[int, tuple[Account, int]], table_ref, hand_ref, reverses_id) -> str:
    # Without the game: it follows from the kind and the refs, and a key posted before
    # transactions had one must replay as it did.
    payload = json.dumps(
        [kind, sorted((pk, amt) for pk, (_, amt) in merged.items()), table_ref, hand_ref, reverses_id],
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    """One transaction to post: what ``ledger_post`` takes, for ``ledger_post_many``."""

    kind: str
    idempotency_key: str
    postings: Sequence[Posting]
    memo: str = ""
    actor: object = None
    table_ref: int | None = None
    hand_ref: int | None = None
    reverses: Transaction | None = None
    game: str = ""  # Transaction.Game of the table and hand: required with them, else empty


def ledger_post(
    *,
    kind: str,
    idempotency_key: str,
    postings: Sequence[Posting],
    memo: str = "",
    actor=None,
    table_ref: int | None = None,
    hand_ref: int | None = None,
    game: str = "",
    reverses: Transaction | None = None,
    locked: Mapping[int, Account] | None = None,
    fresh: bool = False,
) -> Transaction:
    """Post one balanced transaction, or return the one already posted under this key.

    Locks every account it touches (global order, ``wallets.locks``), refuses to take a
    floored account below zero, and inserts the legs; the database trigger moves the
    balances. A key reused with different content is a ``Conflict``. Runs inside the
    caller's transaction, so the caller's state change and the money commit together.
    ``locked`` and ``fresh``: see ``ledger_post_many``.
    """
    entry = Entry(kind, idempotency_key, postings, memo, actor, table_ref, hand_ref, reverses, game)
    return ledger_post_many([entry], locked=locked, fresh=fresh)[0]


def ledger_post_many(
    entries: Sequence[Entry], *, locked: Mapping[int, Account] | None = None, fresh: bool = False
) -> list[Transaction]:
    """Post several transactions in order, in two INSERT statements (rows, then legs).

    Each entry is checked as ``ledger_post`` checks one, against the balances the entries
    before it leave; nothing is written unless every entry passes.

    ``locked``: accounts the caller already holds ``FOR UPDATE`` in this transaction, by id,
    with their current balances (``wallets.locks.player_accounts_lock``); they are not
    locked again, and their ``balance`` is moved here as the trigger moves the rows, so
    the caller can post again against them. Accounts not in it are locked here.

    ``fresh``: the caller's own locked state proves that none of these keys was used (a
    hand step that posts once per state change), so the look-up for a replay is skipped;
    the unique index still refuses a duplicate (an ``IntegrityError`` rolls the step back).

    Two postings under one key that race (no account in common, so neither waits for
    the other's locks, and neither saw the other's row) meet at the key's unique index:
    the later one is refused as a reuse of the key (``Conflict``) and its transaction,
    the caller's, is rolled back whole.
    """
    if not db_transaction.get_connection().in_atomic_block:
        raise RuntimeError("ledger_post() needs an open transaction")
    prepared = []
    for entry in entries:
        key = entry.idempotency_key
        if not key or len(key) > IDEMPOTENCY_KEY_MAX:
            raise ValidationError(
                Translated(
                    gettext("An idempotency key of 1 to %(max)s characters is required.") % {"max": IDEMPOTENCY_KEY_MAX}
                ),
                code="idempotency_key_invalid",
            )
        merged = _merge(entry.postings)
        if sum(amount for _, amount in merged.values()) != 0:
            raise ValueError(f"transaction {key} does not balance")
        if len(merged) < 2:
            raise ValueError(f"transaction {key} needs two or more legs")
        if bool(entry.game) != (entry.table_ref is not None or entry.hand_ref is not None):
            raise ValueError(f"transaction {key} needs a game exactly when it names a table or hand")
        reverses_id = entry.reverses.pk if entry.reverses else None
        prepared.append((entry, merged, _fingerprint(entry.kind, merged, entry.table_ref, entry.hand_ref, reverses_id)))

    held = dict(locked or {})
    wanted = {pk: account for _, merged, _ in prepared for pk, (account, _) in merged.items() if pk not in held}
    if wanted:
        held.update(accounts_lock(wanted.values()))

    existing = {}
    if not fresh:
        keys = [entry.idempotency_key for entry, _, _ in prepared]
        existing = {t.idempotency_key: t for t in Transaction.objects.filter(idempotency_key__in=keys)}
    balances = {pk: account.balance for pk, account in held.items()}
    results: list[Transaction | None] = []
    to_insert: list[tuple[Transaction, list[Leg]]] = []
    now = timezone.now()
    for entry, merged, fingerprint in prepared:
        replay = existing.get(entry.idempotency_key)
        if replay is not None:
            if replay.fingerprint != fingerprint:
                raise _key_reused(entry.idempotency_key)
            replay.replayed = True
            results.append(replay)
            continue
        for pk, (_, amount) in merged.items():
            account = held[pk]
            if account.kind in Account.FLOORED_KINDS and balances[pk] + amount < 0:
                raise InsufficientFunds(
                    Translated(
                        gettext("%(account)s holds %(balance)s, which does not cover %(needed)s.")
                        % {"account": account.name, "balance": money(balances[pk]), "needed": money(-amount)}
                    ),
                    extra={
                        "account": account.code,
                        "balance": format_cents(balances[pk]),
                        "needed": format_cents(-amount),
                    },
                )
        for pk, (_, amount) in merged.items():
            balances[pk] += amount
        legs = [
            Leg(account_id=pk, side=Leg.Side.CREDIT if amount > 0 else Leg.Side.DEBIT, amount=abs(amount))
            for pk, (_, amount) in sorted(merged.items())
        ]
        txn = Transaction(
            idempotency_key=entry.idempotency_key,
            fingerprint=fingerprint,
            kind=entry.kind,
            memo=entry.memo[:255],
            created_at=now,
            actor=entry.actor,
            table_ref=entry.table_ref,
            hand_ref=entry.hand_ref,
            game=entry.game,
            reverses=entry.reverses,
        )
        txn.mac = mac_of(txn, legs)
        txn.replayed = False
        results.append(txn)
        to_insert.append((txn, legs))

    if to_insert:
        try:
            _insert_transactions(to_insert)
        except IntegrityError as exc:
            if not _is_key_taken(exc):
                raise
            db_transaction.set_rollback(True)
            keys = [txn.idempotency_key for txn, _ in to_insert]
            raise _key_reused(keys[0] if len(keys) == 1 else keys) from exc
        for pk, account in held.items():  # the trigger moved the rows; keep the caller's copies true
            account.balance = balances[pk]
    return results


def _key_reused(key) -> Conflict:
    return Conflict(
        "This idempotency key was already used for a different request.",
        code="idempotency_key_reused",
        extra={"idempotency_key": key},
    )


def _is_key_taken(exc: IntegrityError) -> bool:
    """Whether ``exc`` is another transaction's row holding one of the keys: a unique
    violation in the transactions' table, whose one unique column is the key."""
    diag = getattr(exc.__cause__, "diag", None)
    return getattr(diag, "sqlstate", None) == "23505" and diag.table_name == Transaction._meta.db_table


def _insert_transactions(rows: list[tuple[Transaction, list[Leg]]]) -> None:
    """Insert transactions and their legs, setting the transactions' ids. The database does
    the rest: the balance trigger moves each account as its leg is inserted, the CHECKs
    refuse a floored balance below zero, the deferred trigger checks at COMMIT that each
    transaction balances. On PostgreSQL one call of ``ledger_insert``
    (``wallets/migrations/0012_ledger_insert.sql``: a step's hot path); elsewhere two ORM
    INSERTs (``tests/wallets/test_ledger_insert.py``: both store every column as posted)."""
    if connection.vendor != "postgresql":
        Transaction.objects.bulk_create([txn for txn, _ in rows])  # sets the ids (RETURNING)
        for txn, legs in rows:
            for leg in legs:
                leg.transaction = txn
        Leg.objects.bulk_create([leg for _, legs in rows for leg in legs])
        return
    txns = [
        {
            "idempotency_key": txn.idempotency_key,
            "fingerprint": txn.fingerprint,
            "kind": txn.kind,
            "memo": txn.memo,
            "created_at": txn.created_at.isoformat(),
            "mac": txn.mac,
            "actor_id": txn.actor_id,
            "table_ref": txn.table_ref,
            "hand_ref": txn.hand_ref,
            "game": txn.game,
            "reverses_id": txn.reverses_id,
        }
        for txn, _ in rows
    ]
    legs = [
        {"transaction_key": txn.idempotency_key, "account_id": leg.account_id, "side": leg.side, "amount": leg.amount}
        for txn, txn_legs in rows
        for leg in txn_legs
    ]
    with connection.cursor() as cursor:
        cursor.execute("SELECT ledger_insert(%s::jsonb, %s::jsonb)", [json.dumps(txns), json.dumps(legs)])
        ids = {key: pk for pk, key in json.loads(cursor.fetchone()[0])}
    for txn, txn_legs in rows:
        txn.pk = ids[txn.idempotency_key]
        for leg in txn_legs:
            leg.transaction = txn


def transaction_reverse(*, original: Transaction, actor, idempotency_key: str, reason: str) -> Transaction:
    """Undo a transaction with its mirror image; the original stays as it was.

    Refused when it was already reversed, is itself a reversal, or when the accounts no
    longer hold the money (a player who already spent a mistaken deposit).
    """
    if not reason.strip():
        raise ValidationError("A reason is required to reverse a transaction.", code="reason_required")
    with db_transaction.atomic():
        original = Transaction.objects.select_for_update().get(pk=original.pk)
        if original.kind == Transaction.Kind.REVERSAL:
            raise Conflict("A reversal cannot itself be reversed; post a new transaction.", code="reversal_of_reversal")
        already = Transaction.objects.filter(reverses=original).first()
        if already is not None and already.idempotency_key != idempotency_key:
            raise Conflict("This transaction was already reversed.", code="already_reversed")
        postings = [(leg.account, -leg.signed_amount) for leg in original.legs.select_related("account")]
        return ledger_post(
            kind=Transaction.Kind.REVERSAL,
            idempotency_key=idempotency_key,
            postings=postings,
            memo=f"Reversal of #{original.pk}: {reason}",
            actor=actor,
            table_ref=original.table_ref,
            hand_ref=original.hand_ref,
            game=original.game,
            reverses=original,
        )


# --- cashier ----------------------------------------------------------------------------
# The desk goes through cash_request_create, which applies the approval threshold; the
# two primitives below move approved money (and set up demo and test balances).


def cashier_deposit(*, cashier, player, amount: int, idempotency_key: str, memo: str = "") -> Transaction:
    """Cash received from the player, credited to the player's wallet (responsible-gaming checked)."""
    require(cashier, "cash.deposit")
    wallet, _ = player_accounts_ensure(user=player)
    cash = cashier_cash_account(cashier=cashier)
    with db_transaction.atomic():
        existing = Transaction.objects.filter(idempotency_key=f"deposit:{cashier.pk}:{idempotency_key}").first()
        if existing is None:
            responsible.guard_deposit(player=player, amount=amount)
        return ledger_post(
            kind=Transaction.Kind.DEPOSIT,
            idempotency_key=f"deposit:{cashier.pk}:{idempotency_key}",
            postings=[(cash, -amount), (wallet, amount)],
            memo=memo or f"Deposit by {cashier.get_username()}",
            actor=cashier,
        )


def cashier_withdraw(*, cashier, player, amount: int, idempotency_key: str, memo: str = "") -> Transaction:
    """Cash paid out to the player, at most the wallet's available balance."""
    require(cashier, "cash.withdraw")
    wallet, _ = player_accounts_ensure(user=player)
    cash = cashier_cash_account(cashier=cashier)
    with db_transaction.atomic():
        return ledger_post(
            kind=Transaction.Kind.WITHDRAWAL,
            idempotency_key=f"withdrawal:{cashier.pk}:{idempotency_key}",
            postings=[(wallet, -amount), (cash, amount)],
            memo=memo or f"Withdrawal by {cashier.get_username()}",
            actor=cashier,
        )


def _reversal_execute(
    *, cashier, player, amount: int, idempotency_key: str, memo: str = "", reverses=None
) -> Transaction:
    return transaction_reverse(
        original=reverses, actor=cashier, idempotency_key=f"reversal:{cashier.pk}:{idempotency_key}", reason=memo
    )


_MOVE = {
    CashRequest.Kind.DEPOSIT: cashier_deposit,
    CashRequest.Kind.WITHDRAWAL: cashier_withdraw,
    CashRequest.Kind.REVERSAL: _reversal_execute,
}
_DESK_ACTION = {
    CashRequest.Kind.DEPOSIT: "cash.deposit",
    CashRequest.Kind.WITHDRAWAL: "cash.withdraw",
    CashRequest.Kind.REVERSAL: "cash.reverse",
}
DESK_KINDS = (Transaction.Kind.DEPOSIT, Transaction.Kind.WITHDRAWAL)


def desk_total_today(*, player, now=None) -> int:
    """What the desk moved or was asked to move for ``player`` today (UTC), in cents.

    The threshold's aggregate, the strictest of the choices: **per player, over every
    cashier and every kind** — deposits, withdrawals and reversals alike, each counted by
    its size (a withdrawal does not net a deposit out), executed or still waiting; only
    rejected requests do not count. So neither
    splitting an amount into pieces, nor sharing it between two cashiers, nor
    alternating kinds keeps a day's desk money for one player below the second pair of
    eyes.
    """
    now = now or timezone.now()
    start = now.astimezone(dt_timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    return (
        CashRequest.objects.filter(player=player, requested_at__gte=start)
        .exclude(status=CashRequest.Status.REJECTED)
        .aggregate(total=Sum("amount"))["total"]
        or 0
    )


def _pending_withdrawals(player) -> int:
    """Withdrawals waiting without a hold: requested before waiting movements held their
    money (those that hold it took it out of the wallet already)."""
    return (
        CashRequest.objects.filter(
            player=player, kind=CashRequest.Kind.WITHDRAWAL, status=CashRequest.Status.PENDING, hold__isnull=True
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )


def _counter_accounts(*, cashier, player, reverses: Transaction | None) -> list[Account]:
    """The accounts a desk movement moves the player's money against: the cashier's drawer,
    or for a reversal those of the transaction it undoes that are not the player's."""
    if reverses is None:
        return [cashier_cash_account(cashier=cashier)]
    return [leg.account for leg in reverses.legs.all() if leg.account.owner_id != player.pk]


def _takes_from_wallet(kind: str, reverses: Transaction | None, player) -> bool:
    """A withdrawal, or the reversal of what put money into the wallet."""
    return kind == CashRequest.Kind.WITHDRAWAL or (reverses is not None and _credited_wallet(reverses, player))


def _credited_wallet(original: Transaction, player) -> bool:
    """Whether ``original`` put money into the player's wallet (so undoing it takes money out)."""
    return any(
        leg.side == Leg.Side.CREDIT
        for leg in original.legs.all()
        if leg.account.kind == Account.Kind.PLAYER_WALLET and leg.account.owner_id == player.pk
    )


def cash_request_create(
    *,
    cashier,
    player,
    kind: str,
    amount: int,
    idempotency_key: str,
    memo: str = "",
    reverses: Transaction | None = None,
) -> CashRequest:
    """A movement at the desk: a deposit, a withdrawal, or (with ``reverses``) a reversal.

    It moves at once while the day's desk total for the player (``desk_total_today``),
    this movement included, stays within ``CASHIER_APPROVAL_THRESHOLD``; beyond it, it
    waits for a second staff member (``cash_request_approve``); one that takes money out
    of the wallet then holds it (``desk_hold``: the player cannot play it meanwhile) until
    it is approved or rejected. Refused at once, with nothing queued: a withdrawal above
    what the wallet holds (``insufficient_funds``), a deposit the player's limits or
    exclusion forbid. Idempotent per cashier and key.
    """
    if kind not in CashRequest.Kind.values:
        raise ValidationError("A cash movement is a deposit, a withdrawal or a reversal.", code="kind_invalid")
    require(cashier, _DESK_ACTION[kind])
    if (kind == CashRequest.Kind.REVERSAL) != (reverses is not None):
        raise ValidationError("A reversal, and only a reversal, names the transaction it undoes.", code="kind_invalid")
    if type(amount) is not int or amount <= 0:
        raise ValidationError("The amount must be positive.", code="amount_not_positive")
    wallet, _ = player_accounts_ensure(user=player)
    if reverses is not None:
        reverses = Transaction.objects.prefetch_related("legs__account").get(pk=reverses.pk)
    others = _counter_accounts(cashier=cashier, player=player, reverses=reverses)
    takes_out = _takes_from_wallet(kind, reverses, player)
    held = desk_hold_account(player=player) if takes_out else None
    if held is not None:
        others.append(held)
    with db_transaction.atomic():
        # The player's accounts first, in the global order: two desks serving one player
        # take turns, so the day's total and the balance are read true.
        locked = player_accounts_lock(player_ids=[player.pk], account_ids=[a.pk for a in others])
        existing = CashRequest.objects.filter(requested_by=cashier, idempotency_key=idempotency_key).first()
        if existing is not None:
            if (existing.kind, existing.player_id, existing.amount, existing.reverses_id) != (
                kind,
                player.pk,
                amount,
                reverses.pk if reverses else None,
            ):
                raise Conflict(
                    "This idempotency key was already used for a different request.", code="idempotency_key_reused"
                )
            return existing
        if takes_out:
            unheld = _pending_withdrawals(player)
            available = locked.wallet(player.pk).balance - unheld
            waiting = locked.by_id[held.pk].balance + unheld
            if amount > available:
                raise InsufficientFunds(
                    Translated(
                        (
                            gettext(
                                "The player has %(available)s to withdraw; %(pending)s more waits for approval "
                                "at the desk. That does not cover %(needed)s."
                            )
                            if waiting
                            else gettext("The player holds %(available)s; that does not cover %(needed)s.")
                        )
                        % {"available": money(available), "pending": money(waiting), "needed": money(amount)}
                    ),
                    extra={
                        "available": format_cents(available),
                        "pending": format_cents(waiting),
                        "needed": format_cents(amount),
                    },
                )
        elif kind == CashRequest.Kind.DEPOSIT:
            responsible.guard_deposit(player=player, amount=amount)  # refuse now what approval could not pass
        total = desk_total_today(player=player)
        request = CashRequest.objects.create(
            kind=kind,
            player=player,
            amount=amount,
            memo=memo,
            requested_by=cashier,
            idempotency_key=idempotency_key,
            reverses=reverses,
        )
        if total + amount <= settings.CASHIER_APPROVAL_THRESHOLD:
            _execute(request, decided_by=None)
        elif takes_out:
            wallet = locked.wallet(player.pk)
            request.hold = ledger_post(
                kind=Transaction.Kind.DESK_HOLD,
                idempotency_key=f"desk-hold:{request.pk}",
                postings=[(wallet, -amount), (locked.by_id[held.pk], amount)],
                memo=f"Desk request #{request.pk}",  # the kind's label, in the reader's language, says the rest
                actor=cashier,
                locked=locked.by_id,
                fresh=True,
            )
            request.save(update_fields=["hold"])
        return request


def _hold_release(request: CashRequest, *, by) -> None:
    """What a waiting movement held goes back to the wallet (before it moves, or as it is
    rejected), in the caller's transaction."""
    if request.hold_id is None:
        return
    held = Account.objects.get(owner_id=request.player_id, kind=Account.Kind.DESK_HELD)
    if request.reverses is not None:
        prefetch_related_objects([request.reverses], "legs__account")  # its legs and accounts in one read
    others = _counter_accounts(cashier=request.requested_by, player=request.player, reverses=request.reverses)
    # Every account the release and the movement after it touch, at once in the global
    # order (the movement's own lock of them is then free).
    locked = player_accounts_lock(player_ids=[request.player_id], account_ids=[held.pk, *(a.pk for a in others)])
    ledger_post(
        kind=Transaction.Kind.DESK_RELEASE,
        idempotency_key=f"{CashRequest.RELEASE_KEY}{request.pk}",
        postings=[(locked.by_id[held.pk], -request.amount), (locked.wallet(request.player_id), request.amount)],
        memo=f"Desk request #{request.pk}",
        actor=by,
        locked=locked.by_id,
    )


def cash_request_approve(*, approver, request_id: int) -> CashRequest:
    """A second staff member (cashier or manager, not the requester) approves: the money moves."""
    require(approver, "cash.approve")
    with db_transaction.atomic():
        request = _pending_request(request_id, approver)
        _execute(request, decided_by=approver)
        return request


def cash_request_reject(*, approver, request_id: int, reason: str) -> CashRequest:
    require(approver, "cash.approve")
    if not reason.strip():
        raise ValidationError("Say why the request is rejected.", code="reason_required")
    with db_transaction.atomic():
        request = _pending_request(request_id, approver)
        _hold_release(request, by=approver)
        request.status = CashRequest.Status.REJECTED
        request.decided_by, request.decided_at, request.reason = approver, timezone.now(), reason[:200]
        request.save(update_fields=["status", "decided_by", "decided_at", "reason"])
        DepositRequest.objects.filter(cash_request=request, status=DepositRequest.Status.REQUESTED).update(
            status=DepositRequest.Status.REJECTED,
            decided_at=request.decided_at,
            decided_by=approver,
            reason=request.reason,
        )
        return request


def _deposit_request_closed(request: DepositRequest) -> Conflict:
    return Conflict(
        Translated(
            gettext("This deposit request is already closed: %(status)s.") % {"status": request.get_status_display()}
        ),
        code="deposit_request_closed",
    )


def _pending_request(request_id: int, approver) -> CashRequest:
    request = CashRequest.objects.select_for_update().filter(pk=request_id).first()
    if request is None:
        raise NotFound("No such cash request.", code="cash_request_not_found")
    if request.status != CashRequest.Status.PENDING:
        raise Conflict(
            Translated(
                gettext("This request is already decided: %(status)s.") % {"status": request.get_status_display()}
            ),
            code="cash_request_decided",
        )
    if request.requested_by_id == approver.pk:
        raise PermissionDenied("A second staff member must approve a request above the threshold.", code="four_eyes")
    return request


def _execute(request: CashRequest, *, decided_by) -> None:
    _hold_release(request, by=decided_by or request.requested_by)  # then the movement takes it, in one commit
    move = _MOVE[request.kind]
    extra = {"reverses": request.reverses} if request.kind == CashRequest.Kind.REVERSAL else {}
    request.transaction = move(
        cashier=request.requested_by,
        player=request.player,
        amount=request.amount,
        idempotency_key=f"request:{request.pk}",
        memo=request.memo,
        **extra,
    )
    request.status = CashRequest.Status.EXECUTED
    request.decided_by, request.decided_at = decided_by, timezone.now()
    request.save(update_fields=["transaction", "status", "decided_by", "decided_at"])
    # A player's deposit request funded through this desk movement is completed with it.
    DepositRequest.objects.filter(cash_request=request, status=DepositRequest.Status.REQUESTED).update(
        status=DepositRequest.Status.COMPLETED,
        decided_at=request.decided_at,
        decided_by=decided_by or request.requested_by,
    )


def cashier_reverse(*, cashier, transaction_id: int, reason: str, idempotency_key: str) -> CashRequest:
    """Undo a deposit or withdrawal with a reversing transaction, under the same four eyes.

    A reversal moves money like the movement it undoes (a reversed withdrawal credits the
    wallet), so it is a desk movement of the same size: within the threshold (the day's
    total included) it is posted at once, above it it waits for a second staff member.
    Refused at once when the transaction is not a deposit or withdrawal, is already
    reversed, or has a reversal waiting.
    """
    require(cashier, "cash.reverse")
    if not reason.strip():
        raise ValidationError("A reason is required to reverse a transaction.", code="reason_required")
    original = Transaction.objects.filter(pk=transaction_id).first()
    if original is None:
        raise NotFound("No such transaction.", code="transaction_not_found")
    if original.kind not in DESK_KINDS:
        raise Conflict("Only deposits and withdrawals are reversed at the desk.", code="not_reversible")
    wallet_leg = next(
        (leg for leg in original.legs.select_related("account") if leg.account.kind == Account.Kind.PLAYER_WALLET), None
    )
    if wallet_leg is None:
        raise Conflict("Only a player's deposits and withdrawals are reversed at the desk.", code="not_reversible")
    with db_transaction.atomic():
        mine = CashRequest.objects.filter(requested_by=cashier, idempotency_key=idempotency_key).first()
        if mine is None:
            if Transaction.objects.filter(reverses=original).exists():
                raise Conflict("This transaction was already reversed.", code="already_reversed")
            if CashRequest.objects.filter(reverses=original, status=CashRequest.Status.PENDING).exists():
                raise Conflict("A reversal of this transaction already waits for approval.", code="reversal_pending")
        return cash_request_create(
            cashier=cashier,
            player=wallet_leg.account.owner,
            kind=CashRequest.Kind.REVERSAL,
            amount=wallet_leg.amount,
            idempotency_key=idempotency_key,
            memo=reason[:200],
            reverses=original,
        )


# --- a player's deposit request ---------------------------------------------------------
# The player asks on the wallet page; the money arrives through the desk (or, in a real
# deployment, a payment provider) and ``deposit_request_complete`` credits it.

MAX_OPEN_DEPOSIT_REQUESTS = 3


def _open_deposit_requests(player):
    return DepositRequest.objects.filter(player=player, status=DepositRequest.Status.REQUESTED)


def deposit_request_create(*, player, amount: int, idempotency_key: str) -> DepositRequest:
    """A player asks for ``amount`` cents to be deposited; nothing moves until it is completed.

    Refused with nothing written: an amount that is not positive int cents, a self-excluded
    player, a request that with the player's other open requests would pass a deposit limit
    (``responsible.guard_deposit``), more than ``MAX_OPEN_DEPOSIT_REQUESTS`` open at once.
    Idempotent per player and key: a double submit returns the first request; the key
    reused for another amount is a ``Conflict``.
    """
    if type(amount) is not int or amount <= 0:
        raise ValidationError(
            "The amount must be more than zero.", code="amount_not_positive", extra={"field": "amount"}
        )
    if amount > MAX_AMOUNT_CENTS:
        raise ValidationError("The amount is too large.", code="amount_too_large", extra={"field": "amount"})
    if not idempotency_key or len(idempotency_key) > FORM_KEY_MAX:
        raise ValidationError(
            Translated(gettext("An idempotency key of 1 to %(max)s characters is required.") % {"max": FORM_KEY_MAX}),
            code="idempotency_key_invalid",
        )
    player_accounts_ensure(user=player)
    with db_transaction.atomic():
        player_accounts_lock(player_ids=[player.pk])  # one player's requests take turns
        existing = DepositRequest.objects.filter(player=player, idempotency_key=idempotency_key).first()
        if existing is not None:
            if existing.amount != amount:
                raise Conflict(
                    "This idempotency key was already used for a different request.", code="idempotency_key_reused"
                )
            return existing
        open_requests = list(_open_deposit_requests(player).values_list("amount", flat=True))
        if len(open_requests) >= MAX_OPEN_DEPOSIT_REQUESTS:
            raise Conflict(
                Translated(
                    gettext("You already have %(count)s deposit requests open; wait for the cashier or cancel one.")
                    % {"count": len(open_requests)}
                ),
                code="deposit_requests_open",
            )
        # The open requests count as deposited already: queuing many small ones passes no limit.
        responsible.guard_deposit(player=player, amount=amount + sum(open_requests))
        return DepositRequest.objects.create(player=player, amount=amount, idempotency_key=idempotency_key)


def _deposit_request_locked(request_id: int) -> DepositRequest:
    request = (
        DepositRequest.objects.select_for_update(of=("self",))
        .select_related("cash_request")
        .filter(pk=request_id)
        .first()
    )
    if request is None:
        raise NotFound("No such deposit request.", code="deposit_request_not_found")
    return request


def deposit_request_complete(*, request_id: int, completed_by, reference: str = "") -> DepositRequest:
    """Fund a player's deposit request: the one entry point for money that arrives for one.

    The cashier's desk calls it when the player's cash or card payment is received. A
    payment provider plugs in here too: its callback (after checking the provider's
    signature) calls this function with the provider's service user as ``completed_by``
    (whose cash account is then the provider's settlement account) and the provider's
    payment id as ``reference``; a callback delivered twice completes once.

    The money moves as a desk deposit (``cash_request_create``, so ``cashier_deposit``
    posts the ledger transaction): within the day's approval threshold at once, above it
    the request stays "requested" until a second staff member approves the waiting desk
    movement (``cash_request_approve`` completes it then; a rejection rejects it). The
    deposit limits and self-exclusion are checked again now.
    """
    with db_transaction.atomic():
        request = _deposit_request_locked(request_id)
        if request.status == DepositRequest.Status.COMPLETED:
            return request  # a repeated callback or double click
        if request.status != DepositRequest.Status.REQUESTED:
            raise _deposit_request_closed(request)
        if request.cash_request_id is not None:
            if request.cash_request.requested_by_id == getattr(completed_by, "pk", None):
                return request
            raise Conflict(
                "This deposit already waits for a second staff member's approval in the queue.",
                code="deposit_request_waiting",
            )
        cash_request = cash_request_create(
            cashier=completed_by,
            player=request.player,
            kind=CashRequest.Kind.DEPOSIT,
            amount=request.amount,
            idempotency_key=f"deposit-request:{request.pk}",
            memo=(f"Deposit request #{request.pk}" + (f", ref. {reference}" if reference else ""))[:200],
        )
        request.cash_request = cash_request
        request.reference = reference[:100]
        if cash_request.status == CashRequest.Status.EXECUTED:
            request.status = DepositRequest.Status.COMPLETED
            request.decided_at, request.decided_by = cash_request.decided_at or timezone.now(), completed_by
        request.save(update_fields=["cash_request", "reference", "status", "decided_at", "decided_by"])
        return request


def deposit_request_reject(*, request_id: int, rejected_by, reason: str) -> DepositRequest:
    """The desk (or a provider reporting a failed payment) refuses a request; nothing moves."""
    require(rejected_by, "cash.deposit")
    if not reason.strip():
        raise ValidationError("Say why the request is rejected.", code="reason_required", extra={"field": "reason"})
    with db_transaction.atomic():
        request = _deposit_request_locked(request_id)
        if request.status != DepositRequest.Status.REQUESTED:
            raise _deposit_request_closed(request)
        if request.cash_request_id is not None:
            raise Conflict(
                "This deposit waits for approval in the queue; decide it there.", code="deposit_request_waiting"
            )
        request.status = DepositRequest.Status.REJECTED
        request.decided_at, request.decided_by, request.reason = timezone.now(), rejected_by, reason.strip()[:200]
        request.save(update_fields=["status", "decided_at", "decided_by", "reason"])
        return request


def deposit_request_cancel(*, player, request_id: int) -> DepositRequest:
    """The player withdraws an open request; another player's request is not found."""
    with db_transaction.atomic():
        request = DepositRequest.objects.select_for_update().filter(pk=request_id, player=player).first()
        if request is None:
            raise NotFound("You have no such deposit request.", code="deposit_request_not_found")
        if request.status != DepositRequest.Status.REQUESTED:
            raise _deposit_request_closed(request)
        if request.cash_request_id is not None:
            raise Conflict(
                "The cashier has taken this deposit; it waits for a second approval and cannot be cancelled.",
                code="deposit_request_waiting",
            )
        request.status = DepositRequest.Status.CANCELLED
        request.decided_at, request.decided_by = timezone.now(), player
        request.save(update_fields=["status", "decided_at", "decided_by"])
        return request
