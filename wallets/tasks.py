"""Celery tasks of the ledger."""

from celery import shared_task

from wallets.integrity import ledger_seal


@shared_task(ignore_result=True)
def seal_ledger() -> int:
    return ledger_seal()
