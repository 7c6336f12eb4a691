"""Give (or take) a role: player, cashier, manager, auditor or administrator.

    manage.py grant_role USERNAME ROLE [--remove]

Roles are Django groups, created with their grants (``casino.access.policy``) if missing.
An administrator is also ``is_staff`` and ``is_superuser``, the only accounts the Django
admin lets in. Audited.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from casino.access.policy import role_group
from casino.access.roles import ADMINISTRATOR, ROLES
from casino.audit import audit_record


def _state(user) -> dict:
    return {
        "groups": sorted(user.groups.values_list("name", flat=True)),
        "is_staff": user.is_staff,
        "is_superuser": user.is_superuser,
    }


class Command(BaseCommand):
    help = "Give a user a role (a group; administrators also get is_staff and is_superuser), or --remove it."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("role", choices=ROLES)
        parser.add_argument("--remove", action="store_true")

    def handle(self, *args, username, role, remove=False, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        with transaction.atomic():
            before = _state(user)
            group = role_group(role)
            if remove:
                user.groups.remove(group)
            else:
                user.groups.add(group)
            if role == ADMINISTRATOR:
                user.is_staff = user.is_superuser = not remove
                user.save(update_fields=["is_staff", "is_superuser"])
            after = _state(user)
            if after != before:
                audit_record(actor=None, action="user.role", obj=user, before=before, after=after)
        verb = "no longer has" if remove else "has"
        self.stdout.write(self.style.SUCCESS(f"{username} {verb} the role {role}."))
