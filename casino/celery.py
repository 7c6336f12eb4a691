"""The Celery application. Without a broker (``make run``) tasks run eagerly in-process."""

import os

from celery import Celery
from celery.signals import worker_init
from celery.utils.threads import bound_open_broker_sockets
from celery.worker.consumer import Consumer as CeleryConsumer

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.autodiscover_tasks(["casino.live"])  # every game's deadlines (casino.live.tasks)


@worker_init.connect
def build_evaluator_tables(**_kwargs) -> None:
    """The stud evaluator's tables, built once in the worker's main process before its
    pool starts (the pool's processes inherit them): else the first poker step of each
    pool process builds them, a second and more, and a countdown it runs is that late."""
    from casino.stud import evaluate

    evaluate.prepare()


# How long a read on a lost connection's socket may wait while it is let go (Celery's 5 s).
LOST_SOCKET_TIMEOUT = 5.0


class Consumer(CeleryConsumer):
    """The worker's consumer (``CELERY_WORKER_CONSUMER``): it waits out any number of
    broker outages, also while it holds countdown tasks.

    A countdown task is held by the worker, unacknowledged, until its time (late
    acknowledgement). When the broker connection is lost, Celery 5.7 collects it (kombu
    drops its transport) and then closes it: on Redis, that close restores the held tasks
    through the transport the connection no longer has (``AttributeError`` in kombu's
    ``_connparams``) and the worker exits. Here the channel of the tasks is closed while
    the connection still has its transport (on Redis the first close may stop at the
    dead socket of the BRPOP it was waiting on; a second one releases its sockets), then
    the connection is collected and let go, never closed after. Restoring the held tasks
    fails while Redis is down: Redis hands them out again after its visibility timeout,
    and beat's sweeper enforces their deadlines meanwhile (tests/tables/test_redis_outage.py).
    """

    def on_connection_error_after_connected(self, exc):
        lost, self.connection = self.connection, None
        if lost is not None:
            bound_open_broker_sockets(lost, LOST_SOCKET_TIMEOUT)
            channel = self.task_consumer.channel if self.task_consumer is not None else None
            for _attempt in range(2):
                if getattr(channel, "closed", True):  # none, closed, or a channel with no such state (AMQP)
                    break
                try:
                    channel.close()
                except Exception:  # a dead broker's errors are expected: the channel is let go
                    pass
            try:
                lost.collect(socket_timeout=LOST_SOCKET_TIMEOUT)
            except Exception:  # as above
                pass
        # Celery's own handling then finds no connection left to collect or close: it logs
        # the loss and lowers the prefetch for the tasks still running.
        super().on_connection_error_after_connected(exc)
