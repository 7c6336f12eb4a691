"""The project's ASGI application with the static files served, for the browser tests.

``daphne casino.asgi:application`` serves HTTP and websockets but no static files (in
production WhiteNoise or a proxy does). The browser tests run daphne on this module
instead: the same application, with Django's static files handler in front of it, as
``manage.py runserver`` does.
"""

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from casino.asgi import application as casino_application

application = ASGIStaticFilesHandler(casino_application)
