"""Tamper evidence for the ledger: a MAC on every transaction, a hash chain over them all.

- ``transaction_mac``: HMAC-SHA256 (key ``settings.LEDGER_MAC_KEY``) of a transaction's
  fields and legs, written with the row by ``ledger_post``. Editing a row or a leg, or
  inserting one without the key, leaves a row whose MAC does not match.
- ``ledger_seal``: appends every committed, unsealed transaction to the chain
  (``LedgerSeal``), each seal hashing the previous seal's hash with the transaction's MAC.
  It runs every few seconds (Celery beat, or ``run_periodic`` under ``make run``), off the
  hot path. Deleting a transaction or a seal, or inserting a seal, breaks the chain.
- ``ledger_verify`` (``manage.py verify_ledger``) recomputes all of it, from one snapshot
  of the ledger, streamed: its memory stays flat however long the ledger is.

A transaction's ``game`` is not in its MAC: it follows from its kind and its table and
hand (``wallets.models.GAME_RULES``), a reversal's from the row it reverses, all of which
the MACs cover; ``ledger_verify`` checks that it does, on every row, so a changed game is
found as an edited kind or table would be, and the MACs of the rows written before the
game existed still hold.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import reduce
from itertools import groupby
from operator import and_
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max, OuterRef, Q, Subquery
from django.utils import timezone

from wallets.models import GAME_RULES, LedgerSeal, Leg, Transaction

GENESIS = "0" * 64
# A transaction is sealed once it is this old, so that slower transactions with lower
# ids have committed; a younger unsealed transaction is "pending", not an error.
SEAL_AFTER = timedelta(seconds=5)
# The check gives the sealer this much more: a transaction is reported as never sealed
# only when the sealer has sealed something this long after the transaction was due (so
# it has run since, and passed it over). Never the sealer's own age: with the same 5 s,
# every honest row 5-10 s old (the sealer runs every 5 s) was reported as tampering.
# It covers a slow commit (a row's time is taken before its transaction commits), the
# time between the sealer's cutoff and its writing a seal, and clocks a little apart.
SEAL_GRACE = timedelta(seconds=30)
SEAL_BATCH = 5000
VERIFY_CHUNK = 2000  # rows fetched at a time by the check's server-side cursors
SEAL_LOCK_ID = 0x5EA1  # PostgreSQL advisory lock: one sealer at a time


def transaction_mac(
    *,
    idempotency_key: str,
    kind: str,
    memo: str,
    created_at: datetime,
    actor_id: int | None,
    table_ref: int | None,
    hand_ref: int | None,
    reverses_id: int | None,
    legs: Iterable[tuple[int, str, int]],
) -> str:
    """HMAC of a transaction and its legs ``(account_id, side, amount)``."""
    content = json.dumps(
        [
            idempotency_key,
            kind,
            memo,
            created_at.astimezone(dt_timezone.utc).isoformat(timespec="microseconds"),
            actor_id,
            table_ref,
            hand_ref,
            reverses_id,
            sorted(legs),
        ],
        separators=(",", ":"),
    )
    return hmac.new(settings.LEDGER_MAC_KEY.encode(), content.encode(), hashlib.sha256).hexdigest()


def mac_of(txn: Transaction, legs: Iterable[Leg]) -> str:
    """The MAC of a transaction row and its legs (saved or about to be)."""
    return transaction_mac(
        idempotency_key=txn.idempotency_key,
        kind=txn.kind,
        memo=txn.memo,
        created_at=txn.created_at,
        actor_id=txn.actor_id,
        table_ref=txn.table_ref,
        hand_ref=txn.hand_ref,
        reverses_id=txn.reverses_id,
        legs=[(leg.account_id, leg.side, leg.amount) for leg in legs],
    )


def seal_hash(prev_hash: str, seq: int, transaction_id: int, mac: str) -> str:
    return hashlib.sha256(f"{prev_hash}:{seq}:{transaction_id}:{mac}".encode()).hexdigest()


def ledger_seal(*, batch: int = SEAL_BATCH) -> int:
    """Seal every unsealed transaction older than ``SEAL_AFTER``; return how many.

    In batches of ``batch``, each its own transaction, until none is left: a run leaves
    nothing due behind it, which is what lets the check call an old unsealed row (under a
    seal written later) an insertion behind the sealer's back.
    """
    cutoff = timezone.now() - SEAL_AFTER
    sealed, after = 0, 0
    while True:
        # After the first batch, from the last id sealed on: each batch an index range,
        # not an anti-join over the whole sealed ledger again (a lower id that commits in
        # the meantime is the next run's).
        done, after = _seal_batch(cutoff=cutoff, batch=batch, after=after)
        sealed += done
        if done < batch:
            return sealed


def _seal_batch(*, cutoff: datetime, batch: int, after: int) -> tuple[int, int]:
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SEAL_LOCK_ID])
        head = LedgerSeal.objects.order_by("-seq").first()
        seq, prev = (head.seq, head.hash) if head else (0, GENESIS)
        pending = (
            Transaction.objects.filter(seal__isnull=True, created_at__lt=cutoff, id__gt=after)
            .order_by("id")
            .values_list("id", "mac")[:batch]
        )
        seals = []
        for transaction_id, mac in pending:
            seq += 1
            digest = seal_hash(prev, seq, transaction_id, mac)
            seals.append(LedgerSeal(seq=seq, transaction_id=transaction_id, prev_hash=prev, hash=digest))
            prev = digest
        LedgerSeal.objects.bulk_create(seals)
        return len(seals), (seals[-1].transaction_id if seals else after)


@dataclass
class LedgerReport:
    transactions: int = 0
    sealed: int = 0
    pending: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@contextmanager
def ledger_snapshot():
    """One consistent view of the ledger for everything read inside: a read-only
    REPEATABLE READ transaction on PostgreSQL (every query sees the same committed rows,
    whatever commits meanwhile), a transaction on SQLite. Inside a transaction the caller
    already holds, that transaction is the view."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:  # the transaction's first statement
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


