"""Celery tasks of the deadlines: ids in, re-read inside, idempotent (``casino.live.deadlines``)."""

from celery import shared_task

from casino.live import deadlines


@shared_task(acks_late=True, ignore_result=True)
def hand_deadline(game: str, hand_id: int) -> None:
    deadlines.expire(game, hand_id)


@shared_task(ignore_result=True)
def sweep_deadlines() -> int:
    return deadlines.sweep_deadlines()
