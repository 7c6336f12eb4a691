"""Exports of the payout ledger: one row per leg, as CSV or JSON Lines, with a manifest;
and of the poker room's hand records (JSON Lines or PokerStars text, streamed, below).

Format (both encodings carry the same columns, ``COLUMNS``):

    transaction, leg, time, kind, account, account_kind, owner, side, amount, game, table, hand, memo, mac

- ``time``: the transaction's time, ISO 8601 in UTC with microseconds (as its MAC hashes it).
- ``side``: ``D`` or ``C``; ``amount``: the leg's signed effect on the account's
  credit-normal balance as a decimal string (``"-12.50"`` a debit, ``"12.50"`` a credit),
  so the amounts of an account add up to its balance and those of a transaction to zero.
- ``game``: ``caribbean`` or ``poker``, whose table and hand ``table`` and ``hand`` are
  (the two games number theirs apart); ``table``, ``hand``: the ledger's references.
  All three empty / ``null`` when the transaction names no table or hand.
- ``mac``: the transaction's HMAC (``wallets.integrity``), to match rows to the sealed chain.
- CSV: RFC 4180 (UTF-8, no BOM, a header row, CRLF line ends). Text cells that a
  spreadsheet would run as a formula (first character ``= + - @``, tab or CR) get a
  leading ``'``; the manifest says so. JSON Lines: one object per line, keys in column
  order, ids as numbers, the exact texts.

Rows come oldest transaction first, legs in id order, read through a server-side cursor
(``QuerySet.iterator(chunk_size=…)``) and encoded in chunks, so memory stays flat however
many rows there are. Each export pins a snapshot (``ledger_upto``, the highest transaction
id when it started; the ledger is append-only) and is recorded in the register
(``ExportJob``). The manifest (rows, totals per kind, filters, times, byte count and
SHA-256) is computed from exactly the bytes handed out, as they pass: for a streamed
download it is stored when the last byte has been yielded (``GET …/manifest/`` after the
download); for a file export it is written beside the file, whose hash is checked again
on disk before it is published.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from itertools import islice
from json.encoder import encode_basestring
from pathlib import Path
from time import monotonic

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from backoffice.models import ExportJob
from casino.cents import format_cents
from casino.http.errors import Conflict, NotFound, ValidationError
from poker.audit import PokerHandFilters, poker_export_hands, poker_export_rows, poker_hand_jsonl, poker_hand_text
from wallets.reports import ledger_export_count, ledger_export_rows
from wallets.selectors import LedgerFilters, ledger_upto

COLUMNS = (
    "transaction",
    "leg",
    "time",
    "kind",
    "account",
    "account_kind",
    "owner",
    "side",
    "amount",
    "game",
    "table",
    "hand",
    "memo",
    "mac",
)
MEDIA_TYPES = {
    ExportJob.Format.CSV: "text/csv; charset=utf-8",
    ExportJob.Format.JSONL: "application/x-ndjson; charset=utf-8",
    ExportJob.Format.POKERSTARS: "text/plain; charset=utf-8",
}
EXTENSIONS = {ExportJob.Format.CSV: "csv", ExportJob.Format.JSONL: "jsonl", ExportJob.Format.POKERSTARS: "txt"}
LEDGER_FORMATS = (ExportJob.Format.CSV, ExportJob.Format.JSONL)
POKER_FORMATS = (ExportJob.Format.JSONL, ExportJob.Format.POKERSTARS)
# What each subject exports as, and the refusal of any other format.
EXPORT_FORMATS = {
    ExportJob.Subject.LEDGER: (LEDGER_FORMATS, "The ledger exports as CSV or JSON Lines."),
    ExportJob.Subject.POKER_HANDS: (POKER_FORMATS, "Poker hands export as JSON Lines or PokerStars text."),
}
FILE_PREFIXES = {ExportJob.Subject.LEDGER: "ledger", ExportJob.Subject.POKER_HANDS: "poker-hands"}
FETCH_CHUNK = 5_000  # rows per fetch from the server-side cursor
ROWS_PER_CHUNK = 2_000  # rows per chunk handed to the response or the file (~250 kB)
FILE_READ_CHUNK = 256 * 1024
PROGRESS_SECONDS = 0.5  # a file export records its progress (and heartbeat) at most this often
# A running file export with no heartbeat for this long has lost its worker (killed,
# or its machine gone): the sweeper marks it failed, and it can be retried. A worker
# writes at least one chunk every few seconds, so two minutes is never a slow worker.
STALE_AFTER = timedelta(minutes=2)
# A streamed download whose server died stays "running" too: aborted after an hour (a
# million-row download takes about a minute).
STREAM_STALE_AFTER = timedelta(hours=1)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
FILE_NAME_RE = re.compile(r"^(ledger|poker-hands)-[0-9]+-[0-9TZ]+\.(csv|jsonl|txt)$")


def export_dir() -> Path:
    """Where file exports go: ``MEDIA_ROOT/exports``."""
    return Path(settings.MEDIA_ROOT) / "exports"


def export_file_name(job: ExportJob) -> str:
    stamp = (job.started_at or job.created_at or timezone.now()).astimezone(dt_timezone.utc)
    return f"{FILE_PREFIXES[job.subject]}-{job.pk:06d}-{stamp:%Y%m%dT%H%M%SZ}.{EXTENSIONS[job.format]}"


# --- rows -> bytes ------------------------------------------------------------------------


class ExportTally:
    """Rows, transactions and totals per transaction kind, counted as the rows are encoded."""

    def __init__(self) -> None:
        self.rows = 0
        self.transactions = 0
        self._last_transaction = None
        # kind -> [transactions, legs, debits, credits] (cents)
        self.by_kind: dict[str, list[int]] = {}

    def totals(self) -> dict:
        by_kind = {}
        all_debits = all_credits = 0
        for kind in sorted(self.by_kind):
            txns, legs, debits, credits = self.by_kind[kind]
            all_debits += debits
            all_credits += credits
            by_kind[kind] = {
                "transactions": txns,
                "legs": legs,
                "debits": format_cents(debits),
                "credits": format_cents(credits),
                "net": format_cents(credits - debits),
            }
        return {
            "by_kind": by_kind,
            "all": {
                "debits": format_cents(all_debits),
                "credits": format_cents(all_credits),
                "net": format_cents(all_credits - all_debits),
            },
        }


def _utc_text(moment) -> str:
    if moment.tzinfo is not dt_timezone.utc:
        moment = moment.astimezone(dt_timezone.utc)
    return moment.isoformat(timespec="microseconds")


def _csv_cell(text: str | None) -> str:
    """A text cell, quoted when it must be (RFC 4180) and kept from running as a formula."""
    if not text:
        return ""
    if text[0] in FORMULA_START:
        text = "'" + text
    if '"' in text or "," in text or "\n" in text or "\r" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def _csv_header() -> bytes:
    return (",".join(COLUMNS) + "\r\n").encode()


def _tallied(rows: list[tuple], tally: ExportTally) -> list[tuple[tuple, int]]:
    """Count a chunk of rows into the manifest's totals; each row with its signed amount."""
    by_kind = tally.by_kind
    last = tally._last_transaction
    out = []
    for row in rows:
        txn, kind, side, amount = row[0], row[3], row[7], row[8]
        counts = by_kind.get(kind)
        if counts is None:
            counts = by_kind[kind] = [0, 0, 0, 0]
        if txn != last:
            counts[0] += 1
            tally.transactions += 1
            last = txn
        counts[1] += 1
        if side == "C":
            counts[3] += amount
            out.append((row, amount))
        else:
            counts[2] += amount
            out.append((row, -amount))
    tally._last_transaction = last
    tally.rows += len(rows)
    return out


