from django.urls import re_path

from tables.consumers import NotFoundConsumer, TableConsumer

# The table id is checked by the consumer, which closes a bad one with 4404 after
# accepting (a route that does not match would be a 500 before any handshake).
websocket_urlpatterns = [
    re_path(r"^ws/tables/(?P<table_id>[^/]+)/$", TableConsumer.as_asgi()),
    re_path(r"", NotFoundConsumer.as_asgi()),
]
