"""Events sent from outside the server (a Celery worker, a REST request, a command): after
the commit, each flush waits for its send, on the process's one sending loop."""

from __future__ import annotations

import threading

from casino.live import outbox


class Layer:
    def __init__(self) -> None:
        self.sent: list[tuple[str, list, str]] = []

    async def group_send(self, group: str, message: dict) -> None:
        self.sent.append((group, [e["n"] for e in message["events"]], threading.current_thread().name))


def test_sends_from_outside_the_server_arrive_in_order_on_one_loop_not_a_thread_each(monkeypatch):
    layer = Layer()
    monkeypatch.setattr(outbox, "get_channel_layer", lambda: layer)
    outbox.flush([("table.1", {"n": -1})])  # the process's sending loop exists from here on
    threads = threading.active_count()
    for n in range(30):
        outbox.flush([("table.1", {"n": n}), ("player.7", {"n": n})])
        # the flush returned: its send is done
        assert layer.sent[-2:] in (
            [("table.1", [n], "live-sends"), ("player.7", [n], "live-sends")],
            [("player.7", [n], "live-sends"), ("table.1", [n], "live-sends")],
        )
    assert [numbers for group, numbers, _ in layer.sent if group == "table.1"] == [[n] for n in range(-1, 30)]
    assert threading.active_count() == threads  # no thread started per send
