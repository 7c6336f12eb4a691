"""When the player's session began, for the reality check (set at sign-in)."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import timezone

SESSION_KEY = "casino_session_started_at"


@receiver(user_logged_in)
def _remember_session_start(sender, request, user, **kwargs) -> None:
    if request is not None and hasattr(request, "session"):
        request.session[SESSION_KEY] = timezone.now().isoformat()


def session_started_at(request) -> datetime:
    """The sign-in time of this session (now, for a session from before this was recorded)."""
    raw = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    if raw:
        try:
            return datetime.fromisoformat(raw)
        except ValueError:
            pass
    started = timezone.now()
    if hasattr(request, "session"):
        request.session[SESSION_KEY] = started.isoformat()
    return started
