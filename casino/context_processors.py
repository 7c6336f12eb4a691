"""What every template may show: the site's name (``CASINO_SITE_NAME``)."""

from django.conf import settings


def site(request) -> dict:
    return {"site_name": settings.CASINO_SITE_NAME}