class _Parts:
    """An export's text parts written once and reused: a transaction's own columns (its
    legs come together) and an account's (accounts recur), and amounts (amounts recur).
    Bounded: a part table that fills up starts again."""

    LIMIT = 20_000

    def __init__(self, transaction: Callable[[tuple], tuple[str, str]], account: Callable[[tuple], str]) -> None:
        self._transaction, self._account = transaction, account
        self.last: object = None
        self.head = self.tail = ""
        self.accounts: dict[str, str] = {}
        self.amounts: dict[int, str] = {}

    def lines(self, rows: list[tuple], tally: ExportTally, line: Callable[..., str]) -> bytes:
        accounts, amounts, limit = self.accounts, self.amounts, self.LIMIT
        out = []
        for row, signed in _tallied(rows, tally):
            if row[0] != self.last:
                self.last = row[0]
                self.head, self.tail = self._transaction(row)
            account = accounts.get(row[4])
            if account is None:
                if len(accounts) >= limit:
                    accounts.clear()
                account = accounts[row[4]] = self._account(row)
            amount = amounts.get(signed)
            if amount is None:
                if len(amounts) >= limit:
                    amounts.clear()
                amount = amounts[signed] = format_cents(signed)
            out.append(line(row, self.head, account, amount, self.tail))
        return "".join(out).encode()


