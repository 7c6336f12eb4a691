"""Celery tasks of the back office: ids in, re-read inside, idempotent."""

from celery import shared_task


@shared_task(acks_late=True, ignore_result=True)
def export_run(job_id: int) -> None:
    """Write a file export of the ledger and its manifest (``backoffice.exports``)."""
    from backoffice.exports import export_file_run

    export_file_run(job_id=job_id)


@shared_task(ignore_result=True)
def sweep_exports() -> int:
    """Fail the exports whose worker died (``backoffice.exports.export_sweep``)."""
    from backoffice.exports import export_sweep

    return export_sweep()
