"""Tamper evidence for the ledger: a MAC on every transaction, a hash chain over them all.

- ``transaction_mac``: HMAC-SHA256 (key ``settings.LEDGER_MAC_KEY``) of a transaction's
  fields and legs, written with the row by ``ledger_post``. Editing a row or a leg, or
  inserting one without the key, leaves a row whose MAC does not match.
- ``ledger_seal``: appends every committed, unsealed transaction to the chain
  (``LedgerSeal``), each seal hashing the previous seal's hash with the transaction's MAC.
  It runs every few seconds (Celery beat, or ``run_periodic`` under ``make run``), off the
  hot path. Deleting a transaction or a seal, or inserting a seal, breaks the chain.
- ``ledger_check`` (``manage.py verify_ledger``, the integrity page) recomputes it from
  the latest checkpoint (``LedgerCheckpoint``: the last seal verified, and each account's
  sum of legs up to it), so a routine check reads only what was written since; the
  periodic work moves the checkpoint on (``ledger_checkpoint``). ``ledger_verify`` and the
  full verification in the background (``ledger_verification_run``, with its progress)
  read everything, from one snapshot of the ledger, streamed: memory stays flat however
  long the ledger is. On PostgreSQL the whole ledger comes as one stream of rows from
  ``ledger_rows()`` (a SQL function beside its migration), computed by the server while
  the check computes the MACs.

A transaction's ``game`` is not in its MAC: it follows from its kind and its table and
hand (``wallets.models.GAME_RULES``), a reversal's from the row it reverses, all of which
the MACs cover; ``ledger_verify`` checks that it does, on every row, so a changed game is
found as an edited kind or table would be, and the MACs of the rows written before the
game existed still hold.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from functools import reduce
from json.encoder import encode_basestring_ascii as _json_text
from operator import and_

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Max, Min, Q
from django.utils import timezone

from wallets.models import GAME_RULES, Account, LedgerCheckpoint, LedgerSeal, LedgerVerification, Leg, Transaction
from wallets.reports import UtcIsoText
from wallets.selectors import SIGNED_SUM

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
SEAL_WINDOW = 20_000  # transaction ids a sealer's batch looks through at most
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
    fields = (idempotency_key, kind, memo, mac_time(created_at), actor_id, table_ref, hand_ref, reverses_id)
    return _mac(_mac_key(), fields, legs)


def mac_time(moment: datetime) -> str:
    """A transaction's time as its MAC reads it: UTC to the microsecond,
    ``2026-12-05T21:16:35.123456+00:00`` (``UtcIsoText`` has the database write the same)."""
    return moment.astimezone(dt_timezone.utc).isoformat(timespec="microseconds")


def _mac_key() -> bytes:
    return settings.LEDGER_MAC_KEY.encode()


def _mac(key: bytes, fields: Sequence, legs: Iterable[tuple[int, str, int]]) -> str:
    """The MAC of a transaction's fields (``mac_time`` for its time) and legs."""
    return hmac.digest(key, mac_content(fields, legs), "sha256").hex()


def mac_content(fields: Sequence, legs: Iterable[tuple[int, str, int]]) -> bytes:
    """What a MAC covers: the JSON array ``[*fields, sorted(legs)]``, compact and ASCII
    (``json.dumps(…, separators=(",", ":"))`` byte for byte: the MACs already written are
    of those bytes). ``fields``: the four texts (key, kind, memo, ``mac_time``) and the four
    ids or None; a leg is ``(account, side, amount)``."""
    return _content(fields, _legs_text(legs))


def _legs_text(legs: Iterable[tuple[int, str, int]]) -> str:
    """The legs' part of a MAC's text, sorted: ``[1,"D",500],[7,"C",500]``."""
    return ",".join([f"[{account},{_json_text(side)},{amount}]" for account, side, amount in sorted(legs)])


def _content(fields: Sequence, legs_text: str) -> bytes:
    """``mac_content`` from the legs' part of the text (``[1,"D",500],[7,"C",500]``), written
    field by field: a JSON encoder's set-up at every call was half of the check's time."""
    idempotency_key, kind, memo, moment, actor_id, table_ref, hand_ref, reverses_id = fields
    return (
        f"[{_json_text(idempotency_key)},{_json_text(kind)},{_json_text(memo)},{_json_text(moment)},"
        f"{'null' if actor_id is None else actor_id},{'null' if table_ref is None else table_ref},"
        f"{'null' if hand_ref is None else hand_ref},{'null' if reverses_id is None else reverses_id},"
        f"[{legs_text}]]"
    ).encode()


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


