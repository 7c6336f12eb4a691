"""ASGI entry point: HTTP through Django; websockets authenticated by the session and origin-checked.

With ``CASINO_PERIODIC_IN_SERVER`` (the embedded default) the process also runs the
periodic work (deadlines, jackpot meters, the ledger's seal) on its event loop, started
by the first connection it serves (``tables.periodic``).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from tables.routing import websocket_urlpatterns  # noqa: E402

from django.conf import settings  # noqa: E402

from tables.periodic import start_in_server  # noqa: E402

router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)


async def application(scope, receive, send):
    if settings.CASINO_PERIODIC_IN_SERVER:
        start_in_server()
    return await router(scope, receive, send)
