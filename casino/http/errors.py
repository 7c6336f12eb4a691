"""The one family of domain errors.

Every refusal a user can meet is an ``ApplicationError`` subclass with a stable ``code``;
``casino.http.api.exception_handler`` maps each to one JSON shape ``{"code", "message",
"extra"}`` with its HTTP status. Services raise these before they change anything (or
inside the transaction that the raise rolls back).

``message`` is read in the active language (the page's, or an API request's
Accept-Language): a message with details is built translated (``Translated``, with
``gettext("... %(amount)s ...") % {...}``) or translated when read (``Detailed``);
a fixed message is looked up in the catalog; else the reader gets the general message
of its code (``casino.http.error_messages``). ``code`` never changes.
"""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import get_language, gettext, gettext_noop, override


class Translated(str):
    """A message already in the reader's language (built with ``gettext`` and its details
    filled in): ``ApplicationError.message`` gives it as it is."""


class Detailed(str):
    """An English message with named details, translated when it is read (for code that
    cannot ask Django for the reader's language, like the stud engine): the catalog's
    ``msgid`` with its ``details`` filled in. As a ``str`` it is the English text.

    ``Detailed(gettext_noop("Seat %(seat)s is not in this hand."), seat=3)``

    A detail may itself be read in the reader's language: an ``Amount`` (cents, in the
    reader's money format) or ``Words`` (catalog msgids such as a hand's label)."""

    msgid: str
    details: dict[str, Any]

    def __new__(cls, msgid: str, **details: Any) -> Detailed:
        if any(isinstance(value, (Amount, Words)) for value in details.values()):
            with override("en"):  # the English text, whoever's request raised it
                text = msgid % details
        else:
            text = msgid % details
        self = super().__new__(cls, text)
        self.msgid, self.details = msgid, details
        return self

    def __reduce__(self):
        return (_detailed, (self.msgid, self.details))

    def translated(self) -> str:
        return gettext(self.msgid) % self.details


def _detailed(msgid: str, details: dict[str, Any]) -> Detailed:
    return Detailed(msgid, **details)


class Amount(int):
    """A detail of a ``Detailed`` message: cents, written in the reader's money format when
    read (``casino.money.money``: ``€10.00``, ``10,00 €``)."""

    def __str__(self) -> str:
        from casino.money import money

        return money(int(self))


class Words(tuple):
    """A detail of a ``Detailed`` message: catalog msgids (a hand's label, ``"Full house"``)
    read in the reader's language when the message is read, joined by commas."""

    def __new__(cls, *words: str) -> Words:
        return super().__new__(cls, words)

    def __getnewargs__(self):
        return tuple(self)

    def __str__(self) -> str:
        return ", ".join(gettext(word) for word in self)


def reason_of(error: Exception) -> str:
    """An exception's text in the reader's language: a ``Detailed`` reason (as the game
    cores raise their ``ValueError`` for a manager's rules) translated, else its text."""
    reason = error.args[0] if error.args else ""
    return reason.translated() if isinstance(reason, Detailed) else str(error)


class ApplicationError(Exception):
    code = "application_error"
    status = 400
    default_message = gettext_noop("The request could not be carried out.")

    def __init__(self, message: str | None = None, *, code: str | None = None, extra: dict[str, Any] | None = None):
        if code:
            self.code = code
        if not message and code:  # a refusal that says no more than its code: the code's message
            from casino.http.error_messages import CODE_MESSAGES

            message = CODE_MESSAGES.get(code)
        self.message = message or self.default_message
        self.extra = extra or {}
        super().__init__(self._message)

    @property
    def message(self) -> str:
        """What the reader reads, in the active language (see the module's docstring)."""
        raw = self._message
        if isinstance(raw, Translated):
            return raw
        if isinstance(raw, Detailed):
            return raw.translated()
        if isinstance(raw, Promise):
            return str(raw)
        translated = gettext(raw)
        if translated != raw or (get_language() or "en").split("-")[0] == "en":
            return translated
        from casino.http.error_messages import CODE_MESSAGES

        general = CODE_MESSAGES.get(self.code)
        return str(general) if general is not None else raw

    @message.setter
    def message(self, value: str) -> None:
        self._message = value


class ValidationError(ApplicationError):
    code = "invalid"
    status = 400
    default_message = gettext_noop("The request is not valid.")


class PermissionDenied(ApplicationError):
    code = "forbidden"
    status = 403
    default_message = gettext_noop("You may not do this.")


class CsrfFailed(PermissionDenied):
    """A browser session's write without its CSRF token (a token client needs none)."""

    code = "csrf_failed"
    default_message = gettext_noop(
        "CSRF check failed: send the csrftoken cookie's value in the X-CSRFToken header, or use an API token."
    )


class NotFound(ApplicationError):
    code = "not_found"
    status = 404
    default_message = gettext_noop("Not found.")


class Conflict(ApplicationError):
    """The request is well formed but the current state does not allow it."""

    code = "conflict"
    status = 409
    default_message = gettext_noop("This is not possible in the current state.")


class InsufficientFunds(ApplicationError):
    code = "insufficient_funds"
    status = 409
    default_message = gettext_noop("The wallet does not cover this amount.")
