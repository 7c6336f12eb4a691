"""Websocket helpers of the live-table tests (Channels' ``WebsocketCommunicator``): connect
as a user and take the first snapshot, read what the server sends until it is quiet."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from channels.testing import WebsocketCommunicator


async def ws_connect(router, path: str, user) -> tuple[WebsocketCommunicator, dict]:
    """A connected communicator at ``path`` signed in as ``user``, and the snapshot the
    server sends first."""
    comm = WebsocketCommunicator(router, path)
    comm.scope["user"] = user
    connected, _ = await comm.connect()
    assert connected
    snapshot = await comm.receive_json_from()
    assert snapshot["type"] == "snapshot"
    return comm, snapshot


async def drain(comm: WebsocketCommunicator, quiet: float = 0.15) -> list[dict]:
    """Everything the server sent until it has been quiet for ``quiet`` seconds."""
    messages = []
    while not await comm.receive_nothing(timeout=quiet):
        messages.append(await comm.receive_json_from())
    return messages


async def drain_until(
    comm: WebsocketCommunicator, done: Callable[[list[dict]], bool], *, timeout: float = 30, quiet: float = 0.15
) -> list[dict]:
    """What the server sends until ``done(messages so far)`` holds (at most ``timeout``
    seconds, however busy the machine), then everything more until it is quiet."""
    messages: list[dict] = []
    deadline = asyncio.get_running_loop().time() + timeout
    while not done(messages):
        left = deadline - asyncio.get_running_loop().time()
        assert left > 0, f"not received within {timeout} s; got {messages}"
        messages.append(await comm.receive_json_from(timeout=left))
    return messages + await drain(comm, quiet)


async def answered(comm: WebsocketCommunicator, *, timeout: float = 30) -> list[dict]:
    """Everything until the server's answer to the last message (every action gets an
    ``ack`` or an ``error``), then until it is quiet."""
    return await drain_until(comm, lambda got: any(m["type"] in ("ack", "error") for m in got), timeout=timeout)
