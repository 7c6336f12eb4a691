"""The one authorisation policy: what each role may do, asked the same way everywhere.

An **action** (``"cash.approve"``) is one Django permission, ``casino.<codename>`` on the
permission-only model ``casino.Policy``. ``GRANTS`` below says which role group holds
which actions; ``roles_install`` writes exactly that into the database (the data
migration, ``load_demo``, ``grant_role``, sign-up and the tests' ``groups`` fixture all
call it), so a reader changes who may do what here and nowhere else.

Every caller asks one question:

- ``allowed(user, action)`` / ``require(user, action)`` (raises
  ``casino.http.errors.PermissionDenied``): services that move money, selectors, the consumer;
- ``Allowed(action)``: a DRF permission class for ``permission_classes``;
- ``allowed_for(action, message=...)``: a page view decorator (the sign-in page when
  signed out, else 403); ``player_required`` is the players' pages' one;
- ``can`` in every template (``{% if can.cash_approve %}``), from ``policy_context``.

A user's permissions are read once per user object (one query) and kept on it. A
superuser is *not* granted every action (``User.has_perm`` would): an administrator runs
the Django admin, not the cashier's desk or a seat, exactly as the roles always meant.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.utils.translation import gettext, gettext_lazy, gettext_noop
from rest_framework.permissions import SAFE_METHODS, BasePermission

from casino.access.roles import ADMINISTRATOR, AUDITOR, CASHIER, MANAGER, PLAYER, ROLES
from casino.http.errors import PermissionDenied, Translated

POLICY_APP = "casino"
POLICY_MODEL = "policy"  # casino.models.Policy: no table, only its permissions


@dataclass(frozen=True)
class Action:
    name: str  # "cash.approve"
    label: str  # the permission's name, as the Django admin lists it

    @property
    def codename(self) -> str:
        return self.name.replace(".", "_")

    @property
    def permission(self) -> str:
        return f"{POLICY_APP}.{self.codename}"


_ACTIONS = (
    Action("play", "Play at the tables: sit down, bet, decide, use the wallet"),
    Action("hand.read_any", "Read any hand, not only one's own"),
    Action("cash.desk", "Serve players at the cashier's desk: find them, open their page"),
    Action("cash.deposit", "Deposit a player's cash, complete or reject a deposit request"),
    Action("cash.withdraw", "Pay out a player's withdrawal"),
    Action("cash.reverse", "Reverse a deposit or a withdrawal"),
    Action("cash.approve", "Approve or reject a desk movement above the threshold (the second pair of eyes)"),
    Action("cash.report", "Read the cash desk's report"),
    Action("config.read", "Read the configuration: tiers, pay tables, tables, pools, their audit log"),
    Action("config.change", "Change the configuration: tiers, pay tables, tables, pools"),
    Action("audit.read", "Audit: hands, ledger, reports, exports"),
    Action("admin.site", "Use the Django admin (with is_staff)"),
    Action("account.two_factor", "Work here: a staff account, which signs in with two-factor"),
)
ACTIONS: dict[str, Action] = {action.name: action for action in _ACTIONS}

# Who may do what: the one grant table.
GRANTS: dict[str, frozenset[str]] = {
    PLAYER: frozenset({"play"}),
    CASHIER: frozenset(
        {
            "cash.desk",
            "cash.deposit",
            "cash.withdraw",
            "cash.reverse",
            "cash.approve",
            "cash.report",
            "account.two_factor",
        }
    ),
    MANAGER: frozenset({"cash.approve", "cash.report", "config.read", "config.change", "account.two_factor"}),
    AUDITOR: frozenset({"hand.read_any", "config.read", "audit.read", "account.two_factor"}),
    ADMINISTRATOR: frozenset({"admin.site", "account.two_factor"}),
}
assert set(GRANTS) == set(ROLES) and set().union(*GRANTS.values()) <= set(ACTIONS)


def roles_of(action: str) -> tuple[str, ...]:
    """The roles granted ``action``, in the order of ``ROLES``."""
    _action(action)
    return tuple(role for role in ROLES if action in GRANTS[role])


# The default refusal of each set of roles an action is granted to (``roles_of``), whole
# sentences for the catalogs; tests/casino/test_error_messages.py checks every action has its own.
REFUSALS = {
    (PLAYER,): gettext_noop("This needs the player role."),
    (CASHIER,): gettext_noop("This needs the cashier role."),
    (MANAGER,): gettext_noop("This needs the manager role."),
    (AUDITOR,): gettext_noop("This needs the auditor role."),
    (ADMINISTRATOR,): gettext_noop("This needs the administrator role."),
    (CASHIER, MANAGER): gettext_noop("This needs the cashier or manager role."),
    (MANAGER, AUDITOR): gettext_noop("This needs the manager or auditor role."),
    (CASHIER, MANAGER, AUDITOR, ADMINISTRATOR): gettext_noop(
        "This needs the cashier or manager or auditor or administrator role."
    ),
}


def refusal(action: str) -> str:
    """The default refusal, in the reader's language: "This needs the cashier or manager role."."""
    roles = roles_of(action)
    if roles in REFUSALS:
        return gettext(REFUSALS[roles])
    return f"This needs the {' or '.join(roles)} role."


def _action(name: str) -> Action:
    try:
        return ACTIONS[name]
    except KeyError:
        raise ValueError(f"No action {name!r} in casino.access.policy.ACTIONS.") from None


# --- the question -----------------------------------------------------------------------


