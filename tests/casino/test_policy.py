"""The one authorisation policy (``casino.access.policy``): the grant table, the groups in the
database, and the one question asked by services, API, pages and templates."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Group, Permission
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import HttpResponse
from django.template import Context, Template
from django.test import RequestFactory
from rest_framework.test import APIRequestFactory

from casino.access import policy
from casino.access.policy import ACTIONS, Allowed, Can, UnknownAction, allowed, allowed_for, require, roles_install
from casino.access.roles import ADMINISTRATOR, AUDITOR, CASHIER, MANAGER, PLAYER, ROLES
from casino.http.errors import PermissionDenied

# Who may do what, written out: a change of GRANTS must change this table too.
EXPECTED = {
    PLAYER: {"play"},
    CASHIER: {
        "cash.desk",
        "cash.deposit",
        "cash.withdraw",
        "cash.reverse",
        "cash.approve",
        "cash.report",
        "account.two_factor",
    },
    MANAGER: {"cash.approve", "cash.report", "config.read", "config.change", "account.two_factor"},
    AUDITOR: {"hand.read_any", "config.read", "audit.read", "account.two_factor"},
    ADMINISTRATOR: {"admin.site", "account.two_factor"},
}


def _policy_codenames(group: Group) -> set[str]:
    return set(group.permissions.filter(content_type__app_label="casino").values_list("codename", flat=True))


@pytest.mark.django_db
def test_the_migration_made_the_groups_with_their_grants():
    """No fixture: what ``migrate`` leaves behind is already the policy."""
    for role in ROLES:
        group = Group.objects.get(name=role)
        assert _policy_codenames(group) == {ACTIONS[a].codename for a in EXPECTED[role]}, role


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_each_role_may_do_exactly_its_actions(make_user, role):
    user = make_user(role)
    assert {name for name in ACTIONS if allowed(user, name)} == EXPECTED[role]


@pytest.mark.django_db
def test_roles_install_repairs_the_grants_and_leaves_other_permissions_alone(groups):
    cashier = groups[CASHIER]
    player = groups[PLAYER]
    foreign = Permission.objects.get(codename="view_group")
    cashier.permissions.add(foreign)
    player.permissions.add(Permission.objects.get(codename=ACTIONS["cash.approve"].codename))
    cashier.permissions.remove(Permission.objects.get(codename=ACTIONS["cash.deposit"].codename))
    again = roles_install()
    assert again[CASHIER].pk == cashier.pk
    assert _policy_codenames(player) == {"play"}
    assert "cash_deposit" in _policy_codenames(cashier)
    assert cashier.permissions.filter(pk=foreign.pk).exists()
    assert Group.objects.filter(name__in=ROLES).count() == len(ROLES)


@pytest.mark.django_db
def test_roles_install_recreates_what_a_flush_removed():
    Group.objects.all().delete()
    Permission.objects.filter(content_type__app_label="casino", content_type__model="policy").delete()
    groups = roles_install()
    assert set(groups) == set(ROLES)
    assert _policy_codenames(groups[MANAGER]) == {ACTIONS[a].codename for a in EXPECTED[MANAGER]}


@pytest.mark.django_db
def test_nobody_signed_out_inactive_or_merely_superuser_is_allowed(make_user):
    assert not allowed(AnonymousUser(), "play")
    assert not allowed(None, "play")
    inactive = make_user(CASHIER)
    inactive.is_active = False
    assert not allowed(inactive, "cash.deposit")
    root = get_user_model().objects.create_user(username="root", password="pw", is_staff=True, is_superuser=True)
    assert root.has_perm(ACTIONS["cash.approve"].permission)  # what Django alone would say
    assert not any(allowed(root, name) for name in ACTIONS)  # the policy: a superuser is no cashier


@pytest.mark.django_db
def test_a_permission_given_to_one_user_counts(make_user):
    user = make_user(PLAYER)
    user.user_permissions.add(Permission.objects.get(codename="audit_read"))
    assert allowed(get_user_model().objects.get(pk=user.pk), "audit.read")


@pytest.mark.django_db
def test_the_answer_is_kept_on_the_user_object(make_user, django_assert_num_queries):
    user = get_user_model().objects.get(pk=make_user(MANAGER).pk)
    with django_assert_num_queries(1):
        assert allowed(user, "config.change")
        assert not allowed(user, "audit.read")
        assert allowed(user, "cash.approve")
    user.groups.add(Group.objects.get(name=AUDITOR))
    policy.forget(user)
    assert allowed(user, "audit.read")


def test_an_unknown_action_is_a_programming_error():
    with pytest.raises(ValueError, match="No action 'cash.aprove'"):
        allowed(AnonymousUser(), "cash.aprove")
    with pytest.raises(ValueError):
        Allowed("nothing")
    with pytest.raises(ValueError):
        allowed_for("nothing", message="x")


@pytest.mark.django_db
def test_require_refuses_with_the_stable_code_and_the_roles_that_may(make_user):
    with pytest.raises(PermissionDenied) as refused:
        require(make_user(PLAYER), "cash.approve")
    assert refused.value.code == "forbidden" and refused.value.status == 403
    assert refused.value.message == "This needs the cashier or manager role."
    assert refused.value.extra == {"action": "cash.approve"}
    require(make_user(MANAGER), "cash.approve")  # no exception


@pytest.mark.django_db
def test_the_drf_permission_reads_with_one_action_and_writes_with_another(make_user):
    factory = APIRequestFactory()
    permission = Allowed("config.read", unsafe="config.change")()
    auditor, manager = make_user(AUDITOR), make_user(MANAGER)

    def asks(user, method):
        request = getattr(factory, method)("/x")
        request.user = user
        return permission.has_permission(request, None)

    assert asks(auditor, "get") and not asks(auditor, "post") and not asks(auditor, "patch")
    assert permission.message == "This needs the manager role."
    assert asks(manager, "get") and asks(manager, "patch")
    assert not asks(AnonymousUser(), "get")
    audit = Allowed("audit.read")()
    request = factory.get("/x")
    request.user = manager
    assert not audit.has_permission(request, None) and audit.message == "This needs the auditor role."
    only = Allowed("audit.read", message="Auditors only.")()
    request = factory.get("/x")
    request.user = manager
    assert not only.has_permission(request, None) and only.message == "Auditors only."


@pytest.mark.django_db
def test_the_page_decorator_signs_in_refuses_or_lets_through(make_user):
    @allowed_for("config.read", message="Managers and auditors.", unsafe="config.change", unsafe_message="Managers.")
    def page(request):
        return HttpResponse("ok")

    factory = RequestFactory()

    def visit(user, method="get"):
        request = getattr(factory, method)("/page/")
        request.user = user
        return page(request)

    signed_out = visit(AnonymousUser())
    assert signed_out.status_code == 302 and "/accounts/login/" in signed_out["Location"]
    with pytest.raises(DjangoPermissionDenied, match="Managers and auditors."):
        visit(make_user(PLAYER))
    auditor = make_user(AUDITOR)
    assert visit(auditor).content == b"ok"
    with pytest.raises(DjangoPermissionDenied, match="^Managers.$"):
        visit(auditor, "post")
    assert visit(make_user(MANAGER), "post").content == b"ok"


@pytest.mark.django_db
def test_templates_ask_can_and_a_typo_fails_loudly(make_user):
    template = Template("{% if can.cash_approve %}approve{% endif %}{% if can.config_change %} change{% endif %}")
    assert template.render(Context({"can": Can(make_user(CASHIER))})) == "approve"
    assert template.render(Context({"can": Can(make_user(MANAGER))})) == "approve change"
    assert template.render(Context({"can": Can(AnonymousUser())})) == ""
    with pytest.raises(UnknownAction):
        Template("{% if can.cash_aprove %}x{% endif %}").render(Context({"can": Can(make_user(CASHIER))}))


@pytest.mark.django_db
def test_every_page_has_can_from_the_context_processor(make_user, client):
    client.force_login(make_user(PLAYER))
    response = client.get("/")
    assert response.context["can"].play is True and response.context["can"].audit_read is False
