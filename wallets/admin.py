"""The ledger in the admin: read-only for everyone (money moves only through wallets.services)."""

from django.contrib import admin

from casino.admin import ReadOnlyAdmin, ReadOnlyInline, euros
from wallets.models import Account, DepositRequest, LedgerSeal, Leg, LimitTier, Transaction


@admin.register(LimitTier)
class LimitTierAdmin(ReadOnlyAdmin):
    list_display = ("name", euros("min_ante", "Lowest ante"), euros("max_ante", "Highest ante"))


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("code", "kind", "name", "owner", "currency", euros("balance", "Balance"))
    list_filter = ("kind", "currency")
    search_fields = ("code", "name", "owner__username")
    list_select_related = ("owner",)


class LegInline(ReadOnlyInline):
    model = Leg
    fields = ("account", "side", "amount_euros")
    readonly_fields = ("amount_euros",)
    amount_euros = staticmethod(euros("amount", "Amount"))


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "memo", "actor", "game", "table_ref", "hand_ref")
    list_filter = ("kind", "game")
    search_fields = ("idempotency_key", "memo", "=table_ref", "=hand_ref")
    list_select_related = ("actor",)
    inlines = [LegInline]


@admin.register(Leg)
class LegAdmin(ReadOnlyAdmin):
    list_display = ("id", "transaction", "account", "side", euros("amount", "Amount"))
    list_filter = ("side",)
    search_fields = ("account__code", "=transaction__id")
    list_select_related = ("transaction", "account")


@admin.register(LedgerSeal)
class LedgerSealAdmin(ReadOnlyAdmin):
    list_display = ("seq", "transaction", "hash", "sealed_at")
    list_select_related = ("transaction",)


@admin.register(DepositRequest)
class DepositRequestAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "requested_at",
        "player",
        euros("amount", "Amount"),
        "status",
        "decided_by",
        "decided_at",
        "reference",
    )
    list_filter = ("status",)
    search_fields = ("player__username", "reference")
    list_select_related = ("player", "decided_by")
