"""Roles: Django groups, checked by every page and endpoint through these helpers."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from rest_framework.permissions import BasePermission

PLAYER = "player"
CASHIER = "cashier"
MANAGER = "manager"
AUDITOR = "auditor"
ADMINISTRATOR = "administrator"  # also is_staff: the only role that may use the Django admin
ROLES = (PLAYER, CASHIER, MANAGER, AUDITOR, ADMINISTRATOR)


def has_role(user, role: str) -> bool:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    cached = getattr(user, "_casino_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._casino_roles = cached
    return role in cached


def role_permission(role: str) -> type[BasePermission]:
    class HasRole(BasePermission):
        message = f"This needs the {role} role."

        def has_permission(self, request, view) -> bool:
            return has_role(request.user, role)

    HasRole.__name__ = f"Is{role.capitalize()}"
    return HasRole


IsPlayer = role_permission(PLAYER)
IsCashier = role_permission(CASHIER)
IsManager = role_permission(MANAGER)
IsAuditor = role_permission(AUDITOR)


def pages_for(*roles: str, message: str):
    """Decorate a page view: signed in (else the sign-in page) with one of ``roles`` (else 403)."""

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not any(has_role(request.user, role) for role in roles):
                raise DjangoPermissionDenied(message)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
