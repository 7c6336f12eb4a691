"""Celery tasks of the ledger."""

from celery import shared_task

from wallets.integrity import ledger_checkpoint, ledger_seal, ledger_verification_run


@shared_task(ignore_result=True)
def seal_ledger() -> int:
    return ledger_seal()


@shared_task(ignore_result=True)
def checkpoint_ledger() -> bool:
    """The routine check from the latest checkpoint; a clean one moves it on."""
    return ledger_checkpoint().ok


@shared_task(acks_late=True, ignore_result=True)
def verify_ledger_full(verification_id: int) -> None:
    """A full verification of the ledger (``wallets.integrity.ledger_verification_run``)."""
    ledger_verification_run(verification_id=verification_id)