def _csv_encoder() -> Callable[[list[tuple], ExportTally], bytes]:
    parts = _Parts(
        transaction=lambda r: (
            f"{r[2]},{r[3]},",
            f"{r[9]},{'' if r[10] is None else r[10]},{'' if r[11] is None else r[11]},{_csv_cell(r[12])},{r[13]}\r\n",
        ),
        account=lambda r: f"{_csv_cell(r[4])},{r[5]},{_csv_cell(r[6])},",
    )

    def line(r: tuple, head: str, account: str, amount: str, tail: str) -> str:
        return f"{r[0]},{r[1]},{head}{account}{r[7]},{amount},{tail}"

    return lambda rows, tally: parts.lines(rows, tally, line)


def _json_text(text: str | None) -> str:
    return "null" if text is None else encode_basestring(text)


def _jsonl_encoder() -> Callable[[list[tuple], ExportTally], bytes]:
    parts = _Parts(
        transaction=lambda r: (
            f'"time":"{r[2]}","kind":{encode_basestring(r[3])},',
            f'"game":{_json_text(r[9] or None)},"table":{"null" if r[10] is None else r[10]},'
            f'"hand":{"null" if r[11] is None else r[11]},"memo":{encode_basestring(r[12])},'
            f'"mac":{encode_basestring(r[13])}}}\n',
        ),
        account=lambda r: (
            f'"account":{encode_basestring(r[4])},"account_kind":{encode_basestring(r[5])},"owner":{_json_text(r[6])},'
        ),
    )

    def line(r: tuple, head: str, account: str, amount: str, tail: str) -> str:
        return f'{{"transaction":{r[0]},"leg":{r[1]},{head}{account}"side":"{r[7]}","amount":"{amount}",{tail}'

    return lambda rows, tally: parts.lines(rows, tally, line)


# Each format's header and a new encoder per export (its parts are the export's own).
ENCODERS = {
    ExportJob.Format.CSV: (_csv_header, _csv_encoder),
    ExportJob.Format.JSONL: (lambda: b"", _jsonl_encoder),
}


def export_chunks(
    *, fmt: str, filters: LedgerFilters, upto: int, tally: ExportTally, rows: Iterable[tuple] | None = None
) -> Iterator[bytes]:
    """The export's bytes, in chunks of ``ROWS_PER_CHUNK`` rows; ``tally`` counts as they go.

    ``rows`` replaces the database query (the benchmark feeds rows it read itself).
    """
    header, encoder = ENCODERS[fmt]
    encode = encoder()
    head = header()
    if head:
        yield head
    if rows is None:
        rows = ledger_export_rows(filters=filters, upto=upto).iterator(chunk_size=FETCH_CHUNK)
    rows = iter(rows)
    while True:
        batch = list(islice(rows, ROWS_PER_CHUNK))
        if not batch:
            return
        yield encode(batch, tally)


