"""Tamper evidence for the ledger: a MAC on every transaction, a hash chain over them all.

- ``transaction_mac``: HMAC-SHA256 (key ``settings.LEDGER_MAC_KEY``) of a transaction's
  fields and legs, written with the row by ``ledger_post``. Editing a row or a leg, or
  inserting one without the key, leaves a row whose MAC does not match.
- ``ledger_seal``: appends every committed, unsealed transaction to the chain
  (``LedgerSeal``), each seal hashing the previous seal's hash with the transaction's MAC.
  It runs every few seconds (Celery beat, or ``run_periodic`` under ``make run``), off the
  hot path. Deleting a transaction or a seal, or inserting a seal, breaks the chain.
- ``ledger_verify`` (``manage.py verify_ledger``) recomputes all of it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from wallets.models import LedgerSeal, Leg, Transaction

GENESIS = "0" * 64
# A transaction is sealed once it is this old, so that slower transactions with lower
# ids have committed; a younger unsealed transaction is "pending", not an error.
SEAL_AFTER = timedelta(seconds=5)
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


def ledger_seal(*, batch: int = 5000) -> int:
    """Seal every unsealed transaction older than ``SEAL_AFTER``; return how many."""
    cutoff = timezone.now() - SEAL_AFTER
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SEAL_LOCK_ID])
        head = LedgerSeal.objects.order_by("-seq").first()
        seq, prev = (head.seq, head.hash) if head else (0, GENESIS)
        pending = (
            Transaction.objects.filter(seal__isnull=True, created_at__lt=cutoff)
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
        return len(seals)


@dataclass
class LedgerReport:
    transactions: int = 0
    sealed: int = 0
    pending: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _transactions_with_legs() -> Iterator[tuple[Transaction, list[Leg]]]:
    """Every transaction with its legs, streamed (two ordered cursors merged)."""
    legs = Leg.objects.order_by("transaction_id", "id").iterator(chunk_size=5000)
    leg = next(legs, None)
    for txn in Transaction.objects.order_by("id").iterator(chunk_size=2000):
        own = []
        while leg is not None and leg.transaction_id <= txn.pk:
            if leg.transaction_id == txn.pk:
                own.append(leg)
            leg = next(legs, None)
        yield txn, own


def ledger_verify(*, max_problems: int = 100) -> LedgerReport:
    """Recompute every MAC and the whole chain; name each edited, inserted or deleted row."""
    report = LedgerReport()

    def problem(text: str) -> None:
        if len(report.problems) < max_problems:
            report.problems.append(text)

    cutoff = timezone.now() - SEAL_AFTER
    macs: dict[int, str] = {}
    for txn, legs in _transactions_with_legs():
        report.transactions += 1
        macs[txn.pk] = txn.mac
        if not legs:
            problem(f"transaction #{txn.pk} has no legs (deleted legs)")
        elif sum(leg.signed_amount for leg in legs) != 0:
            problem(f"transaction #{txn.pk} does not balance")
        if txn.mac != mac_of(txn, legs):
            problem(f"transaction #{txn.pk} does not match its MAC (edited, or inserted without the key)")

    seen: set[int] = set()
    prev, expected_seq = GENESIS, 1
    for seal in LedgerSeal.objects.order_by("seq").iterator(chunk_size=5000):
        if seal.seq != expected_seq:
            problem(f"seal {expected_seq} is missing (the chain jumps to {seal.seq}): a deleted seal")
        if seal.prev_hash != prev:
            problem(f"seal {seal.seq} does not hold the hash of the seal before it")
        mac = macs.get(seal.transaction_id)
        if mac is None:
            problem(f"seal {seal.seq} names transaction #{seal.transaction_id}, which is gone: a deleted transaction")
        elif seal.hash != seal_hash(seal.prev_hash, seal.seq, seal.transaction_id, mac):
            problem(f"seal {seal.seq} does not match transaction #{seal.transaction_id} (edited after sealing)")
        seen.add(seal.transaction_id)
        prev, expected_seq = seal.hash, seal.seq + 1
        report.sealed += 1
    for txn_id in macs.keys() - seen:
        created = Transaction.objects.values_list("created_at", flat=True).get(pk=txn_id)
        if created < cutoff:
            problem(f"transaction #{txn_id} was never sealed (inserted behind the sealer's back)")
        else:
            report.pending += 1
    return report
