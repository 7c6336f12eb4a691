"""Events sent to the channel layer only after the transaction commits.

Public events go to a table's group. A player's hidden cards never travel over the
channel layer: the player's own group only gets a nudge (``private_changed``) to re-read
its private view through a selector. Payloads are built inside the transaction (what was
decided) or, as callables, from committed state when sent; ``transaction.on_commit``
sends them (so a rolled-back step broadcasts nothing).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import weakref
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

log = logging.getLogger(__name__)

Event = dict | Callable[[], dict]

# The channel-layer message type of a batch of events; a consumer's handler is
# ``live_events`` (Channels maps "live.events" to it).
MESSAGE_TYPE = "live.events"


@dataclass(frozen=True)
class Groups:
    """A game's group names: its tables' groups and its players' own groups.

    ``Groups()`` names the Caribbean tables' groups as they always were (``table.7``,
    ``player.3``); a second game passes its prefix (``Groups("poker")``: ``poker.table.7``,
    ``poker.player.3``), so that no nudge or event of one game reaches the other's sockets.
    """

    game: str = ""

    def _prefix(self) -> str:
        return f"{self.game}." if self.game else ""

    def table(self, table_id: int) -> str:
        return f"{self._prefix()}table.{table_id}"

    def player(self, user_id: int) -> str:
        return f"{self._prefix()}player.{user_id}"


def pool_group(pool_id: int) -> str:
    return f"pool.{pool_id}"


_local = threading.local()


@contextmanager
def outbox():
    """Collect a step's events and send them after commit, one group message per group.

    Enter it inside the step's ``transaction.atomic()``: if the step raises, its events
    are dropped; nested steps (a bet that deals) add theirs to the outermost outbox.
    """
    stack = _local.__dict__.setdefault("stack", [])
    box: list[tuple[str, Event]] = []
    stack.append(box)
    try:
        yield
    finally:
        stack.pop()
    if stack:
        stack[-1].extend(box)
    elif box:
        transaction.on_commit(lambda: flush(box))


def send(group: str, event: Event) -> None:
    """Add an event to the open outbox, or send it on its own after commit."""
    stack = _local.__dict__.get("stack")
    if stack:
        stack[-1].append((group, event))
    else:
        transaction.on_commit(lambda: flush([(group, event)]))


@dataclass
class Acting:
    """The connection whose own action runs this step, and what it must answer itself.

    A player's own action nudges that player's views; the connection that sent it reads
    them in the same database job, right after the step commits, instead of waiting for
    the nudge to come back through the channel layer and queueing a second job. The
    nudges still go to the player's group (their other tabs need them), marked with this
    connection's channel name (``origin``) so that it skips them there.
    """

    player_id: int
    channel: str
    hands: list[int] = field(default_factory=list)  # private views of these hands
    wallet: bool = False
    # The balances the committed step left in the rows it had locked, when every nudge of
    # this player's wallet brought them (``wallet_changed``'s ``balances``): the reply
    # needs no read. One nudge without them, and the reply reads the wallet.
    wallet_balances: object | None = None
    wallet_unknown: bool = False

    @property
    def known_wallet(self) -> object | None:
        return None if self.wallet_unknown else self.wallet_balances

    @property
    def owed(self) -> bool:
        return bool(self.hands or self.wallet)


@contextmanager
def acting(*, player_id: int, channel: str):
    """Run a connection's action: yields the ``Acting`` that records, as the step commits,
    the nudges that connection answers itself."""
    previous = getattr(_local, "acting", None)
    _local.acting = own = Acting(player_id=player_id, channel=channel)
    try:
        yield own
    finally:
        _local.acting = previous


def _nudge(groups: Groups, player_id: int, event: dict) -> None:
    own = getattr(_local, "acting", None)
    if own is not None and own.player_id == player_id:
        event["origin"] = own.channel
    send(groups.player(player_id), event)


def private_changed(groups: Groups, *, player_id: int, hand_id: int, table_id: int) -> None:
    """Nudge a player's own connections to re-read their private view of this hand."""
    _nudge(groups, player_id, {"kind": "hand.private", "hand": hand_id, "table": table_id})


# An acting connection's own wallet nudge carries, under this key and only inside the
# step's process, what the step knows of the balances; taken off before anything is sent.
_BALANCES = "_balances"


def wallet_changed(groups: Groups, *, player_id: int, balances: Callable[[], object] | None = None) -> None:
    """Nudge a player's own connections to re-read their wallet. ``balances``: the
    player's balances as the step leaves them, from the rows it holds locked (called as it
    commits), for the acting connection's own reply; the other connections read."""
    event = {"kind": "wallet.changed"}
    _nudge(groups, player_id, event)
    if balances is not None and "origin" in event:
        event[_BALANCES] = balances