class Delivery:
    """Counts and hashes exactly the bytes that pass through it, on their way out."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self.bytes = 0

    def __call__(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self._sha.update(chunk)
            self.bytes += len(chunk)
            yield chunk

    @property
    def sha256(self) -> str:
        return self._sha.hexdigest()


def build_manifest(*, job: ExportJob, tally: ExportTally, delivery: Delivery, completed_at, file_name: str) -> dict:
    totals = tally.totals()
    manifest = {
        "manifest_version": 1,
        "export": job.pk,
        "mode": job.mode,
        "format": job.format,
        "media_type": MEDIA_TYPES[job.format],
        "file": file_name,
        "columns": list(COLUMNS),
        "currency": settings.CASINO_CURRENCY,
        "amounts": "signed decimal strings: + credits, - debits the account's credit-normal balance",
        "order": "transaction id, then leg id (oldest first)",
        "filters": job.filters,
        "ledger_upto_transaction": job.ledger_upto,
        "generated_by": job.requested_by.get_username(),
        "generated_at": _utc_text(job.started_at),
        "completed_at": _utc_text(completed_at),
        "row_count": tally.rows,
        "transaction_count": tally.transactions,
        "totals_by_kind": totals["by_kind"],
        "totals": totals["all"],
        "bytes": delivery.bytes,
        "sha256": delivery.sha256,
    }
    if job.format == ExportJob.Format.CSV:
        manifest["csv_formula_guard"] = "text cells starting with = + - @ TAB or CR are prefixed with '"
    return manifest


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()


# --- the register -------------------------------------------------------------------------


def export_get(*, job_id: int) -> ExportJob:
    job = ExportJob.objects.select_related("requested_by").filter(pk=job_id).first()
    if job is None:
        raise NotFound("No such export.", code="export_not_found")
    return job


def export_list() -> list[ExportJob]:
    return list(ExportJob.objects.select_related("requested_by").order_by("-id")[:100])


def _export_open(*, subject: str, mode: str, user, fmt: str, filters) -> ExportJob:
    """Register an export of ``subject`` in ``fmt``; its snapshot is now (the ledger's last
    transaction). A streamed one starts at once and is named; a file one is handed to a
    Celery worker once its row has committed (and retried as any file export)."""
    from backoffice.tasks import export_run

    allowed, refusal = EXPORT_FORMATS[subject]
    if fmt not in allowed:
        raise ValidationError(refusal, code="export_format_invalid", extra={"format": fmt, "allowed": list(allowed)})
    streamed = mode == ExportJob.Mode.STREAM
    with transaction.atomic():
        job = ExportJob.objects.create(
            subject=subject,
            format=fmt,
            mode=mode,
            status=ExportJob.Status.RUNNING if streamed else ExportJob.Status.PENDING,
            filters=filters.describe(),
            ledger_upto=ledger_upto(),
            requested_by=user,
            started_at=timezone.now() if streamed else None,
        )
        if streamed:
            job.file_name = export_file_name(job)
            ExportJob.objects.filter(pk=job.pk).update(file_name=job.file_name)
        else:
            transaction.on_commit(lambda: export_run.delay(job.pk))
    return job


def export_stream_open(*, user, fmt: str, filters: LedgerFilters) -> ExportJob:
    """Record a streamed download of the ledger in the register and pin its snapshot."""
    return _export_open(
        subject=ExportJob.Subject.LEDGER, mode=ExportJob.Mode.STREAM, user=user, fmt=fmt, filters=filters
    )


def export_file_request(*, user, fmt: str, filters: LedgerFilters) -> ExportJob:
    """Register a file export of the ledger and hand it to a Celery worker."""
    return _export_open(subject=ExportJob.Subject.LEDGER, mode=ExportJob.Mode.FILE, user=user, fmt=fmt, filters=filters)


@dataclass
class _Source:
    """What an export job reads and how it is counted: the ledger's legs or the poker hands."""

    count: Callable[[], int]  # rows in the snapshot (a file export's progress total)
    chunks: Callable[[], Iterator[bytes]]
    rows: Callable[[], int]  # rows encoded so far
    manifest: Callable[[Delivery, datetime, str], dict]  # (delivery, completed_at, file name)


