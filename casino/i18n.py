"""The language a person reads: English or German (Django's own i18n).

``LocaleMiddleware`` takes the browser's choice (the language cookie the switcher sets,
then ``Accept-Language``). A signed-in person's choice is kept on their ``Preference``
row: the switcher (``language_set``) writes it, sign-in copies it into the session, and
``UserLanguageMiddleware`` activates it on each of their requests, whatever browser they
sign in from. API clients with a token are not signed in by a session: their
``Accept-Language`` decides the ``message`` of an error (its ``code`` never changes).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpResponseNotAllowed
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.views.i18n import set_language

SESSION_KEY = "casino_language"
LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)


def user_language(user) -> str:
    """The language ``user`` chose, or ``""``."""
    from casino.models import Preference

    if not getattr(user, "is_authenticated", False):
        return ""
    return Preference.objects.filter(user=user).values_list("language", flat=True).first() or ""


def user_language_set(*, user, language: str) -> None:
    """Keep ``language`` (one of ``LANGUAGES``) as ``user``'s choice."""
    from casino.models import Preference

    if language not in LANGUAGE_CODES:
        raise ValueError(f"not a language of this site: {language!r}")
    Preference.objects.update_or_create(user=user, defaults={"language": language})


@receiver(user_logged_in)
def _language_at_sign_in(sender, request, user, **kwargs) -> None:
    if request is None or not hasattr(request, "session"):
        return
    language = user_language(user)
    if language:
        request.session[SESSION_KEY] = language
        translation.activate(language)
        request.LANGUAGE_CODE = language
    else:
        request.session.pop(SESSION_KEY, None)


class BrowserLanguageMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` (the language cookie, then ``Accept-Language``), and
    back to ``LANGUAGE_CODE`` once the response is made: a thread serves the next request,
    or a socket's messages, in the default language rather than in this reader's."""

    def __call__(self, request):
        try:
            return super().__call__(request)
        finally:
            translation.deactivate()


class UserLanguageMiddleware:
    """After authentication: a signed-in person's chosen language wins over the browser's."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        language = session.get(SESSION_KEY) if session is not None else None
        if language in LANGUAGE_CODES and request.user.is_authenticated:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return self.get_response(request)


def language_set(request):
    """The switcher's POST (``language``, ``next``): Django's ``set_language`` (the cookie,
    the redirect back), and for a signed-in person their kept choice."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    response = set_language(request)
    language = request.POST.get("language")
    if language in LANGUAGE_CODES and request.user.is_authenticated:
        user_language_set(user=request.user, language=language)
        request.session[SESSION_KEY] = language
    return response


def catalogs_compile() -> list[str]:
    """Compile each ``LOCALE_PATHS`` catalog whose ``.mo`` is missing or older than its
    ``.po`` (what ``compilemessages`` does, for a test run started without ``make``).
    Written beside and renamed into place, so parallel runs never read half a file."""
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    compiled = []
    for base in settings.LOCALE_PATHS:
        for po in sorted(Path(base).glob("*/LC_MESSAGES/*.po")):
            mo = po.with_suffix(".mo")
            if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
                continue
            fd, tmp = tempfile.mkstemp(dir=po.parent, suffix=".mo.tmp")
            os.close(fd)
            subprocess.run(["msgfmt", "--check-format", "-o", tmp, str(po)], check=True)
            os.replace(tmp, mo)
            compiled.append(str(mo))
    return compiled
