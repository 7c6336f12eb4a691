"""Records of the API layer shared by every app."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

from casino.access.policy import ACTIONS

# The longest idempotency key anything stores: the API's ``Idempotency-Key`` header
# (``casino.http.idempotency``) and the ledger's transaction keys (``wallets``). A key a caller
# sends that a service prefixes (``jackpot:<pool>:top_up:<key>``) is shorter by the prefix.
IDEMPOTENCY_KEY_MAX = 200


class IdempotencyRecord(models.Model):
    """The first response to a state-changing request sent with an ``Idempotency-Key``.

    Written in the same transaction as the request's effect, so that a retry either finds
    the committed effect and its response, or finds nothing and runs again.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=IDEMPOTENCY_KEY_MAX)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=300)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(default=0)
    response = models.JSONField(encoder=DjangoJSONEncoder, null=True)
    # What was sent, byte for byte: a replay answers with exactly these bytes.
    body = models.BinaryField(null=True)
    content_type = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_once_per_user")]


class AuditEntry(models.Model):
    """Who changed what configuration, when, with the values before and after."""

    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=60)
    object_type = models.CharField(max_length=60)
    object_id = models.CharField(max_length=60)
    before = models.JSONField(encoder=DjangoJSONEncoder, null=True)
    after = models.JSONField(encoder=DjangoJSONEncoder, null=True)

    class Meta:
        ordering = ["-id"]
        # The audit log, newest first a page at a time (``backoffice.manager.selectors``):
        # all of it by the primary key, or one object's, one type's, one action's, one actor's.
        indexes = [
            models.Index(fields=["object_type", "object_id", "id"], name="audit_object_newest"),
            models.Index(fields=["object_type", "id"], name="audit_type_newest"),
            models.Index(fields=["action", "id"], name="audit_action_newest"),
            models.Index(fields=["actor", "id"], name="audit_actor_newest"),
        ]


class Policy(models.Model):
    """No table: the home of the permissions of ``casino.access.policy.ACTIONS`` (one per action),
    which ``casino.access.policy.roles_install`` grants to the role groups."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [(action.codename, action.label) for action in ACTIONS.values()]


class Preference(models.Model):
    """What a signed-in person chose for themselves: the language of their pages (any
    role; ``casino.i18n`` keeps it and activates it on every request)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference")
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
