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