def _codenames(user) -> frozenset[str]:
    """The policy permissions of ``user`` (its groups' and its own), one query per user object."""
    cached = getattr(user, "_casino_policy", None)
    if cached is None:
        from django.contrib.auth.models import Permission
        from django.db.models import Q

        cached = frozenset(
            Permission.objects.filter(content_type__app_label=POLICY_APP, content_type__model=POLICY_MODEL)
            .filter(Q(group__user=user) | Q(user=user))
            .values_list("codename", flat=True)
            .distinct()
        )
        user._casino_policy = cached
    return cached


def allowed(user, action: str) -> bool:
    """May ``user`` (signed in and active) do ``action``?"""
    codename = _action(action).codename
    if user is None or not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    return codename in _codenames(user)


def require(user, action: str, message: str | None = None) -> None:
    """``allowed`` or raise ``PermissionDenied`` (code ``forbidden``) and change nothing."""
    if not allowed(user, action):
        raise PermissionDenied(message or Translated(refusal(action)), code="forbidden", extra={"action": action})


def forget(user) -> None:
    """Drop the permissions kept on this user object (after its roles changed)."""
    for name in ("_casino_policy", "_perm_cache", "_group_perm_cache", "_user_perm_cache"):
        user.__dict__.pop(name, None)


def Allowed(action: str, *, unsafe: str | None = None, message: str | None = None) -> type[BasePermission]:  # noqa: N802
    """A DRF permission class: ``action`` for every method, or, with ``unsafe``, ``action``
    to read (GET, HEAD, OPTIONS) and ``unsafe`` to change."""
    _action(action)
    if unsafe is not None:
        _action(unsafe)

    class _Allowed(BasePermission):
        def has_permission(self, request, view) -> bool:
            needed = unsafe if unsafe is not None and request.method not in SAFE_METHODS else action
            self.message = message or refusal(needed)
            return allowed(request.user, needed)

    _Allowed.__name__ = _Allowed.__qualname__ = f"Allowed[{action}{'/' + unsafe if unsafe else ''}]"
    return _Allowed


def allowed_for(action: str, *, message: str, unsafe: str | None = None, unsafe_message: str | None = None):
    """Decorate a page view: signed in (else the sign-in page) and allowed ``action`` (else
    403 with ``message``); with ``unsafe``, a POST (or any method but GET/HEAD) needs that
    action instead (refused with ``unsafe_message``)."""
    _action(action)
    if unsafe is not None:
        _action(unsafe)

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if unsafe is not None and request.method not in ("GET", "HEAD"):
                if not allowed(request.user, unsafe):
                    raise DjangoPermissionDenied(unsafe_message or message)
            elif not allowed(request.user, action):
                raise DjangoPermissionDenied(message)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


# The players' pages (tables, wallet, poker room): the one decorator, imported by each.
player_required = allowed_for("play", message=gettext_lazy("This page is for players."))


# --- templates --------------------------------------------------------------------------


class UnknownAction(Exception):
    """A template asked ``can`` about an action that does not exist (a typo fails loudly)."""


class Can:
    """``can.cash_approve`` in a template: ``allowed(user, "cash.approve")``, asked lazily."""

    _names = {action.codename: action.name for action in _ACTIONS}

    def __init__(self, user):
        self._user = user

    def __getitem__(self, name: str) -> bool:
        action = self._names.get(name)
        if action is None:
            raise UnknownAction(f"can.{name}: no such action in casino.access.policy.ACTIONS.")
        return allowed(self._user, action)

    def __getattr__(self, name: str) -> bool:
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]


def policy_context(request) -> dict:
    """The context processor: ``can`` for the signed-in user."""
    return {"can": Can(getattr(request, "user", None))}


# --- the grants in the database ---------------------------------------------------------


def roles_install(*, apps=None) -> dict:
    """Create the role groups and the policy permissions, and give each group exactly the
    actions of ``GRANTS`` (other permissions a group holds are left alone). Idempotent.

    ``apps``: a migration's historical registry; the live one by default. Returns the
    groups by role name.
    """
    if apps is None:
        from django.apps import apps
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")

    content_type, _ = ContentType.objects.get_or_create(app_label=POLICY_APP, model=POLICY_MODEL)
    permissions = {p.codename: p for p in Permission.objects.filter(content_type=content_type)}
    missing = [a for a in _ACTIONS if a.codename not in permissions]
    if missing:
        Permission.objects.bulk_create(
            [Permission(content_type=content_type, codename=a.codename, name=a.label) for a in missing],
            ignore_conflicts=True,
        )
        permissions = {p.codename: p for p in Permission.objects.filter(content_type=content_type)}
    groups = {g.name: g for g in Group.objects.filter(name__in=ROLES)}
    for role in ROLES:
        if role not in groups:
            groups[role] = Group.objects.get_or_create(name=role)[0]
    Through = Group.permissions.through
    have = set(
        Through.objects.filter(group__in=groups.values(), permission__content_type=content_type).values_list(
            "group_id", "permission_id"
        )
    )
    want = {
        (groups[role].pk, permissions[ACTIONS[name].codename].pk) for role, names in GRANTS.items() for name in names
    }
    extra = have - want
    if extra:
        for group_id, permission_id in extra:
            Through.objects.filter(group_id=group_id, permission_id=permission_id).delete()
    if want - have:
        Through.objects.bulk_create(
            [Through(group_id=g, permission_id=p) for g, p in sorted(want - have)], ignore_conflicts=True
        )
    return groups


def role_group(role: str):
    """The group of ``role``, with its grants (for adding a user to a role)."""
    if role not in GRANTS:
        raise ValueError(f"No role {role!r}.")
    return roles_install()[role]