def _source(job: ExportJob, filters: LedgerFilters | None = None) -> _Source:
    """The job's rows: ``filters`` as parsed by the caller, else read back from the job."""
    if job.subject == ExportJob.Subject.POKER_HANDS:
        return _poker_source(job)
    filters = filters or LedgerFilters.from_description(job.filters)
    tally = ExportTally()
    return _Source(
        count=lambda: ledger_export_count(filters=filters, upto=job.ledger_upto),
        chunks=lambda: export_chunks(fmt=job.format, filters=filters, upto=job.ledger_upto, tally=tally),
        rows=lambda: tally.rows,
        manifest=lambda delivery, finished, name: build_manifest(
            job=job, tally=tally, delivery=delivery, completed_at=finished, file_name=name
        ),
    )


def export_stream(*, job: ExportJob, filters: LedgerFilters) -> Iterator[bytes]:
    """The bytes of a streamed ledger export; when the last one has been yielded, the job
    is done and its manifest holds their count and SHA-256. An interrupted download is
    recorded as aborted (with no hash: not every byte yielded reached the client)."""
    return _streamed(job, _source(job, filters))


def _streamed(job: ExportJob, source: _Source) -> Iterator[bytes]:
    """Stream the source's chunks through a ``Delivery``; record the job done with its
    manifest after the last byte, or aborted if the download stopped before it."""
    chunks, rows = source.chunks, source.rows
    delivery = Delivery()
    complete = False
    try:
        # Inside a transaction the PostgreSQL cursor is not WITH HOLD: rows flow as they
        # are read instead of being materialised first. The snapshot is one statement's.
        with transaction.atomic():
            yield from delivery(chunks())
        complete = True
    finally:
        finished = timezone.now()
        if complete:
            ExportJob.objects.filter(pk=job.pk).update(
                status=ExportJob.Status.DONE,
                finished_at=finished,
                rows_total=rows(),
                rows_written=rows(),
                bytes_written=delivery.bytes,
                sha256=delivery.sha256,
                manifest=source.manifest(delivery, finished, job.file_name),
            )
        else:
            ExportJob.objects.filter(pk=job.pk).update(
                status=ExportJob.Status.ABORTED,
                finished_at=finished,
                rows_written=rows(),
                bytes_written=delivery.bytes,
                error="The download stopped before the last byte.",
            )


