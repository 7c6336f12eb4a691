"""Celery tasks: ids in, re-read inside, idempotent (``tables.timers``)."""

from celery import shared_task

from tables import timers


@shared_task(acks_late=True, ignore_result=True)
def hand_deadline(hand_id: int) -> None:
    from tables.services import hand_expire

    hand_expire(hand_id=hand_id)


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    return timers.sweep_deadlines()


@shared_task(ignore_result=True)
def broadcast_meters() -> int:
    from tables.events import broadcast_meters as broadcast

    return broadcast()
