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


@shared_task(ignore_result=True)
def close_days() -> int:
    """Roll up the days that have closed (``backoffice.rollups.rollups_close``)."""
    from backoffice.rollups import rollups_close

    return rollups_close()


@shared_task(ignore_result=False)
def check_rollups() -> int:
    """Check every closed day's rollups against the ledger (``backoffice.rollups.rollups_check``);
    how many problems were found, each logged."""
    import logging

    from backoffice.rollups import rollups_check

    problems = rollups_check()
    for problem in problems:
        logging.getLogger(__name__).error("rollup: %s", problem)
    return len(problems)
