"""The live table's websocket skeleton, for every game: ``LiveTableConsumer``.

Thin like a view: it authenticates (session, in the ASGI stack; a staff session still
waiting for its two-factor code is closed like a signed-out one), checks the table id,
parses and bounds each message, calls one service, and relays events. Public events come
from the table's group; a player's hidden cards are never in a group message: the
player's own group only nudges this consumer to read the player's view through the
game's selector. A game's consumer subclasses it and fills in the hooks:

- ``groups``: the game's group names (``casino.live.outbox.Groups``);
- ``table_found()``: whether the table exists (and anything to remember about it);
- ``fanout_groups()``: groups every socket of the process hears alike (a jackpot pool),
  relayed by the process's one subscription (``casino.live.fanout``);
- ``load_snapshot()``: everything this viewer may see, sent on (re)connect;
- ``ACTIONS`` / ``TABLE_STEPS``: the messages, each a method run in a database thread
  (``TABLE_STEPS`` lock the table: a process runs one per table at a time);
- ``private_hand(hand_id)``, ``wallet_view(known)``: the answers to private nudges
  (``known``: the balances the step left, else ``None``: read them);
  ``private_hand_from(view)``: a private view the step left in this process
  (``outbox.answer``), for this reader (it reads nothing: it runs on the event loop);
- ``event_in_language(event)``: a public event's words (hands' names, labels) in the
  reader's language, or None when it has none; the step wrote the event once, for every
  socket, and each frame is encoded once per process and language;
- ``player_disconnected()``: the player's last tab at this table closed.

Protocol (both games): docs/websocket.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import OperationalError
from django.utils import timezone, translation
from django.utils.translation import gettext

from casino.access import policy
from casino.access.security import otp_blocks_session, play_rate_take_async
from casino.http.errors import ApplicationError, PermissionDenied, Translated, ValidationError
from casino.live import fanout, outbox, wire
from casino.live.outbox import Groups

# Database work of the consumers runs on a bounded pool of threads, each with its own
# connection (not on asgiref's one shared thread, which would serialise every table of
# the process); the services' lock order makes concurrent steps safe. Few: the threads
# share one interpreter lock, and with one step per table at a time (below) four keep a
# core busy; eight made 100 tables slower (16.8 against 20.5 hands/s on two processes)
# and the slowest actions later (bench/README.md).
DB_THREADS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="table-db")


def socket_language(scope) -> str:
    """The language of a socket's reader before their account is read, as ``casino.i18n``
    finds it over HTTP: a signed-in person's kept choice (in the session), the language
    cookie, ``Accept-Language``. Once the socket's user is known, their saved choice
    (``casino.models.Preference``) wins (``LiveTableConsumer.connect``)."""
    from http.cookies import SimpleCookie

    from casino.i18n import LANGUAGE_CODES, SESSION_KEY

    try:
        chosen = scope["session"].get(SESSION_KEY) if scope.get("session") is not None else None
    except Exception:  # noqa: BLE001 - a session that cannot be read here: the browser's choice
        chosen = None
    if chosen in LANGUAGE_CODES:
        return chosen
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}
    cookie = SimpleCookie(headers.get("cookie", "")).get(settings.LANGUAGE_COOKIE_NAME)
    if cookie is not None and cookie.value in LANGUAGE_CODES:
        return cookie.value
    for part in headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower().split("-")[0]
        if code in LANGUAGE_CODES:
            return code
    return settings.LANGUAGE_CODE


def db(func):
    # DB_THREADS is read at each call, so that a benchmark can swap in an instrumented pool.
    return database_sync_to_async(func, thread_sensitive=False, executor=DB_THREADS)


# A table's players act at the same moments (four antes, four decisions), and each step
# locks the table's row: a second action of a table would only hold a database thread
# while it waits for that lock, and the next table's work would queue behind it. So a
# process runs one action per table at a time (in arrival order) and its threads work on
# different tables; the row lock stays what keeps concurrent processes correct.
_table_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int], asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


def table_turn(game: str, table_id: int) -> asyncio.Lock:
    turns = _table_turns.setdefault(asyncio.get_running_loop(), {})  # a lock belongs to one loop
    key = (game, table_id)
    turn = turns.get(key)
    if turn is None:
        turn = turns[key] = asyncio.Lock()
    return turn


MAX_MESSAGE_BYTES = 2048
RATE_PER_SECOND = 10.0  # token bucket: sustained messages per second …
RATE_BURST = 20.0  # … and the burst it allows
ABUSE_LIMIT = 50  # refused messages on one connection before it is closed

log = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_ABUSE = 4429


TABLE_ID_RE = re.compile(r"[0-9]{1,18}")  # ASCII digits only, within a bigint

# Open connections per (game, table, player) in this process: a player with two tabs at a
# table has not dropped when one of them closes (SPEC A4's extension, B3's time bank are
# for a lost connection). Like the table turns, the count belongs to the event loop that
# serves the sockets; a player's tabs served by two processes count apart, and the worst
# that does is treat the player as dropped early, which ends where the time bank's own
# rule would (the deadline is never brought forward).
_open_tabs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, int, int], int]] = (
    weakref.WeakKeyDictionary()
)


def open_tabs() -> dict[tuple[str, int, int], int]:
    return _open_tabs.setdefault(asyncio.get_running_loop(), {})


def hand_id_of(message: dict, action: str) -> int:
    """The hand an action names (so a late duplicate never lands on the next hand)."""
    hand_id = message.get("hand_id")
    if not isinstance(hand_id, int) or isinstance(hand_id, bool) or not 0 < hand_id < 2**63:
        raise ValidationError(
            Translated(gettext("'%(action)s' names its hand: send the hand's id as 'hand_id'.") % {"action": action}),
            code="hand_id_required",
        )
    return hand_id


# The private reads this process's sockets ask for in one turn of the event loop, by
# consumer class: a deal or a settlement nudges every player of a table at once, and the
# table's sockets share a process, so one database job answers them all.
_pending_reads: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[type, list]] = weakref.WeakKeyDictionary()


def _private_reads(consumer: "LiveTableConsumer", hand_ids: list[int], wallet: bool) -> asyncio.Future:
    loop = asyncio.get_running_loop()
    pending = _pending_reads.setdefault(loop, {})
    batch = pending.get(type(consumer))
    if batch is None:
        batch = pending[type(consumer)] = []
        loop.call_soon(_read_batch, loop, type(consumer))  # after the sockets woken with this one
    future = loop.create_future()
    batch.append((consumer, hand_ids, wallet, future))
    return future


def _read_batch(loop: asyncio.AbstractEventLoop, cls: type) -> None:
    batch = _pending_reads[loop].pop(cls)

    async def read() -> None:
        try:
            replies = await db(cls.private_replies_of)([(c, h, w) for c, h, w, _ in batch])
        except Exception as error:  # each waiting socket fails as its own read would have
            for *_, future in batch:
                if not future.done():
                    future.set_exception(error)
            return
        for (*_, future), reply in zip(batch, replies):
            if not future.done():
                future.set_result(reply)

    loop.create_task(read())


def _frames(message: dict, in_language: Callable[[dict], dict | None] | None = None) -> list[str | None]:
    """Each event's websocket frame (None for a nudge), encoded once per process: the
    Redis layer hands one message object to every socket of the group here (the
    in-memory layer a copy each, which then encodes its own).

    ``in_language``: the game's ``event_in_language``, which gives an event's copy with its
    words (hands' names, labels) in the active language, or None when it has none: those
    frames are encoded once per process and language, every other frame is shared."""
    frames = message.get("_frames")
    if frames is None:
        frames = message["_frames"] = [
            None if event.get("kind") in outbox.NUDGE_KINDS else wire.dumps({"type": "event", "event": event})
            for event in message["events"]
        ]
    if in_language is None:
        return frames
    by_language = message.setdefault("_frames_by_language", {})
    language = translation.get_language() or "en"
    local = by_language.get(language)
    if local is None:
        local = by_language[language] = []
        for event, frame in zip(message["events"], frames):
            worded = in_language(event) if frame is not None else None
            local.append(frame if worded is None else wire.dumps({"type": "event", "event": worded}))
    return local


class LiveTableConsumer(AsyncWebsocketConsumer):
    """The websocket of one table of one game, per browser tab (hooks: module docstring)."""

    game: str = ""  # the game's name, keying the turn locks and the open tabs
    closed_by_server = False
    listening: str | None = None  # the player group whose nudges this socket hears (outbox.listen)
    groups_of: Groups = Groups()
    ACTIONS: dict = {}
    TABLE_STEPS: frozenset = frozenset()

    # --- hooks (run in a database thread, except the group names) ------------------------

    def table_found(self) -> bool:
        raise NotImplementedError

    def fanout_groups(self) -> list[str]:
        return []

    def load_snapshot(self) -> dict:
        raise NotImplementedError

    def private_hand(self, hand_id: int) -> dict:
        raise NotImplementedError

    def private_hand_from(self, view) -> dict:
        return {"type": "hand", "hand": view}

    def wallet_view(self, known=None) -> dict | None:
        """A player's wallet; ``known``: the balances the step left in the rows it locked
        (then it reads nothing), else ``None`` (read them)."""
        return None

    @classmethod
    def event_in_language(cls, event: dict) -> dict | None:
        """A public event with its words in the active language (a copy; the step wrote it
        once for every socket of the table), or None when it has no words to change."""
        return None

    def player_disconnected(self) -> None:
        """The player's last connection to this table (in this process) closed."""

    # --- the connection ----------------------------------------------------------------

    async def connect(self):
        self.user = self.scope.get("user")
        self.groups_joined: list[str] = []
        self.fanned: list[str] = []
        self.snapshot_sent = False  # the relay's frames (a meter every second) wait for it
        self.tab_key: tuple[str, int, int] | None = None
        # Accept first, then check: a close before accepting is an HTTP 403 to the browser,
        # and the close code (docs/websocket.md) would never reach the page.
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        if await db(otp_blocks_session)(self.user, self.scope.get("session")):
            await self.close(code=CLOSE_UNAUTHENTICATED)  # staff: the code first, as over HTTP
            return
        raw_id = str(self.scope["url_route"]["kwargs"].get("table_id", ""))
        if not TABLE_ID_RE.fullmatch(raw_id):
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.table_id = int(raw_id)
        if not await db(self.table_found)():
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.is_player, chosen = await db(self._player_and_language)()
        if chosen:  # the player's saved language, whatever this browser asks for
            self.language = chosen
            translation.activate(chosen)  # for the rest of this handler (dispatch's override restores)
        self.tokens, self.refilled_at, self.refused = RATE_BURST, time.monotonic(), 0
        self.groups_joined = [self.groups_of.table(self.table_id), self.groups_of.player(self.user.pk)]
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        self.listening = self.groups_of.player(self.user.pk)
        outbox.listen(self.listening)  # a step of this process answers this player's nudges
        self.fanned = self.fanout_groups()
        for group in self.fanned:
            await fanout.join(group, self)
        self.tab_key = (self.game, self.table_id, self.user.pk)
        tabs = open_tabs()
        tabs[self.tab_key] = tabs.get(self.tab_key, 0) + 1
        await self.send_json(await db(self.load_snapshot)())
        self.snapshot_sent = True

    def _player_and_language(self) -> tuple[bool, str]:
        """Whether the socket's user may play, and the language they chose (or "")."""
        from casino.i18n import user_language

        return policy.allowed(self.user, "play"), user_language(self.user)

    async def close(self, code=None, reason=None):
        """Close the socket once, and leave the table at once: the groups, the open tab
        (the server may close it while frames the client sent are still queued, and the
        client's disconnect may never come back)."""
        if self.closed_by_server:
            return
        self.closed_by_server = True
        await super().close(code=code, reason=reason)
        await self._leave_table()

    async def disconnect(self, code):
        await self._leave_table()
        close_channel = getattr(self.channel_layer, "close_channel", None)  # the Redis layer (casino.live.layers)
        if close_channel is not None:
            try:
                await close_channel(self.channel_name)
            except Exception:  # the subscription ends with the process's connection to Redis
                log.warning("could not close %s", self.channel_name, exc_info=True)

    async def _player_gone(self) -> None:
        """The player's last tab closed: ``player_disconnected`` (which may run twice: it
        changes a seat once), again on a fresh connection when the database dropped the
        first one under it (a restart or a failover): the time rule it applies must not be
        lost to a connection that died between the pool's check and the query."""
        try:
            await db(self.player_disconnected)()
        except OperationalError:
            log.warning("a disconnect's database work failed; once more on a fresh connection", exc_info=True)
            await db(self.player_disconnected)()

    async def _leave_table(self):
        """Count the tab closed and leave the groups; once, whoever asks first."""
        fanned, self.fanned = self.fanned, []
        for group in fanned:
            fanout.leave(group, self)
        try:
            if self.tab_key is not None:
                tabs = open_tabs()
                left = tabs.get(self.tab_key, 1) - 1
                if left > 0:
                    tabs[self.tab_key] = left
                else:
                    tabs.pop(self.tab_key, None)
                self.tab_key = None
                if left <= 0 and self.is_player:  # the player's last tab here: first, the time rule must not be lost
                    await self._player_gone()
        finally:
            listening, self.listening = self.listening, None
            if listening is not None:
                outbox.unlisten(listening)
            joined, self.groups_joined = self.groups_joined, []
            for group in joined:
                try:
                    await self.channel_layer.group_discard(group, self.channel_name)
                except Exception:  # the membership expires on its own; the socket is gone anyway
                    log.warning("could not leave %s", group, exc_info=True)

    async def dispatch(self, message):
        # Channels' dispatch first hops to the shared database thread to close old
        # connections; every database job here does that itself (db() above), and most
        # messages (public relays) need no database at all.
        if self.closed_by_server and message["type"] != "websocket.disconnect":
            return  # closed: a frame still queued is not acted on, an event not relayed
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        if not hasattr(self, "language"):
            self.language = socket_language(self.scope)
        with translation.override(self.language):  # this reader's words in what this socket sends
            await handler(message)

    # --- from the client ----------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if not self._take_token():
            await self._refuse(None, "rate_limited", gettext("Too many messages; slow down."))
            return
        if text_data is None:
            await self._refuse(None, "binary_not_supported", gettext("Send JSON text messages."))
            return
        if len(text_data.encode()) > MAX_MESSAGE_BYTES:
            await self._refuse(
                None,
                "message_too_large",
                gettext("Messages are at most %(bytes)s bytes.") % {"bytes": MAX_MESSAGE_BYTES},
            )
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            await self._refuse(None, "malformed_message", gettext("Send a JSON object with an 'action'."))
            return
        ref = message.get("id")
        ref = ref if isinstance(ref, (str, int)) and not isinstance(ref, bool) and len(str(ref)) <= 64 else None
        action = message.get("action")
        handler = self.ACTIONS.get(action) if isinstance(action, str) else None
        if handler is None:
            await self._refuse(
                ref,
                "unknown_action",
                gettext("Unknown action; use one of %(actions)s.") % {"actions": ", ".join(self.ACTIONS)},
            )
            return
        if handler in self.TABLE_STEPS:
            if self.is_player:  # every table step is a play action: its budget first, on the loop
                try:
                    await play_rate_take_async(user=self.user)  # CASINO_PLAY_RATE
                except ApplicationError as error:
                    await self._refuse(ref, error.code, error.message, error.extra)
                    return
            async with table_turn(self.game, self.table_id):
                outcome, own_views = await db(self._run_action)(handler, message)
        else:
            outcome, own_views = await db(self._run_action)(handler, message)
        if isinstance(outcome, ApplicationError):
            await self._refuse(ref, outcome.code, outcome.message, outcome.extra)
        else:
            await self.send_json({"type": "ack", "id": ref, "action": action})
            if outcome is not None:
                await self.send_json(outcome)
        for view in own_views:
            await self.send_json(view)

    def _run_action(self, handler, message) -> tuple:
        """One database job: the action, then the views its own nudges ask this connection
        for (``outbox.acting``), read after the step committed. (reply or error, views)"""
        with outbox.acting(player_id=self.user.pk, channel=self.channel_name) as own:
            try:
                outcome = handler(self, message)
            except ApplicationError as error:
                outcome = error
        if not own.owed:
            return outcome, []
        return outcome, self._private_replies(own.hands, own.wallet, own.known_wallet, own.hand_views.values())

    def _take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RATE_BURST, self.tokens + (now - self.refilled_at) * RATE_PER_SECOND)
        self.refilled_at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def _refuse(self, ref, code: str, message: str, extra: dict | None = None) -> None:
        self.refused += 1
        if self.refused > ABUSE_LIMIT:
            await self.close(code=CLOSE_ABUSE)
            return
        await self.send_json({"type": "error", "id": ref, "code": code, "message": message, "extra": extra or {}})

    def require_player(self) -> None:
        """A playing action: players only (its play-rate budget, which REST shares, was
        taken before its job: ``receive``)."""
        if not self.is_player:
            raise PermissionDenied("Only players can play.")

    # Actions every game has.

    def snapshot_action(self, message):
        return self.load_snapshot()

    def ping_action(self, message):
        return {"type": "pong", "server_time": timezone.now()}

    # --- to the client ------------------------------------------------------------------

    async def live_events(self, message):
        """One step's events: relay the public ones; answer private nudges with what the
        step left in this process (``outbox.answer``), else from the selectors.

        Nudges are collapsed: one private view per hand and one wallet per batch.
        """
        private_hands, views, wallet, balances = [], {}, False, []
        mine = self.groups_of.player(self.user.pk)
        for event, frame in zip(message["events"], _frames(message, self.event_in_language)):
            if frame is not None:
                await self.send(text_data=frame)
            elif event.get("origin") == self.channel_name:
                continue  # a nudge of this connection's own action, answered with it (_run_action)
            elif event["kind"] == "hand.private":
                hand_id = event["hand"]
                if event.get("table") == self.table_id and hand_id not in private_hands:
                    view = outbox.answer(event, mine)
                    if view is None:
                        views.pop(hand_id, None)
                        private_hands.append(hand_id)
                    else:
                        views[hand_id] = view
            else:  # wallet.changed
                wallet = True
                balances.append(outbox.answer(event, mine))
        for view in views.values():
            await self.send_json(self.private_hand_from(view))
        known = balances[-1] if wallet and None not in balances else None
        if private_hands or (wallet and known is None):
            for reply in await _private_reads(self, private_hands, wallet and known is None):
                await self.send_json(reply)
        if known is not None:
            await self.send_json({"type": "wallet", "wallet": self.wallet_view(known)})

    def relay_frames(self, message: dict) -> list[str]:
        """The frames of a fanned-out group's message (public events only); none before the
        socket's snapshot (the relay writes straight to the socket; the next comes soon)."""
        if not getattr(self, "snapshot_sent", False):
            return []
        return [frame for frame in _frames(message) if frame is not None]

    def _private_replies(self, hand_ids: list[int], wallet: bool, known=None, views=()) -> list[dict]:
        replies = [self.private_hand_from(view) for view in views]
        replies += [self.private_hand(hand_id) for hand_id in hand_ids]
        if wallet:
            replies.append({"type": "wallet", "wallet": self.wallet_view(known)})
        return replies

    @classmethod
    def private_replies_of(cls, requests: list[tuple["LiveTableConsumer", list[int], bool]]) -> list[list[dict]]:
        """The replies to several sockets' nudges, ``(consumer, hand ids, wallet)`` each,
        in one database job; a game overrides it to read what they share once."""
        return [consumer._private_replies(hand_ids, wallet) for consumer, hand_ids, wallet in requests]

    async def send_json(self, content) -> None:
        await self.send(text_data=wire.dumps(content))

    async def send(self, text_data=None, bytes_data=None, close=False):
        """A frame to the client; none once the client has closed. ASGI servers raise an
        ``OSError`` for a write to a closed socket (uvicorn: the client's close frame came
        while a table's event was on its way): raised here, it would end the consumer
        before its ``websocket.disconnect``, already queued, ran ``disconnect()``, and the
        socket's groups, open tab and channel would stay for the life of the process."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except OSError:
            log.debug("a frame found its socket closed", exc_info=True)


class NotFoundConsumer(AsyncWebsocketConsumer):
    """Any other websocket path: accepted, then closed with 4404 (not a 500 from the router)."""

    async def connect(self):
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)