def file_sha256(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as source:
        while block := source.read(1024 * 1024):
            sha.update(block)
    return sha.hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    part = path.with_name(f".{path.name}.part")
    with open(part, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(part, path)


def _part_files(folder: Path, job_id: int) -> list[Path]:
    """Every attempt's half-written file of a job (its name holds the attempt's start)."""
    return list(folder.glob(f".*-{job_id:06d}-*.part")) if folder.exists() else []


class _Superseded(Exception):
    """This attempt is no longer the job's: redelivered to another worker, or swept."""


def export_file_run(*, job_id: int) -> ExportJob | None:
    """Write a file export and its manifest; idempotent (a finished job is left alone, a
    redelivered one starts again under a new attempt number, whose writes alone count).

    A new attempt first removes the half-written files of earlier ones (a killed worker
    leaves its ``.part``); an attempt that is no longer the job's (another has claimed
    it, or the sweeper failed it) stops at its next progress update, removes its own
    file and publishes nothing.

    Runs outside a transaction on purpose: the progress updates between fetches commit
    at once, so the page and the API show them (on PostgreSQL the cursor is then WITH
    HOLD: the server materialises the rows, the worker's memory stays flat all the same).
    """
    now = timezone.now()
    claimed = ExportJob.objects.filter(
        pk=job_id, mode=ExportJob.Mode.FILE, status__in=[ExportJob.Status.PENDING, ExportJob.Status.RUNNING]
    ).update(status=ExportJob.Status.RUNNING, attempt=F("attempt") + 1, started_at=now, heartbeat_at=now, error="")
    if not claimed:
        return None
    job = ExportJob.objects.select_related("requested_by").get(pk=job_id)
    mine = ExportJob.objects.filter(pk=job_id, attempt=job.attempt, status=ExportJob.Status.RUNNING)
    folder = export_dir()
    name = export_file_name(job)
    part = folder / f".{name}.{job.attempt}.part"
    for stale in _part_files(folder, job.pk):
        stale.unlink(missing_ok=True)  # an earlier attempt's: its worker died, or is told to stop

    def progress(**fields) -> None:
        if not mine.update(heartbeat_at=timezone.now(), **fields):
            raise _Superseded()

    try:
        source = _source(job)
        progress(rows_total=source.count(), rows_written=0, bytes_written=0)
        folder.mkdir(parents=True, exist_ok=True)
        delivery = Delivery()
        with open(part, "wb") as out:
            last = monotonic()
            for chunk in delivery(source.chunks()):
                out.write(chunk)
                if monotonic() - last >= PROGRESS_SECONDS:
                    progress(rows_written=source.rows(), bytes_written=delivery.bytes)
                    last = monotonic()
            out.flush()
            os.fsync(out.fileno())
        on_disk = file_sha256(part)
        if on_disk != delivery.sha256:
            raise RuntimeError(f"the file on disk hashes to {on_disk}, not {delivery.sha256} as written")
        progress()  # still ours, just before publishing
        os.replace(part, folder / name)
        finished = timezone.now()
        manifest = source.manifest(delivery, finished, name)
        _write_atomically(folder / f"{name}.manifest.json", manifest_bytes(manifest))
        mine.update(
            status=ExportJob.Status.DONE,
            finished_at=finished,
            heartbeat_at=finished,
            file_name=name,
            rows_written=source.rows(),
            bytes_written=delivery.bytes,
            sha256=delivery.sha256,
            manifest=manifest,
        )
    except _Superseded:
        part.unlink(missing_ok=True)
        return None
    except Exception as exc:
        part.unlink(missing_ok=True)
        mine.update(
            status=ExportJob.Status.FAILED, finished_at=timezone.now(), error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    return ExportJob.objects.get(pk=job_id)


def export_sweep(*, now: datetime | None = None) -> int:
    """Fail every running file export whose worker stopped (no heartbeat for
    ``STALE_AFTER``) and remove its half-written file; abort every streamed download
    running for longer than ``STREAM_STALE_AFTER`` (its server died). Returns how many."""
    now = now or timezone.now()
    swept = 0
    dead = ExportJob.objects.filter(
        mode=ExportJob.Mode.FILE, status=ExportJob.Status.RUNNING, heartbeat_at__lt=now - STALE_AFTER
    )
    for job_id, attempt in dead.values_list("pk", "attempt"):
        seconds = int(STALE_AFTER.total_seconds())
        # Only this attempt, and only if it is still silent: a worker's progress wins.
        if dead.filter(pk=job_id, attempt=attempt).update(
            status=ExportJob.Status.FAILED,
            finished_at=now,
            error=f"The worker stopped: no progress for {seconds} s. Nothing was published; retry the export.",
        ):
            swept += 1
            for stale in _part_files(export_dir(), job_id):
                stale.unlink(missing_ok=True)
    swept += ExportJob.objects.filter(
        mode=ExportJob.Mode.STREAM, status=ExportJob.Status.RUNNING, started_at__lt=now - STREAM_STALE_AFTER
    ).update(status=ExportJob.Status.ABORTED, finished_at=now, error="The server stopped during the download.")
    return swept


def export_file_retry(*, job_id: int) -> ExportJob:
    """Run a failed file export again (same filters, same snapshot), by a Celery worker
    once the change has committed; any other export is refused (``export_not_retryable``)."""
    from backoffice.tasks import export_run

    with transaction.atomic():
        retried = ExportJob.objects.filter(pk=job_id, mode=ExportJob.Mode.FILE, status=ExportJob.Status.FAILED).update(
            status=ExportJob.Status.PENDING, error="", finished_at=None, rows_written=0, bytes_written=0
        )
        if not retried:
            job = export_get(job_id=job_id)
            raise Conflict(
                "Only a failed file export can be retried.", code="export_not_retryable", extra={"status": job.status}
            )
        transaction.on_commit(lambda: export_run.delay(job_id))
    return export_get(job_id=job_id)


def export_file_path(*, job: ExportJob) -> Path:
    """The finished file of a file export (refused while it is not done)."""
    if job.mode != ExportJob.Mode.FILE:
        raise Conflict("A streamed export has no file to download; take a new one.", code="export_not_a_file")
    if job.status != ExportJob.Status.DONE:
        raise Conflict("This export is not finished.", code="export_not_ready", extra={"status": job.status})
    if not FILE_NAME_RE.match(job.file_name):
        raise NotFound("The export's file name is not valid.", code="export_file_missing")
    path = export_dir() / job.file_name
    if not path.is_file():
        raise NotFound("The export's file is no longer on the server.", code="export_file_missing")
    return path


def export_manifest_bytes(*, job: ExportJob) -> bytes:
    """The manifest as delivered: the file written beside a file export, else the stored JSON."""
    if job.status != ExportJob.Status.DONE or job.manifest is None:
        raise Conflict(
            "This export is not finished: it has no manifest yet.",
            code="export_not_ready",
            extra={"status": job.status},
        )
    if job.mode == ExportJob.Mode.FILE:
        path = export_file_path(job=job).with_name(f"{job.file_name}.manifest.json")
        if path.is_file():
            return path.read_bytes()
    return manifest_bytes(job.manifest)


# --- poker hand records -------------------------------------------------------------------
#
# The poker room's ended hands, one hand per row: JSON Lines (the room's envelope and the
# hand record of docs/stud-hand-record.md, verbatim) or PokerStars text (every down card
# shown: the auditor's view; hands separated by two blank lines). Streamed only, through the
# same register, Delivery and manifest rules as the ledger's. The snapshot is the moment the
# export started: hands that ended at or before it (an ended hand's record never changes).

POKER_HANDS_PER_CHUNK = 50
POKER_SEPARATORS = {ExportJob.Format.JSONL: "\n", ExportJob.Format.POKERSTARS: "\n\n\n"}
POKER_ROW_KEYS = (
    "row_version",
    "hand",
    "table",
    "table_id",
    "number",
    "game",
    "started_at",
    "ended_at",
    "users",
    "pot_total",
    "rake",
    "record",
)


class PokerTally:
    """Hands, pots and rake (cents), in all and per table, counted as the hands are encoded."""

    def __init__(self) -> None:
        self.rows = 0
        self.pots = 0
        self.rake = 0
        self.by_table: dict[str, list[int]] = {}  # name -> [hands, pots, rake]

    def count(self, hand) -> None:
        self.rows += 1
        self.pots += hand.pot_total
        self.rake += hand.rake
        entry = self.by_table.setdefault(hand.table.name, [0, 0, 0])
        entry[0] += 1
        entry[1] += hand.pot_total
        entry[2] += hand.rake


def poker_export_open(*, user, fmt: str, filters: PokerHandFilters) -> ExportJob:
    """Record a streamed export of poker hand records in the register; its snapshot is now."""
    return _export_open(
        subject=ExportJob.Subject.POKER_HANDS, mode=ExportJob.Mode.STREAM, user=user, fmt=fmt, filters=filters
    )


def poker_export_request(*, user, fmt: str, filters: PokerHandFilters) -> ExportJob:
    """Register a file export of poker hand records and hand it to a Celery worker."""
    return _export_open(
        subject=ExportJob.Subject.POKER_HANDS, mode=ExportJob.Mode.FILE, user=user, fmt=fmt, filters=filters
    )


def poker_export_chunks(
    *, fmt: str, filters: PokerHandFilters, ended_upto: datetime, tally: PokerTally
) -> Iterator[bytes]:
    encode = poker_hand_jsonl if fmt == ExportJob.Format.JSONL else poker_hand_text
    end = POKER_SEPARATORS[fmt]
    hands = poker_export_rows(filters=filters, ended_upto=ended_upto)
    while True:
        batch = list(islice(hands, POKER_HANDS_PER_CHUNK))
        if not batch:
            return
        parts = []
        for hand in batch:
            parts.append(encode(hand).rstrip("\n") + end)
            tally.count(hand)
        yield "".join(parts).encode()


def build_poker_manifest(
    *, job: ExportJob, tally: PokerTally, delivery: Delivery, completed_at, file_name: str
) -> dict:
    manifest = {
        "manifest_version": 1,
        "export": job.pk,
        "subject": job.subject,
        "mode": job.mode,
        "format": job.format,
        "media_type": MEDIA_TYPES[job.format],
        "file": file_name,
        "currency": settings.CASINO_CURRENCY,
        "amounts": "decimal strings with two places (the hand record's convention)",
        "order": "hands by the time they ended, then hand id (oldest first)",
        "filters": job.filters,
        "hands_ended_upto": _utc_text(job.created_at),
        "ledger_upto_transaction": job.ledger_upto,
        "generated_by": job.requested_by.get_username(),
        "generated_at": _utc_text(job.started_at),
        "completed_at": _utc_text(completed_at),
        "row_count": tally.rows,
        "hand_totals": {"hands": tally.rows, "pots": format_cents(tally.pots), "rake": format_cents(tally.rake)},
        "by_table": {
            name: {"hands": n, "pots": format_cents(pots), "rake": format_cents(rake)}
            for name, (n, pots, rake) in sorted(tally.by_table.items())
        },
        "bytes": delivery.bytes,
        "sha256": delivery.sha256,
    }
    if job.format == ExportJob.Format.JSONL:
        manifest["columns"] = list(POKER_ROW_KEYS)
        manifest["record_format"] = 'docs/stud-hand-record.md, version 1 (the row\'s "record")'
    else:
        manifest["record_format"] = (
            "PokerStars hand history text, every down card shown; hands separated by two blank lines"
        )
    return manifest


def _poker_source(job: ExportJob) -> _Source:
    """The hands that ended at or before the job was registered (``created_at``: the same
    snapshot for every attempt of a file export), with the job's filters."""
    filters = PokerHandFilters.from_description(job.filters)
    tally = PokerTally()
    upto = job.created_at
    return _Source(
        count=lambda: poker_export_hands(filters=filters, ended_upto=upto).count(),
        chunks=lambda: poker_export_chunks(fmt=job.format, filters=filters, ended_upto=upto, tally=tally),
        rows=lambda: tally.rows,
        manifest=lambda delivery, finished, name: build_poker_manifest(
            job=job, tally=tally, delivery=delivery, completed_at=finished, file_name=name
        ),
    )


def poker_export_stream(*, job: ExportJob) -> Iterator[bytes]:
    """The bytes of a streamed poker hands export (done, with its manifest, after the last byte)."""
    return _streamed(job, _poker_source(job))


def file_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as source:
        while block := source.read(FILE_READ_CHUNK):
            yield block