_TXN_FIELDS = ("id", "idempotency_key", "kind", "memo", "created_at", "actor_id", "table_ref", "hand_ref", "reverses_id", "mac")


def _transactions_with_legs() -> Iterator[tuple[tuple, list[tuple[int, str, int]]]]:
    """Every transaction (``_TXN_FIELDS``) with its legs ``(account_id, side, amount)``:
    one query (transactions LEFT JOIN legs, by transaction then leg), streamed in chunks;
    one transaction's rows in memory at a time."""
    rows = (
        Transaction.objects.order_by("id", "legs__id")
        .values_list(*_TXN_FIELDS, "legs__account_id", "legs__side", "legs__amount")
        .iterator(chunk_size=VERIFY_CHUNK)
    )
    width = len(_TXN_FIELDS)
    for _, group in groupby(rows, key=lambda row: row[0]):
        first = next(group)
        legs = [first[width:]] if first[width] is not None else []
        legs += [row[width:] for row in group]
        yield first[:width], legs


def _mac_of_row(txn: tuple, legs: list[tuple[int, str, int]]) -> str:
    _, key, kind, memo, created_at, actor_id, table_ref, hand_ref, reverses_id, _ = txn
    return transaction_mac(
        idempotency_key=key,
        kind=kind,
        memo=memo,
        created_at=created_at,
        actor_id=actor_id,
        table_ref=table_ref,
        hand_ref=hand_ref,
        reverses_id=reverses_id,
        legs=legs,
    )


def ledger_verify(*, max_problems: int = 100) -> LedgerReport:
    """Recompute every MAC and the whole chain; name each edited, inserted or deleted row.

    All of it from one snapshot (``ledger_snapshot``), so that rows committed while it
    reads (tables play on) can never look like a transaction without legs or a seal of a
    missing transaction; streamed, so that memory stays flat: only the current
    transaction's legs and the previous seal's hash are held.
    """
    report = LedgerReport()

    def problem(text: str) -> None:
        if len(report.problems) < max_problems:
            report.problems.append(text)

    with ledger_snapshot():
        for txn, legs in _transactions_with_legs():
            report.transactions += 1
            txn_id, mac = txn[0], txn[-1]
            if not legs:
                problem(f"transaction #{txn_id} has no legs (deleted legs)")
            elif sum(amount if side == "C" else -amount for _, side, amount in legs) != 0:
                problem(f"transaction #{txn_id} does not balance")
            if mac != _mac_of_row(txn, legs):
                problem(f"transaction #{txn_id} does not match its MAC (edited, or inserted without the key)")

        # The game each row names must be the one its kind and refs (or, for a reversal,
        # the row it reverses) say: the MAC does not cover it, these do.
        wrong_game = ~reduce(and_, GAME_RULES.values()) | (Q(kind=Transaction.Kind.REVERSAL) & ~Q(game=F("reverses__game")))
        for txn_id, game in Transaction.objects.filter(wrong_game).order_by("id").values_list("id", "game")[:max_problems]:
            problem(f"transaction #{txn_id} names the game “{game or 'none'}”, which its kind and references contradict (edited)")

        # The chain, with each sealed transaction's MAC beside its seal (a subquery, not a
        # join: a seal whose transaction was deleted still comes, with no MAC).
        seals = (
            LedgerSeal.objects.order_by("seq")
            .annotate(txn_mac=Subquery(Transaction.objects.filter(pk=OuterRef("transaction_id")).values("mac")[:1]))
            .values_list("seq", "transaction_id", "prev_hash", "hash", "txn_mac")
            .iterator(chunk_size=VERIFY_CHUNK)
        )
        prev, expected_seq = GENESIS, 1
        for seq, transaction_id, prev_hash, digest, mac in seals:
            if seq != expected_seq:
                problem(f"seal {expected_seq} is missing (the chain jumps to {seq}): a deleted seal")
            if prev_hash != prev:
                problem(f"seal {seq} does not hold the hash of the seal before it")
            if mac is None:
                problem(f"seal {seq} names transaction #{transaction_id}, which is gone: a deleted transaction")
            elif digest != seal_hash(prev_hash, seq, transaction_id, mac):
                problem(f"seal {seq} does not match transaction #{transaction_id} (edited after sealing)")
            prev, expected_seq = digest, seq + 1
            report.sealed += 1

        # Unsealed transactions: waiting for the sealer, unless it has sealed something
        # well after they were due (it ran, and left them out: inserted behind its back).
        unsealed = Transaction.objects.filter(seal__isnull=True)
        waiting = unsealed.count()
        last_sealed = LedgerSeal.objects.aggregate(at=Max("sealed_at"))["at"]
        if last_sealed is not None and waiting:
            passed_over = unsealed.filter(created_at__lt=last_sealed - SEAL_AFTER - SEAL_GRACE)
            for txn_id in passed_over.order_by("id").values_list("id", flat=True)[:max_problems]:
                problem(f"transaction #{txn_id} was never sealed (inserted behind the sealer's back)")
            waiting -= passed_over.count()
        report.pending = waiting
    return report
