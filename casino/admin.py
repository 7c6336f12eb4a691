"""The Django admin's building blocks: read-only model admins, the audit records, and the
two-factor devices' admin.

The admin is for administrators only (``backoffice/admin.py`` sets the site's rule). The
ledger and every record of play or configuration are read-only there, even for a
superuser: money moves only through ``wallets`` services, configuration changes only
through the manager's pages (validated and audited).
"""

from django.contrib import admin
from django.shortcuts import get_object_or_404
from django_otp.plugins.otp_totp.admin import TOTPDeviceAdmin as OTPTOTPDeviceAdmin
from django_otp.plugins.otp_totp.models import TOTPDevice

from casino.access.security import is_administrator
from casino.models import AuditEntry, IdempotencyRecord


class ReadOnlyAdmin(admin.ModelAdmin):
    """Visible to administrators; never added, changed or deleted through the admin."""

    show_full_result_count = False

    def has_module_permission(self, request) -> bool:
        return is_administrator(request.user)

    def has_view_permission(self, request, obj=None) -> bool:
        return is_administrator(request.user)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_view_permission(self, request, obj=None) -> bool:
        return is_administrator(request.user)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def euros(field: str, description: str):
    """A list column showing the integer-cents ``field`` as euros ("€1,250.00")."""

    @admin.display(description=description, ordering=field)
    def show(obj) -> str:
        from casino.money import money

        return money(getattr(obj, field))

    show.__name__ = f"{field}_euros"
    return show


# "Audit entries", not Django's "Audit entrys". Set on _meta, not in the model's Meta:
# migrations read Meta's original attributes only, so this needs no migration.
AuditEntry._meta.verbose_name_plural = "audit entries"


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "at", "actor", "action_words", "object_words", "action", "object_type", "object_id")

    @admin.display(description="What")
    def action_words(self, obj) -> str:
        from casino.audit import audit_action_words

        return audit_action_words(obj.action)

    @admin.display(description="Object")
    def object_words(self, obj) -> str:
        from casino.audit import audit_object_words

        return audit_object_words(obj)

    list_filter = ("action", "object_type")
    search_fields = ("object_id", "actor__username", "action")
    list_select_related = ("actor",)
    date_hierarchy = "at"


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "key", "method", "path", "status_code", "created_at")
    search_fields = ("key", "user__username", "path")
    list_select_related = ("user",)


class TOTPDeviceAdmin(OTPTOTPDeviceAdmin):
    """django-otp's admin of two-factor devices; a device's setup pages (its key and QR
    code) answer 404 for a device that does not exist, not a server error."""

    def config_view(self, request, pk):
        get_object_or_404(TOTPDevice, pk=pk)
        return super().config_view(request, pk)

    def qrcode_view(self, request, pk):
        get_object_or_404(TOTPDevice, pk=pk)
        return super().qrcode_view(request, pk)


admin.site.unregister(TOTPDevice)  # registered by importing django-otp's admin, above
admin.site.register(TOTPDevice, TOTPDeviceAdmin)
