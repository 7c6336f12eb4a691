from django.urls import re_path

from poker.consumers import PokerTableConsumer

# Put together with every game's routes, and the 4404 for any other path, in casino.asgi.
websocket_urlpatterns = [
    re_path(r"^ws/poker/(?P<table_id>[^/]+)/$", PokerTableConsumer.as_asgi()),
]
