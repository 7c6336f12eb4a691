"""The one family of domain errors.

Every refusal a user can meet is an ``ApplicationError`` subclass with a stable ``code``;
``casino.api.exception_handler`` maps each to one JSON shape ``{"code", "message",
"extra"}`` with its HTTP status. Services raise these before they change anything (or
inside the transaction that the raise rolls back).
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    code = "application_error"
    status = 400
    default_message = "The request could not be carried out."

    def __init__(self, message: str | None = None, *, code: str | None = None, extra: dict[str, Any] | None = None):
        self.message = message or self.default_message
        if code:
            self.code = code
        self.extra = extra or {}
        super().__init__(self.message)


class ValidationError(ApplicationError):
    code = "invalid"
    status = 400
    default_message = "The request is not valid."


class PermissionDenied(ApplicationError):
    code = "forbidden"
    status = 403
    default_message = "You may not do this."


class CsrfFailed(PermissionDenied):
    """A browser session's write without its CSRF token (a token client needs none)."""

    code = "csrf_failed"
    default_message = "CSRF check failed: send the csrftoken cookie's value in the X-CSRFToken header, or use an API token."


class NotFound(ApplicationError):
    code = "not_found"
    status = 404
    default_message = "Not found."


class Conflict(ApplicationError):
    """The request is well formed but the current state does not allow it."""

    code = "conflict"
    status = 409
    default_message = "This is not possible in the current state."


class InsufficientFunds(ApplicationError):
    code = "insufficient_funds"
    status = 409
    default_message = "The wallet does not cover this amount."
