"""Records of the back office.

``ExportJob`` is the register of exports: every export an auditor takes, streamed to the
browser or written to a file by a Celery task, is one row; ``subject`` says what it holds
(the ledger's legs, or the poker room's hand records, streamed only). It pins the snapshot
(``ledger_upto``: the highest transaction id included), records the filters, who asked
and when, the progress, and when it is complete the manifest: row count, totals per
transaction kind and the SHA-256 of exactly the bytes delivered. The register is
auditor-wide: every auditor sees and may download every export; nobody else may.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ExportJob(models.Model):
    class Subject(models.TextChoices):
        LEDGER = "ledger", _("Ledger")
        POKER_HANDS = "poker_hands", _("Poker hand records")

    class Format(models.TextChoices):
        CSV = "csv", _("CSV")
        JSONL = "jsonl", _("JSON Lines")
        POKERSTARS = "pokerstars", _("PokerStars text")

    class Mode(models.TextChoices):
        STREAM = "stream", _("Streamed download")
        FILE = "file", _("File written in the background")

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for a worker")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")
        ABORTED = "aborted", _("Aborted (the download was interrupted)")

    subject = models.CharField(max_length=12, choices=Subject.choices, default=Subject.LEDGER)
    format = models.CharField(max_length=10, choices=Format.choices)
    mode = models.CharField(max_length=6, choices=Mode.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    filters = models.JSONField(default=dict, help_text=_("The filters, as the manifest states them."))
    ledger_upto = models.BigIntegerField(default=0, help_text=_("Highest transaction id in the snapshot."))
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    rows_total = models.BigIntegerField(null=True, blank=True)
    rows_written = models.BigIntegerField(default=0)
    bytes_written = models.BigIntegerField(default=0)
    file_name = models.CharField(max_length=120, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    manifest = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    attempt = models.PositiveIntegerField(default=0)
    # A file export's worker records its progress here at least every few seconds; the
    # sweeper (``backoffice.exports.export_sweep``) fails a running job whose heartbeat stopped.
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"Export #{self.pk} ({self.subject}, {self.format}, {self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED, self.Status.ABORTED)

    @property
    def retryable(self) -> bool:
        return self.mode == self.Mode.FILE and self.status == self.Status.FAILED

    @property
    def progress_pct(self) -> int | None:
        """Rows written as a whole percent of the total (None while the total is unknown)."""
        if self.status == self.Status.DONE:
            return 100
        if not self.rows_total:
            return None
        return min(100, self.rows_written * 100 // self.rows_total)


class ReportDay(models.Model):
    """A day (site time zone) whose report rows are rolled up (``TableDay``, ``RakeDay``):
    written once the day has closed by ``backoffice.rollups.report_days_close`` (periodic),
    never by a step of a hand. The reports read closed days from the rollups and the open
    day from the hands and the ledger."""

    day = models.DateField(primary_key=True)
    closed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["day"]


class TableDay(models.Model):
    """One closed day of one Caribbean table and pay table: the settled hands' figures (by
    the day they were settled) and what their settlements moved to the house."""

    day = models.DateField()
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+", db_index=False)
    paytable_name = models.CharField(max_length=40)
    # The pay table's odds when every hand of the row had the same; null if they differed.
    paytable_data = models.JSONField(null=True, blank=True)
    hands = models.BigIntegerField()
    seats = models.BigIntegerField()
    raised = models.BigIntegerField()
    antes = models.BigIntegerField()
    raises = models.BigIntegerField()
    jackpot_bets = models.BigIntegerField()
    ante_returns = models.BigIntegerField()
    raise_returns = models.BigIntegerField()
    jackpot_wins = models.BigIntegerField()
    ledger_house = models.BigIntegerField()

    class Meta:
        ordering = ["day", "table", "paytable_name"]
        constraints = [models.UniqueConstraint(fields=["day", "table", "paytable_name"], name="table_day_once")]


class RakeDay(models.Model):
    """One closed day of one poker table: the hands that ended that day, their pots and
    the rake their records state (the ledger's rake is ``wallets.AccountDay``'s)."""

    day = models.DateField()
    table = models.ForeignKey("poker.PokerTable", on_delete=models.PROTECT, related_name="+", db_index=False)
    hands = models.BigIntegerField()
    pots = models.BigIntegerField()
    record_rake = models.BigIntegerField()

    class Meta:
        ordering = ["day", "table"]
        constraints = [models.UniqueConstraint(fields=["day", "table"], name="rake_day_once")]


class PlayerDay(models.Model):
    """One closed day of one player's Caribbean hands (by the day they were settled): the
    auditor's player page adds these to the open day's hands instead of reading every
    hand the player ever played."""

    day = models.DateField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False)
    hands = models.BigIntegerField()
    net = models.BigIntegerField()
    jackpot_wins = models.BigIntegerField()

    class Meta:
        ordering = ["player", "day"]
        constraints = [models.UniqueConstraint(fields=["player", "day"], name="player_day_once")]
