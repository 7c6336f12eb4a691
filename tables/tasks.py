"""Celery tasks of the Caribbean tables: ids in, re-read inside, idempotent.

The deadlines' tasks are every game's: ``casino.live.tasks``.
"""

from celery import shared_task


@shared_task(ignore_result=True)
def broadcast_meters() -> int:
    from tables.events import broadcast_meters as broadcast

    return broadcast()
