"""ASGI entry point: HTTP through Django; websockets authenticated by the session and origin-checked.

Every game's websocket routes are put together here (``websocket_urlpatterns``), with a
last route that closes any other path with 4404. With ``CASINO_PERIODIC_IN_SERVER`` (the
embedded default) the process also runs the periodic work (every game's deadlines, the
jackpot meters, the ledger's seal) on its event loop, started by the first connection it
serves (``casino.live.periodic``). Every server process also watches its database pool
from its first connection on, so that a database restart costs a request a second, not
the pool's timeout (``casino.dbpool``).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import get_resolver, re_path  # noqa: E402

from casino.dbpool import watch_in_server  # noqa: E402
from casino.live.consumers import NotFoundConsumer  # noqa: E402
from casino.live.periodic import start_in_server  # noqa: E402
from casino.stud import evaluate  # noqa: E402
from poker.routing import websocket_urlpatterns as poker_routes  # noqa: E402
from tables.routing import websocket_urlpatterns as table_routes  # noqa: E402

# The table id is checked by each consumer, which closes a bad one with 4404 after
# accepting (a route that does not match would be a 500 before any handshake).
websocket_urlpatterns = [
    *table_routes,
    *poker_routes,
    re_path(r"", NotFoundConsumer.as_asgi()),
]

router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# The garbage collector stops every thread of the process (the event loop and the database
# threads alike) while it walks the objects it tracks. What is loaded now (Django, the
# apps, the views the URLconf imports) lives as long as the process: frozen, a full
# collection no longer walks it (at 200 live tables one walked these 160,000 objects for
# 136-172 ms, every table's actions waiting behind it; bench/README.md). And the young
# generation is collected after 10,000 new objects instead of 700: a server's objects
# mostly die young (a message, a step) and are freed before that many pile up, so at 200
# tables a process collected once in 20 s instead of 76 times, with no full collection.
get_resolver().url_patterns  # the views, imported now rather than at the first request
evaluate.prepare()  # the stud evaluator's tables: built now, not by the room's first step (a second and more)
gc.collect()
gc.freeze()
gc.set_threshold(10_000, 10, 10)


async def application(scope, receive, send):
    watch_in_server()  # the database pool's dead connections, found at once (casino.dbpool)
    if settings.CASINO_PERIODIC_IN_SERVER:
        start_in_server()
    return await router(scope, receive, send)
