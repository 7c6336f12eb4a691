"""People: signing up as a player.

A new player is a Django user in the ``player`` group with a wallet and a money-in-play
account, created in one transaction. Every refusal is a ``casino.http.errors.ValidationError``
with a stable code and the field it concerns in ``extra["field"]``.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import IntegrityError
from django.db import transaction as db_transaction
from django.dispatch import Signal
from django.utils.translation import gettext

from casino.access.policy import role_group
from casino.access.roles import PLAYER
from casino.http.errors import Translated, ValidationError

# Sent inside the sign-up's transaction with the new ``user``, once it is in the player
# group: the wallets app opens the player's accounts (``wallets.apps``), so a player
# never exists without them and this module needs nothing of the wallets.
player_signed_up = Signal()

USERNAME_MAX_LENGTH = 150
EMAIL_MAX_LENGTH = 254


def _invalid(field: str, code: str, messages: list[str]) -> ValidationError:
    """``messages`` already in the reader's language (``gettext``, Django's validators')."""
    messages = [str(message) for message in messages]
    return ValidationError(Translated(" ".join(messages)), code=code, extra={"field": field, "messages": messages})


def player_signup(*, username: str, password: str, email: str):
    """Create a player who can sign in at once: user, ``player`` group, wallet accounts.

    Codes: ``username_invalid``, ``username_taken``, ``email_invalid``, ``password_invalid``
    (Django's password validators, with every message they give).
    """
    User = get_user_model()
    username = (username or "").strip() if isinstance(username, str) else ""
    email = (email or "").strip() if isinstance(email, str) else ""
    if not isinstance(password, str):
        password = ""

    if not username:
        raise _invalid("username", "username_invalid", [gettext("Choose a user name.")])
    if len(username) > USERNAME_MAX_LENGTH:
        raise _invalid(
            "username",
            "username_invalid",
            [gettext("A user name has at most %(max)s characters.") % {"max": USERNAME_MAX_LENGTH}],
        )
    try:
        User.username_validator(username)
    except DjangoValidationError:
        raise _invalid(
            "username", "username_invalid", [gettext("A user name may hold letters, digits and @ . + - _ only.")]
        ) from None
    if User.objects.filter(username__iexact=username).exists():
        raise _invalid("username", "username_taken", [gettext("This user name is taken.")])

    if not email or len(email) > EMAIL_MAX_LENGTH:
        raise _invalid("email", "email_invalid", [gettext("Enter a valid email address.")])
    try:
        validate_email(email)
    except DjangoValidationError:
        raise _invalid("email", "email_invalid", [gettext("Enter a valid email address.")]) from None
    # An address already registered is not refused: the answer would tell anybody which
    # addresses have an account here (players sign in by user name; the address is how
    # the casino reaches them, not who they are).

    try:
        password_validation.validate_password(password, user=User(username=username, email=email))
    except DjangoValidationError as exc:
        raise _invalid("password", "password_invalid", list(exc.messages)) from None

    try:
        with db_transaction.atomic():
            user = User.objects.create_user(username=username, email=email, password=password)
            user.groups.add(role_group(PLAYER))
            player_signed_up.send(sender=User, user=user)
    except IntegrityError:  # the same name, signed up at the same moment by someone else
        raise _invalid("username", "username_taken", [gettext("This user name is taken.")]) from None
    return user
