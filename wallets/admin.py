"""The ledger in the admin: read-only for everyone (money moves only through wallets.services)."""

from django.contrib import admin

from casino.admin import ReadOnlyAdmin, ReadOnlyInline
from wallets.models import Account, LedgerSeal, Leg, LimitTier, Transaction


@admin.register(LimitTier)
class LimitTierAdmin(ReadOnlyAdmin):
    list_display = ("name", "min_ante", "max_ante")


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("code", "kind", "name", "owner", "currency", "balance")
    list_filter = ("kind", "currency")
    search_fields = ("code", "name", "owner__username")
    list_select_related = ("owner",)


class LegInline(ReadOnlyInline):
    model = Leg
    fields = ("account", "side", "amount")


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "memo", "actor", "table_ref", "hand_ref")
    list_filter = ("kind",)
    search_fields = ("idempotency_key", "memo", "=table_ref", "=hand_ref")
    list_select_related = ("actor",)
    inlines = [LegInline]


@admin.register(Leg)
class LegAdmin(ReadOnlyAdmin):
    list_display = ("id", "transaction", "account", "side", "amount")
    list_filter = ("side",)
    search_fields = ("account__code", "=transaction__id")
    list_select_related = ("transaction", "account")


@admin.register(LedgerSeal)
class LedgerSealAdmin(ReadOnlyAdmin):
    list_display = ("seq", "transaction", "hash", "sealed_at")
    list_select_related = ("transaction",)
