"""The ASGI application served by a real uvicorn (README's protocols) in a thread of the
test's process: it reads the test database and this process's settings, and a test can
reach into its event loop (``Served.on_loop``)."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from concurrent.futures import Future

import uvicorn


class _Collect(logging.Handler):
    def __init__(self, errors: list[str]):
        super().__init__(logging.ERROR)
        self.errors = errors

    def emit(self, record: logging.LogRecord) -> None:
        self.errors.append(self.format(record))


class Served:
    def __init__(self, server: uvicorn.Server, port: int, errors: list[str]):
        self.server, self.port, self.errors = server, port, errors
        self.http, self.ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        self.loop: asyncio.AbstractEventLoop | None = None

    def on_loop(self, make_coroutine, timeout: float = 30):
        """Run ``make_coroutine()`` on the server's event loop; its result."""
        return asyncio.run_coroutine_threadsafe(make_coroutine(), self.loop).result(timeout)


def served(application) -> Served:
    """Start uvicorn on a free port; ``Served.errors`` collects what it logs at ERROR and
    above (an exception in the application). Stop it with ``stop(served)``."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(
        application,
        host="127.0.0.1",
        port=port,
        lifespan="off",
        ws="websockets-sansio",
        log_level="error",
        log_config=None,
    )
    server = uvicorn.Server(config)
    live = Served(server, port, [])
    live.handler = _Collect(live.errors)
    logging.getLogger("uvicorn.error").addHandler(live.handler)
    started: Future = Future()

    async def serve() -> None:
        live.loop = asyncio.get_running_loop()
        started.set_result(None)
        await server.serve()

    thread = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
    thread.start()
    started.result(30)
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    live.thread = thread
    return live


def stop(live: Served) -> None:
    live.server.should_exit = True
    live.thread.join(30)
    logging.getLogger("uvicorn.error").removeHandler(live.handler)
