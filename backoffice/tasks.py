"""Celery tasks of the back office: ids in, re-read inside, idempotent."""

from celery import shared_task


@shared_task(acks_late=True, ignore_result=True)
def export_run(job_id: int) -> None:
    """Write a file export of the ledger and its manifest (``backoffice.exports``)."""
    from backoffice.exports import export_file_run

    export_file_run(job_id=job_id)
