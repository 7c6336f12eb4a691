"""File exports whose worker dies.

A worker killed mid-export leaves its job "running" and a half-written ``.part`` file.
The sweeper fails such a job once it has recorded no progress for ``exports.STALE_AFTER``
(and removes the file); a failed export can be retried; a redelivered task leaves no
``.part`` file behind, and an attempt that another one has replaced stops by itself.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from django.utils import timezone

from backoffice import exports, tasks
from backoffice.models import ExportJob
from casino.http.errors import Conflict
from wallets.models import Leg
from wallets.selectors import LedgerFilters

pytestmark = pytest.mark.django_db


class Killed(BaseException):
    """What a killed worker process runs of its own code after the kill: nothing. Raised
    through every ``except Exception``, it leaves the job as a dead process would."""


def _folder() -> Path:
    return Path(django_settings.MEDIA_ROOT) / "exports"


def _parts() -> list[Path]:
    return sorted(_folder().glob(".*.part")) if _folder().exists() else []


def _requested(auditor, django_capture_on_commit_callbacks) -> ExportJob:
    with django_capture_on_commit_callbacks(execute=False):
        return exports.export_file_request(user=auditor, fmt="csv", filters=LedgerFilters())


def _die_after_the_first_chunk(monkeypatch):
    real = exports.export_chunks

    def dying(**kwargs):
        chunks = real(**kwargs)
        yield next(chunks)
        raise Killed()

    monkeypatch.setattr(exports, "export_chunks", dying)
    return real


def test_a_job_whose_worker_died_is_failed_by_the_sweeper_and_can_be_retried(
    casino_day, auditor, api, monkeypatch, django_capture_on_commit_callbacks
):
    job = _requested(auditor, django_capture_on_commit_callbacks)
    real = _die_after_the_first_chunk(monkeypatch)
    with pytest.raises(Killed):
        tasks.export_run(job.pk)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.RUNNING and len(_parts()) == 1  # what the dead worker left

    assert exports.export_sweep(now=timezone.now() + timedelta(seconds=10)) == 0  # a slow worker is not dead
    assert ExportJob.objects.get(pk=job.pk).status == ExportJob.Status.RUNNING
    assert exports.export_sweep(now=timezone.now() + exports.STALE_AFTER + timedelta(seconds=1)) == 1
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED and job.finished_at is not None
    assert f"{int(exports.STALE_AFTER.total_seconds())} s" in job.error and "retry" in job.error
    assert _parts() == []

    monkeypatch.setattr(exports, "export_chunks", real)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:  # the task runs eagerly, after commit
        response = api(auditor).post(reverse("api-auditor-export-retry", args=[job.pk]))
    assert response.status_code == 202 and len(callbacks) == 1, response.content
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE and job.error == "" and job.attempt == 2
    data = (_folder() / job.file_name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == job.sha256 and job.rows_written == Leg.objects.count()
    assert _parts() == []
    again = api(auditor).post(reverse("api-auditor-export-retry", args=[job.pk]))
    assert again.status_code == 409 and again.json()["code"] == "export_not_retryable"


def test_only_a_failed_file_export_can_be_retried(auditor, django_capture_on_commit_callbacks):
    job = _requested(auditor, django_capture_on_commit_callbacks)
    with pytest.raises(Conflict) as refused:
        exports.export_file_retry(job_id=job.pk)  # still waiting for its worker
    assert refused.value.code == "export_not_retryable"
    stream = exports.export_stream_open(user=auditor, fmt="csv", filters=LedgerFilters())
    ExportJob.objects.filter(pk=stream.pk).update(status=ExportJob.Status.ABORTED)
    with pytest.raises(Conflict):
        exports.export_file_retry(job_id=stream.pk)


def test_the_retry_button_on_the_auditors_page(
    casino_day, auditor, browser, monkeypatch, django_capture_on_commit_callbacks
):
    job = _requested(auditor, django_capture_on_commit_callbacks)
    ExportJob.objects.filter(pk=job.pk).update(status=ExportJob.Status.FAILED, error="The worker stopped.")
    client = browser(auditor)
    page = client.get(reverse("staff-auditor-export", args=[job.pk])).content.decode()
    assert reverse("staff-auditor-export-retry", args=[job.pk]) in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("staff-auditor-export-retry", args=[job.pk]))
    assert response.status_code == 302
    assert ExportJob.objects.get(pk=job.pk).status == ExportJob.Status.DONE


def test_a_redelivered_task_leaves_no_part_file_behind(
    casino_day, auditor, monkeypatch, django_capture_on_commit_callbacks
):
    job = _requested(auditor, django_capture_on_commit_callbacks)
    real = _die_after_the_first_chunk(monkeypatch)
    with pytest.raises(Killed):
        tasks.export_run(job.pk)  # the worker is killed; the broker redelivers (acks_late)
    assert len(_parts()) == 1
    monkeypatch.setattr(exports, "export_chunks", real)
    tasks.export_run(job.pk)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE and job.attempt == 2
    assert _parts() == []
    assert sorted(p.name for p in _folder().iterdir()) == [job.file_name, f"{job.file_name}.manifest.json"]


def test_an_attempt_replaced_by_a_redelivery_stops_and_publishes_nothing(
    casino_day, auditor, monkeypatch, django_capture_on_commit_callbacks
):
    """The broker redelivers while the first worker still runs (a visibility timeout): the
    second attempt's file is the one published; the first stops at its next progress."""
    job = _requested(auditor, django_capture_on_commit_callbacks)
    monkeypatch.setattr(exports, "PROGRESS_SECONDS", 0)
    monkeypatch.setattr(exports, "ROWS_PER_CHUNK", 5)
    real = exports.export_chunks
    state = {"redelivered": False}

    def chunks(**kwargs):
        for i, chunk in enumerate(real(**kwargs)):
            yield chunk
            if i == 0 and not state["redelivered"]:
                state["redelivered"] = True
                assert exports.export_file_run(job_id=job.pk) is not None  # attempt 2, to the end

    monkeypatch.setattr(exports, "export_chunks", chunks)
    assert exports.export_file_run(job_id=job.pk) is None  # attempt 1 noticed and stopped
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE and job.attempt == 2
    assert hashlib.sha256((_folder() / job.file_name).read_bytes()).hexdigest() == job.sha256
    assert _parts() == []


def test_a_stream_whose_server_died_is_aborted_by_the_sweeper(auditor):
    job = exports.export_stream_open(user=auditor, fmt="csv", filters=LedgerFilters())
    assert exports.export_sweep(now=timezone.now() + timedelta(minutes=5)) == 0
    assert exports.export_sweep(now=timezone.now() + exports.STREAM_STALE_AFTER + timedelta(seconds=1)) == 1
    job.refresh_from_db()
    assert job.status == ExportJob.Status.ABORTED and "stopped" in job.error


def test_the_sweeper_runs_with_the_periodic_work(settings, monkeypatch):
    assert any(entry["task"] == "backoffice.tasks.sweep_exports" for entry in settings.CELERY_BEAT_SCHEDULE.values())
    from casino.live.periodic import Periodic

    ran = []
    monkeypatch.setattr(exports, "export_sweep", lambda **kwargs: ran.append(True) or 0)
    Periodic().run_due()
    assert ran
