from django.urls import re_path

from tables.consumers import TableConsumer

# Put together with every game's routes, and the 4404 for any other path, in casino.asgi.
websocket_urlpatterns = [
    re_path(r"^ws/tables/(?P<table_id>[^/]+)/$", TableConsumer.as_asgi()),
]