def _owe(box: list[tuple[str, Event]]) -> None:
    """As a step commits: what of its nudges the acting connection answers itself (and
    the balances its wallet nudges carried, taken off every event before it is sent)."""
    own = getattr(_local, "acting", None)
    for _group, event in box:
        if not isinstance(event, dict):
            continue
        balances = event.pop(_BALANCES, None)
        if own is None or event.get("origin") != own.channel:
            continue
        if event["kind"] == "wallet.changed":
            own.wallet = True
            if balances is None:
                own.wallet_unknown = True
                continue
            try:
                own.wallet_balances = balances()
            except Exception:  # read instead; the events still go
                log.exception("the balances of the acting player's wallet nudge failed")
                own.wallet_unknown = True
        elif event["hand"] not in own.hands:
            own.hands.append(event["hand"])


def flush(box: list[tuple[str, Event]]) -> None:
    """Build each group's payload now and send it: from the server's loop without waiting,
    elsewhere (a Celery worker, a command, a request) waiting for the send."""
    _owe(box)
    layer = get_channel_layer()
    if layer is None:
        return
    by_group: dict[str, list] = {}
    for group, event in box:
        by_group.setdefault(group, []).append(event)
    messages = []
    for group, group_events in by_group.items():
        try:
            # Built now, from committed state; JSON-safe (the Redis layer packs with msgpack).
            payload = [e() if callable(e) else e for e in group_events]
            messages.append((group, json.loads(json.dumps(payload, cls=DjangoJSONEncoder))))
        except Exception:  # a broadcast failure must never undo or fail a committed step
            log.exception("building the events for %s failed", group)

    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if loop is not None and loop.is_running():
        # Inside the ASGI server (a consumer's database thread): hand the batch to the
        # server's one sender task and go on; it sends each group's events in the order
        # they commit.
        loop.call_soon_threadsafe(_enqueue, loop, layer, messages)
    else:  # a Celery worker, a management command, a plain request: send and wait
        asyncio.run_coroutine_threadsafe(_send_batch(layer, messages), _sending_loop()).result()


_sending: tuple[int, asyncio.AbstractEventLoop] | None = None
_sending_lock = threading.Lock()


def _sending_loop() -> asyncio.AbstractEventLoop:
    """This process's loop for sends from outside the server: one event loop, running in a
    daemon thread, made on first use and again in a forked child (a Celery worker). A new
    loop per send (``async_to_sync``'s way outside a loop) costs a thread, a loop and, on
    Redis, a connection at every step."""
    global _sending
    with _sending_lock:
        if _sending is None or _sending[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="live-sends", daemon=True).start()
            _sending = (os.getpid(), loop)
        return _sending[1]


_senders: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Queue] = weakref.WeakKeyDictionary()


def _enqueue(loop, layer, messages) -> None:
    queue = _senders.get(loop)
    if queue is None:
        queue = _senders[loop] = asyncio.Queue()
        loop.create_task(_sender(layer, queue))
    queue.put_nowait(messages)


async def _sender(layer, queue: asyncio.Queue) -> None:
    # Whatever committed while the last sends were out goes together: under load, fewer
    # and fuller group messages, each group's events still in commit order.
    while True:
        messages = list(await queue.get())
        while not queue.empty():
            messages.extend(queue.get_nowait())
        await _send_batch(layer, messages)


async def _send_batch(layer, messages) -> None:
    """One group message per group, its events in commit order; on Redis all of them in
    one round trip (``casino.live.layers``), elsewhere the groups at once (each group's
    order is all a page relies on: a player's own view may overtake the table's events of
    the same step, which the pages expect)."""
    by_group: dict[str, list] = {}
    for group, payload in messages:
        by_group.setdefault(group, []).extend(payload)
    if getattr(type(layer), "group_send_many", None) is None:
        await asyncio.gather(*(_send_group(layer, group, events) for group, events in by_group.items()))
        return
    try:
        await layer.group_send_many(
            [(group, {"type": MESSAGE_TYPE, "events": events}) for group, events in by_group.items()]
        )
    except Exception:
        log.exception("broadcast to %s failed", ", ".join(by_group))


async def _send_group(layer, group: str, events: list) -> None:
    try:
        await layer.group_send(group, {"type": MESSAGE_TYPE, "events": events})
    except Exception:
        log.exception("broadcast to %s failed", group)
