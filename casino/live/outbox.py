"""Events sent to the channel layer only after the transaction commits.

Public events go to a table's group. A player's hidden cards never travel over the
channel layer: the player's own group only gets a nudge (``private_changed``) to re-read
its private view through a selector. Payloads are built inside the transaction (what was
decided) or, as callables, from committed state when sent; ``transaction.on_commit``
sends them (so a rolled-back step broadcasts nothing).

A nudge may carry its answer as the step leaves it (the player's view of the hand, their
balances), built from the rows the step holds as it commits and kept in the step's own
process: the acting connection takes its own (``Acting``), and the other sockets of the
process find theirs by the nudge's ``step`` (``answer``) instead of reading. Only a socket
served by another process (or one that comes too late) reads.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer
from django.db import transaction

from casino.live import wire

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

    A player's own action nudges that player's views; the connection that sent it answers
    them in the same database job, right after the step commits, instead of waiting for
    the nudge to come back through the channel layer and queueing a second job: from what
    the step left (its nudges' answers), else by a read. The nudges still go to the
    player's group (their other tabs need them), marked with this connection's channel
    name (``origin``) so that it skips them there.
    """

    player_id: int
    channel: str
    hands: list[int] = field(default_factory=list)  # private views of these hands, to read
    hand_views: dict[int, object] = field(default_factory=dict)  # … and those the step built
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
        return bool(self.hands or self.hand_views or self.wallet)

    def owe(self, event: dict, known: object | None) -> None:
        """One of this connection's own nudges, with its answer (None: read it)."""
        if event["kind"] == "wallet.changed":
            self.wallet = True
            self.wallet_balances = known
            self.wallet_unknown = self.wallet_unknown or known is None
        elif known is not None and event["hand"] not in self.hands:
            self.hand_views[event["hand"]] = known  # a later nudge of the step: a later view
        elif event["hand"] not in self.hands:
            self.hand_views.pop(event["hand"], None)
            self.hands.append(event["hand"])


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


NUDGE_KINDS = frozenset({"hand.private", "wallet.changed"})

# A nudge's answer rides under this key inside the step's process only: taken off every
# event (and called) as the step commits, before anything is sent.
_ANSWER = "_answer"


def _nudge(groups: Groups, player_id: int, event: dict, answer: Callable[[], object] | None) -> None:
    own = getattr(_local, "acting", None)
    if own is not None and own.player_id == player_id:
        event["origin"] = own.channel
    if answer is not None:
        event[_ANSWER] = answer
    send(groups.player(player_id), event)


def private_changed(
    groups: Groups, *, player_id: int, hand_id: int, table_id: int, view: Callable[[], object] | None = None
) -> None:
    """Nudge a player's own connections to re-read their private view of this hand.
    ``view``: that view as the step leaves it, from the rows it holds (called as it
    commits; in no language: each socket words it), for the sockets of this process."""
    _nudge(groups, player_id, {"kind": "hand.private", "hand": hand_id, "table": table_id}, view)


def wallet_changed(groups: Groups, *, player_id: int, balances: Callable[[], object] | None = None) -> None:
    """Nudge a player's own connections to re-read their wallet. ``balances``: the
    player's balances as the step leaves them, from the rows it holds locked (called as it
    commits), for the sockets of this process; the others read."""
    _nudge(groups, player_id, {"kind": "wallet.changed"}, balances)


# The player groups that this process's sockets hear, counted by event loop (``listen``):
# a step answers the nudges that a socket of its own process will hear, and no other.
_listening: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Counter[str]] = weakref.WeakKeyDictionary()


def listen(group: str) -> None:
    """A socket on this loop hears ``group``'s nudges (its player's group) from now on."""
    _listening.setdefault(asyncio.get_running_loop(), Counter())[group] += 1


def unlisten(group: str) -> None:
    """One socket fewer on this loop hears ``group``."""
    counts = _listening.get(asyncio.get_running_loop())
    if counts is not None and group in counts:
        counts[group] -= 1
        if counts[group] <= 0:
            del counts[group]


def _take_answers(box: list[tuple[str, Event]], *, heard: Counter[str] | None) -> dict[tuple, object]:
    """As a step commits: its nudges' answers, taken off every event and called now. The
    acting connection's own go to it (``Acting.owe``); inside the server (``heard``: the
    groups its sockets hear), those of a group a socket here hears are returned by (group,
    kind, hand), None for a nudge that brought none (its sockets read). A player whose
    sockets are all in another process costs the step nothing: they read there."""
    own = getattr(_local, "acting", None)
    answers: dict[tuple, object] = {}
    for group, event in box:
        if not isinstance(event, dict) or event.get("kind") not in NUDGE_KINDS:
            continue
        answer = event.pop(_ANSWER, None)
        mine = own is not None and event.get("origin") == own.channel
        for_others = heard is not None and group in heard
        if not (mine or for_others):
            continue
        known = None
        if answer is not None:
            try:
                known = answer()
            except Exception:  # read instead; the events still go
                log.exception("a nudge's answer failed")
        if mine:
            own.owe(event, known)
        if for_others:  # the player's other tabs, the other players
            key = (group, event["kind"], event.get("hand"))
            answers[key] = None if key in answers and answers[key] is None else known
    return answers


# The answers of the steps committed in this process over the last seconds, by their
# token, on the server's loop: a nudge comes back through the channel layer within
# moments (at 200 busy tables, 0.2 s at the most), and a socket whose nudge comes later
# than this reads. Kept longer, they are many objects for the garbage collector to walk.
ANSWERS_KEPT_FOR = 2.0  # seconds
_answers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, OrderedDict[str, tuple[float, dict]]] = (
    weakref.WeakKeyDictionary()
)


def _keep_answers(loop: asyncio.AbstractEventLoop, token: str, answers: dict) -> None:
    kept = _answers.get(loop)
    if kept is None:
        kept = _answers[loop] = OrderedDict()
    now = loop.time()
    kept[token] = (now, answers)
    while kept and now - next(iter(kept.values()))[0] > ANSWERS_KEPT_FOR:
        kept.popitem(last=False)


def answer(event: dict, group: str) -> object | None:
    """The answer the step of this nudge left in this process for ``group`` (a socket's
    player group), or None: read it. On the server's loop."""
    kept = _answers.get(asyncio.get_running_loop()) or {}
    step = kept.get(event.get("step", ""))
    return step[1].get((group, event["kind"], event.get("hand"))) if step is not None else None


def flush(box: list[tuple[str, Event]]) -> None:
    """Build each group's payload now and send it: from the server's loop without waiting,
    elsewhere (a Celery worker, a command, a request) waiting for the send."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    in_server = loop is not None and loop.is_running()
    answers = _take_answers(box, heard=_listening.get(loop) if in_server else None)
    token = secrets.token_hex(8) if answers else ""
    for group, event in box:
        if token and isinstance(event, dict) and event.get("kind") in NUDGE_KINDS:
            event["step"] = token
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
            messages.append((group, wire.plain(payload)))
        except Exception:  # a broadcast failure must never undo or fail a committed step
            log.exception("building the events for %s failed", group)

    if in_server:
        # Inside the ASGI server (a consumer's database thread): hand the batch to the
        # server's one sender task and go on; it sends each group's events in the order
        # they commit, the step's answers kept first.
        loop.call_soon_threadsafe(_enqueue, loop, layer, messages, token, answers)
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


def _enqueue(loop, layer, messages, token: str = "", answers: dict | None = None) -> None:
    if token:
        _keep_answers(loop, token, answers)
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
