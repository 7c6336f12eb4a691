"""Tables, pay tables and hands in the admin: read-only (configuration changes on the
manager's pages, validated and audited; hands change only through the dealer's services)."""

from django.contrib import admin

from casino.admin import ReadOnlyAdmin, ReadOnlyInline
from tables.models import Hand, HandSeat, PayTable, Seat, Table


@admin.register(PayTable)
class PayTableAdmin(ReadOnlyAdmin):
    list_display = ("name", "created_at")


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("name", "is_open", "tier", "paytable", "pool", "bet_seconds", "decision_seconds")
    list_filter = ("is_open", "tier", "paytable", "pool")
    list_select_related = ("tier", "paytable", "pool")


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "player", "rounds_sat_out", "sat_at")
    list_select_related = ("table", "player")


class HandSeatInline(ReadOnlyInline):
    model = HandSeat
    fields = ("seat_number", "player", "ante", "jackpot_bet", "decision", "category", "outcome", "net")


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = ("id", "table", "nonce", "state", "opened_at", "settled_at")
    list_filter = ("state", "table")
    search_fields = ("=id", "commitment")
    list_select_related = ("table",)
    inlines = [HandSeatInline]
    # The server seed of a live hand is the secret that makes the deck fair: not even here.
    exclude = ("server_seed",)
