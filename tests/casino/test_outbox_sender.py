"""The server's one sender of committed steps' events (``casino.live.outbox``): each
group's events in commit order, what queued meanwhile merged into one group message per
group, the groups sent at once."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from casino.live import outbox

pytestmark = pytest.mark.asyncio


class SlowLayer:
    """A channel layer whose sends to ``slow`` wait until released."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, list]] = []
        self.in_flight: set[str] = set()
        self.overlapped = False
        self.release = asyncio.Event()

    async def group_send(self, group: str, message: dict) -> None:
        if self.in_flight:
            self.overlapped = True
        self.in_flight.add(group)
        try:
            if group == "slow":
                await self.release.wait()
            else:
                await asyncio.sleep(0)
            self.sent.append((group, [e["n"] for e in message["events"]]))
        finally:
            self.in_flight.discard(group)


async def test_batches_that_commit_while_a_send_is_out_go_together_in_commit_order():
    loop, layer = asyncio.get_running_loop(), SlowLayer()
    outbox._enqueue(loop, layer, [("slow", [{"n": 1}]), ("table.1", [{"n": 2}])])
    await asyncio.sleep(0.01)  # the first batch is out: "table.1" sent, "slow" waiting
    assert layer.sent == [("table.1", [2])] and layer.overlapped  # the groups went at once
    outbox._enqueue(loop, layer, [("table.1", [{"n": 3}]), ("player.7", [{"n": 4}])])
    outbox._enqueue(loop, layer, [("table.1", [{"n": 5}, {"n": 6}])])
    await asyncio.sleep(0.01)
    assert layer.sent == [("table.1", [2])]  # nothing overtakes the batch still out
    layer.release.set()
    await asyncio.sleep(0.01)
    assert layer.sent[1] == ("slow", [1])
    assert sorted(layer.sent[2:]) == [("player.7", [4]), ("table.1", [3, 5, 6])]  # one message per group, in order
    outbox._senders.pop(loop)  # this loop's sender ends with the test
    for task in asyncio.all_tasks() - {asyncio.current_task()}:
        task.cancel()


async def test_a_failing_group_does_not_stop_the_others():
    class Failing(SlowLayer):
        async def group_send(self, group, message):
            if group == "bad":
                raise ConnectionError("redis went away")
            await super().group_send(group, message)

    layer = Failing()
    await outbox._send_batch(layer, [("bad", [{"n": 1}]), ("table.2", [{"n": 2}]), ("table.2", [{"n": 3}])])
    assert layer.sent == [("table.2", [2, 3])]


async def test_a_group_message_is_encoded_once_for_every_socket_that_relays_it():
    import json

    from casino.live.consumers import _frames

    message = {
        "type": "live.events",
        "events": [
            {"kind": "bet.placed", "hand": 3, "seat": 1},
            {"kind": "hand.private", "hand": 3, "table": 1},
            {"kind": "wallet.changed"},
        ],
    }
    first = _frames(message)
    assert [json.loads(f) if f else None for f in first] == [
        {"type": "event", "event": message["events"][0]},
        None,
        None,
    ]
    assert _frames(message) is first  # the next socket of the group sends the same text


async def test_an_event_with_words_is_encoded_once_per_language_and_the_rest_is_shared():
    import json

    from django.utils import translation

    from casino.live.consumers import _frames

    message = {
        "type": "live.events",
        "events": [{"kind": "bet.placed", "hand": 3, "seat": 1}, {"kind": "decision.made", "label": "Raised"}],
    }
    calls = []

    def in_language(event):
        calls.append((translation.get_language(), event["kind"]))
        if event["kind"] != "decision.made":
            return None
        return {**event, "label": translation.gettext(event["label"])}

    english = _frames(message)
    with translation.override("de"):
        german = _frames(message, in_language)
        assert _frames(message, in_language) is german  # the next German socket: no new work
    assert german[0] is english[0]  # an event without words: the one frame
    assert json.loads(german[1])["event"]["label"] == "Gesetzt"
    assert json.loads(english[1])["event"]["label"] == "Raised"
    assert calls == [("de", "bet.placed"), ("de", "decision.made")]


async def test_a_step_s_answers_are_found_by_its_nudges_for_their_own_player_for_some_seconds(monkeypatch):
    """What a step left for its nudges in this process: found by the nudge's step and the
    socket's player group, nobody else's; gone after ``ANSWERS_KEPT_FOR`` (a socket whose
    nudge comes later reads)."""
    loop, layer = asyncio.get_running_loop(), SlowLayer()
    layer.release.set()
    monkeypatch.setattr(outbox, "ANSWERS_KEPT_FOR", 0.2)
    view = {"id": 9, "seats": []}
    outbox._enqueue(
        loop, layer, [], "step-a", {("player.7", "hand.private", 9): view, ("player.8", "wallet.changed", None): None}
    )
    nudge = {"kind": "hand.private", "hand": 9, "table": 1, "step": "step-a"}
    assert outbox.answer(nudge, "player.7") is view
    assert outbox.answer(nudge, "player.8") is None  # another player's socket: not theirs
    assert outbox.answer({**nudge, "step": "unknown"}, "player.7") is None  # another process's step: read
    assert outbox.answer({"kind": "wallet.changed", "step": "step-a"}, "player.8") is None  # none left: read
    await asyncio.sleep(0.3)
    outbox._enqueue(loop, layer, [], "step-b", {("player.7", "hand.private", 10): view})
    assert outbox.answer(nudge, "player.7") is None  # older than the time kept
    assert outbox.answer({**nudge, "hand": 10, "step": "step-b"}, "player.7") is view
    outbox._senders.pop(loop)
    outbox._answers.pop(loop)
    for task in asyncio.all_tasks() - {asyncio.current_task()}:
        task.cancel()


async def test_a_step_answers_only_the_players_whose_sockets_this_process_serves():
    """The step's views are built for the nudges a socket of its process will hear; a
    player whose sockets are all in another process costs it nothing (they read there)."""
    built = []

    def nudge(player_id: int) -> tuple[str, dict]:
        view = {"player": player_id}
        return f"player.{player_id}", {
            "kind": "hand.private",
            "hand": 9,
            "table": 1,
            "_answer": lambda: built.append(player_id) or view,
        }

    box = [nudge(7), nudge(8), ("table.1", {"kind": "bet.placed"})]
    answers = outbox._take_answers(box, heard=Counter({"player.7": 1}))
    assert built == [7] and answers == {("player.7", "hand.private", 9): {"player": 7}}
    assert all("_answer" not in event for _, event in box)  # none travels, built or not
    assert outbox._take_answers([nudge(7)], heard=None) == {} and built == [7]  # outside the server: nothing
