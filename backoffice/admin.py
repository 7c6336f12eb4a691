"""The admin site's rule: administrators only, and with their code when they use two-factor.

Administrators are ``is_staff`` and superusers or members of the administrator group
(``casino.access.security.is_administrator``); a manager, cashier or auditor account, even one
marked ``is_staff`` by mistake, is refused. The site is Django's default one, adjusted
here (``admin.autodiscover`` imports this module).
"""

from django.conf import settings
from django.contrib import admin

from casino.access.security import is_administrator, otp_required


def _has_permission(request) -> bool:
    user = request.user
    return is_administrator(user) and not otp_required(user)


admin.site.has_permission = _has_permission
admin.site.site_header = f"{settings.CASINO_SITE_NAME} — administration"
admin.site.site_title = f"{settings.CASINO_SITE_NAME} administration"
admin.site.index_title = "Administration (the ledger and all records are read-only here)"
