"""The roles: Django groups, one per name. What each may do is ``casino.access.policy``'s
(``GRANTS``); code asks ``casino.access.policy.allowed(user, action)``, never a group name."""

from __future__ import annotations

PLAYER = "player"
CASHIER = "cashier"
MANAGER = "manager"
AUDITOR = "auditor"
ADMINISTRATOR = "administrator"  # also is_staff: the only role that may use the Django admin
ROLES = (PLAYER, CASHIER, MANAGER, AUDITOR, ADMINISTRATOR)