def ledger_seal(*, batch: int = SEAL_BATCH, window: int | None = None) -> int:
    """Seal every unsealed transaction older than ``SEAL_AFTER``; return how many.

    In batches of ``batch``, each its own transaction, through every id up to the newest
    at the start: a run leaves nothing due behind it, which is what lets the check call an
    old unsealed row (under a seal written later) an insertion behind the sealer's back.
    """
    cutoff = timezone.now() - SEAL_AFTER
    window = window or SEAL_WINDOW
    # From the latest checkpoint's floor (every transaction up to it is sealed, verified),
    # a window of ids at a time: each batch an index range, never an anti-join of every
    # transaction above it with the seals (a backlog of millions sealed in linear time).
    # A lower id that commits in the meantime is the next run's.
    checkpoint = latest_checkpoint()
    after = checkpoint.floor if checkpoint is not None else 0
    top = Transaction.objects.aggregate(top=Max("id"))["top"] or 0
    sealed = 0
    while after < top:
        upto = min(after + window, top)
        done, last = _seal_batch(cutoff=cutoff, batch=batch, after=after, upto=upto)
        sealed += done
        after = last if done == batch else upto
    return sealed


def _seal_batch(*, cutoff: datetime, batch: int, after: int, upto: int) -> tuple[int, int]:
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SEAL_LOCK_ID])
        head = LedgerSeal.objects.order_by("-seq").first()
        seq, prev = (head.seq, head.hash) if head else (0, GENESIS)
        pending = (
            Transaction.objects.filter(seal__isnull=True, created_at__lt=cutoff, id__gt=after, id__lte=upto)
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


_TXN_FIELDS = (
    "id",
    "idempotency_key",
    "kind",
    "memo",
    "mac_time",
    "actor_id",
    "table_ref",
    "hand_ref",
    "reverses_id",
    "mac",
    "seal__seq",
    "seal__prev_hash",
    "seal__hash",
)


def _ledger_rows(transactions, legs) -> Iterator[tuple]:
    """Each of ``transactions`` in id order as one row: ``_TXN_FIELDS``, then its legs as the
    MAC's text of them (``[account,"side",amount],…`` sorted as the MAC sorts them, or None),
    how many and what they sum to (credits minus debits). Its legs are those of ``legs``; a
    leg whose transaction is not among them is left out (the check finds it by count).

    Two streams read side by side in chunks, each row once (a join would repeat the
    transaction's columns on every leg); one transaction's legs in memory at a time. The
    whole ledger on PostgreSQL comes from ``ledger_rows()`` instead."""
    txns = (
        transactions.annotate(mac_time=UtcIsoText("created_at"))
        .order_by("id")
        .values_list(*_TXN_FIELDS)
        .iterator(chunk_size=VERIFY_CHUNK)
    )
    leg_rows = (
        legs.order_by("transaction_id")
        .values_list("transaction_id", "account_id", "side", "amount")
        .iterator(chunk_size=VERIFY_CHUNK)
    )
    leg = next(leg_rows, None)
    for txn in txns:
        txn_id, mine = txn[0], []
        while leg is not None and leg[0] <= txn_id:
            if leg[0] == txn_id:
                mine.append(leg[1:])
            leg = next(leg_rows, None)
        balance = sum(amount if side == "C" else -amount for _, side, amount in mine)
        yield (*txn, _legs_text(mine) if mine else None, len(mine), balance)


def _whole_ledger_rows() -> Iterator[tuple]:
    """``_ledger_rows`` of the whole ledger on PostgreSQL: ``ledger_rows()`` (beside its
    migration, ``wallets/migrations/0016_ledger_rows.sql``) merges the transactions, their
    seals and their legs by transaction in index order, with no sort, and the rows stream
    while the check computes: the server works on its own core meanwhile, where fetching
    chunk by chunk would leave each side idle while the other works. Nothing else may use
    the connection until the rows end."""
    with connection.cursor() as cursor:
        yield from cursor.stream("SELECT * FROM ledger_rows()", size=VERIFY_CHUNK)


def _leg_sums(legs) -> tuple[dict[int, int], int]:
    """Each account's sum of ``legs`` (credits minus debits), and how many legs there are."""
    sums, count = {}, 0
    for account_id, total, n in (
        legs.order_by().values("account_id").annotate(t=SIGNED_SUM, n=Count("id")).values_list("account_id", "t", "n")
    ):
        sums[account_id] = int(total)
        count += n
    return sums, count


def ledger_verify(*, max_problems: int = 100) -> LedgerReport:
    """Recompute every MAC and the whole chain; name each edited, inserted or deleted row.

    All of it from one snapshot (``ledger_snapshot``), so that rows committed while it
    reads (tables play on) can never look like a transaction without legs or a seal of a
    missing transaction; streamed, so that memory stays flat: only the current
    transaction's legs, the previous seal's hash and a sum per account are held.
    (``ledger_check`` does the same from a checkpoint, and checks the balances too.)
    """
    return ledger_check(full=True, max_problems=max_problems).ledger


@dataclass
class LedgerCheck:
    """What ``ledger_check`` found: the ledger's report (MACs, chain, seals), the ledger's
    total (credits minus debits: zero), every account whose balance differs from its legs,
    the checkpoint it started from (None: the whole ledger), and the checkpoint it reached."""

    ledger: LedgerReport
    ledger_sum: int = 0
    accounts: int = 0
    account_mismatches: list[dict] = field(default_factory=list)
    since: LedgerCheckpoint | None = None
    reached: LedgerCheckpoint | None = None  # unsaved; ``ledger_check(save=True)`` saves it when all is well

    @property
    def ok(self) -> bool:
        return self.ledger.ok and self.ledger_sum == 0 and not self.account_mismatches


def latest_checkpoint() -> LedgerCheckpoint | None:
    return LedgerCheckpoint.objects.order_by("-seq", "-id").first()


def ledger_check(
    *, full: bool = False, save: bool = False, progress: Callable[[int], None] | None = None, max_problems: int = 100
) -> LedgerCheck:
    """Verify the ledger from the latest checkpoint on (a routine check: the seals after
    it, the transactions they seal and the unsealed ones, every MAC of them and the chain
    from the checkpoint's hash; every balance against the checkpoint's sums plus the new
    legs), or the whole ledger (``full``, or when there is no checkpoint yet).

    What was verified before the checkpoint is not read again: an edit of a row sealed
    before it is the full verification's to find (``ledger_verification_run``, in the
    background). ``progress(done)`` is called every ``VERIFY_CHUNK`` transactions, while the
    rows stream: it must not use the database.
    ``save``: when everything checks out, the point reached becomes the next checkpoint.
    """
    report = LedgerReport()

    def problem(text: str) -> None:
        if len(report.problems) < max_problems:
            report.problems.append(text)

    with ledger_snapshot():
        since = None if full else latest_checkpoint()
        if since is None:
            parts = [(Transaction.objects.all(), Leg.objects.all())]
            seals = LedgerSeal.objects.all()
            prev, expected_seq = GENESIS, 1
            sums: dict[int, int] = {}
            floor = 0
        else:
            seals = LedgerSeal.objects.filter(seq__gt=since.seq)
            # Two index ranges: the transactions of the new seals (from the lowest id they
            # seal: read in id order, a cursor would otherwise walk every seal for its
            # first rows), and the unsealed ones above the floor (an OR of the two read
            # every transaction).
            first = seals.aggregate(first=Min("transaction_id"))["first"] or 0
            parts = [
                (
                    Transaction.objects.filter(id__gte=first, seal__seq__gt=since.seq),
                    Leg.objects.filter(transaction_id__gte=first, transaction__seal__seq__gt=since.seq),
                ),
                (
                    Transaction.objects.filter(id__gt=since.floor, seal__isnull=True),
                    Leg.objects.filter(transaction_id__gt=since.floor, transaction__seal__isnull=True),
                ),
            ]
            prev, expected_seq = since.hash, since.seq + 1
            sums = {int(k): v for k, v in since.sums.items()}
            floor = since.floor
        unsealed_from: int | None = None
        key = _mac_key()
        sealed_seen = 0  # sealed transactions read: a seal beyond them names a deleted one
        for txns, legs in parts:
            whole = since is None and connection.vendor == "postgresql"
            legs_seen = 0
            for row in _whole_ledger_rows() if whole else _ledger_rows(txns, legs):
                report.transactions += 1
                txn_id, mac, seq, legs_text, legs_count = row[0], row[9], row[10], row[13], row[14]
                if mac != hmac.digest(key, _content(row[1:9], legs_text or ""), "sha256").hex():
                    problem(f"transaction #{txn_id} does not match its MAC (edited, or inserted without the key)")
                if seq is not None:
                    sealed_seen += 1
                    if row[12] != seal_hash(row[11], seq, txn_id, mac):
                        problem(f"seal {seq} does not match transaction #{txn_id} (edited after sealing)")
                elif unsealed_from is None or txn_id < unsealed_from:
                    unsealed_from = txn_id
                if not legs_count:
                    problem(f"transaction #{txn_id} has no legs (deleted legs)")
                elif row[15]:
                    problem(f"transaction #{txn_id} does not balance")
                legs_seen += legs_count
                if progress is not None and report.transactions % VERIFY_CHUNK == 0:
                    progress(report.transactions)
            # Every leg of the part, summed by account (the balances are checked below);
            # more of them than the transactions read hold: legs of a deleted transaction.
            part_sums, part_legs = _leg_sums(legs)
            for account_id, total in part_sums.items():
                sums[account_id] = sums.get(account_id, 0) + total
            if part_legs != legs_seen:
                orphans = legs.exclude(transaction_id__in=Transaction.objects.values("id"))
                for txn_id in (
                    orphans.order_by("transaction_id")
                    .values_list("transaction_id", flat=True)
                    .distinct()[:max_problems]
                ):
                    problem(f"a leg of transaction #{txn_id}, which is gone: a deleted transaction")
        # The legs of unsealed transactions: not in the next checkpoint's sums.
        not_sealed = (
            _leg_sums(Leg.objects.filter(transaction_id__gte=unsealed_from, transaction__seal__isnull=True))[0]
            if unsealed_from is not None
            else {}
        )

        # The game each row names must be the one its kind and refs (or, for a reversal,
        # the row it reverses) say: the MAC does not cover it, these do.
        wrong_game = ~reduce(and_, GAME_RULES.values()) | (
            Q(kind=Transaction.Kind.REVERSAL) & ~Q(game=F("reverses__game"))
        )
        for txn_id, game in (
            row
            for part, _ in parts
            for row in part.filter(wrong_game).order_by("id").values_list("id", "game")[:max_problems]
        ):
            problem(
                f"transaction #{txn_id} names the game “{game or 'none'}”, which its kind and references contradict "
                "(edited)"
            )

        # The chain: each seal holds the hash of the one before it, in an unbroken
        # sequence (each seal's own hash was checked against its transaction above).
        rows = seals.order_by("seq").values_list("seq", "prev_hash", "hash").iterator(chunk_size=VERIFY_CHUNK)
        for seq, prev_hash, digest in rows:
            if seq != expected_seq:
                problem(f"seal {expected_seq} is missing (the chain jumps to {seq}): a deleted seal")
            if prev_hash != prev:
                problem(f"seal {seq} does not hold the hash of the seal before it")
            prev, expected_seq = digest, seq + 1
            report.sealed += 1
        if report.sealed != sealed_seen:  # a seal whose transaction is gone (read only then)
            orphans = seals.exclude(transaction_id__in=Transaction.objects.values("id")).order_by("seq")
            for seq, transaction_id in orphans.values_list("seq", "transaction_id")[:max_problems]:
                problem(f"seal {seq} names transaction #{transaction_id}, which is gone: a deleted transaction")

        # Unsealed transactions: waiting for the sealer, unless it has sealed something
        # well after they were due (it ran, and left them out: inserted behind its back).
        unsealed = parts[-1][0].filter(id__gte=unsealed_from or 0, seal__isnull=True)
        waiting = report.transactions - sealed_seen
        # The newest seal's time (seals are written in order: the last by seq, read by key).
        last_sealed = LedgerSeal.objects.order_by("-seq").values_list("sealed_at", flat=True).first()
        if last_sealed is not None and waiting:
            passed_over = unsealed.filter(created_at__lt=last_sealed - SEAL_AFTER - SEAL_GRACE)
            for txn_id in passed_over.order_by("id").values_list("id", flat=True)[:max_problems]:
                problem(f"transaction #{txn_id} was never sealed (inserted behind the sealer's back)")
            waiting -= passed_over.count()
        report.pending = waiting

        # Every balance against its legs: the checkpoint's sums plus the new legs.
        check = LedgerCheck(ledger=report, since=since, ledger_sum=sum(sums.values()))
        for pk, code, balance in Account.objects.values_list("pk", "code", "balance").iterator(chunk_size=5000):
            check.accounts += 1
            if sums.get(pk, 0) != balance:
                check.account_mismatches.append({"account": code, "balance": balance, "from_legs": sums.get(pk, 0)})

        # The point reached: the last seal read; every transaction up to the new floor is
        # sealed (below the first unsealed one, and old enough that none is still to commit).
        settled = (
            Transaction.objects.filter(created_at__lt=timezone.now() - SEAL_AFTER - SEAL_GRACE).aggregate(m=Max("id"))[
                "m"
            ]
            or 0
        )
        new_floor = max(floor, min(settled, unsealed_from - 1 if unsealed_from is not None else settled))
        reached_seq = expected_seq - 1
        check.reached = LedgerCheckpoint(
            seq=reached_seq,
            hash=prev,
            floor=new_floor,
            sums={str(k): v - not_sealed.get(k, 0) for k, v in sums.items() if v != not_sealed.get(k, 0)},
            transactions=(since.transactions if since else 0) + report.sealed,
            full=since is None,
        )
    if save and check.ok and (since is None or reached_seq > since.seq or new_floor > since.floor):
        check.reached.save()
    return check


# --- checkpoints and the full verification in the background -----------------------------


def ledger_checkpoint() -> LedgerCheck:
    """The routine check from the latest checkpoint, saving the point reached as the next
    one when everything checks out (periodic: Celery beat, or the periodic loop)."""
    return ledger_check(save=True)


def _progress_key(verification_id: int) -> str:
    return f"wallets:ledger-verification:{verification_id}:done"


def ledger_verification_request(*, user) -> LedgerVerification:
    """Queue a full verification of the ledger (``ledger_verification_run``, on Celery)."""
    from wallets.tasks import verify_ledger_full

    with transaction.atomic():
        job = LedgerVerification.objects.create(requested_by=user)
        transaction.on_commit(lambda: verify_ledger_full.delay(job.pk))
    return job


def ledger_verification_run(*, verification_id: int) -> LedgerVerification | None:
    """Run a queued full verification: every MAC, the whole chain and every balance, from
    one snapshot, streamed; its progress in the cache while it runs; what it found on its
    row; a clean ledger becomes a checkpoint. Run twice, the second does nothing."""
    from django.core.cache import cache

    with transaction.atomic():
        job = LedgerVerification.objects.select_for_update().filter(pk=verification_id).first()
        if job is None or job.status != LedgerVerification.Status.QUEUED:
            return job
        job.status, job.started_at = LedgerVerification.Status.RUNNING, timezone.now()
        job.total = (LedgerSeal.objects.aggregate(m=Max("seq"))["m"] or 0) + Transaction.objects.filter(
            seal__isnull=True
        ).count()
        job.save(update_fields=["status", "started_at", "total"])
    key = _progress_key(job.pk)
    try:
        check = ledger_check(full=True, save=True, progress=lambda done: cache.set(key, done, timeout=24 * 3600))
    except Exception:
        job.status, job.finished_at = LedgerVerification.Status.FAILED, timezone.now()
        job.save(update_fields=["status", "finished_at"])
        raise
    problems = list(check.ledger.problems)
    problems += [
        f"account {m['account']}: balance {m['balance']}, its legs give {m['from_legs']}"
        for m in check.account_mismatches
    ]
    if check.ledger_sum:
        problems.append(f"the ledger sums to {check.ledger_sum}, not 0")
    job.status, job.finished_at, job.ok = LedgerVerification.Status.DONE, timezone.now(), check.ok
    job.done, job.problems = check.ledger.transactions, problems
    job.save(update_fields=["status", "finished_at", "ok", "done", "problems"])
    cache.delete(key)
    return job


def ledger_verification_progress(*, job: LedgerVerification) -> int:
    """Transactions read so far by a running verification (from the cache), else its count."""
    from django.core.cache import cache

    if job.status == LedgerVerification.Status.RUNNING:
        return cache.get(_progress_key(job.pk)) or job.done
    return job.done
