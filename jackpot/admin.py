"""Jackpot pools and hits in the admin: read-only (pools change on the manager's pages)."""

from django.contrib import admin

from casino.admin import ReadOnlyAdmin, euros
from jackpot.models import JackpotHit, JackpotPool


@admin.register(JackpotPool)
class JackpotPoolAdmin(ReadOnlyAdmin):
    list_display = (
        "name",
        euros("seed_amount", "Meter after a reset"),
        euros("bet_amount", "Jackpot chip"),
        "meter_share_bp",
        "reserve_share_bp",
        "is_active",
    )


@admin.register(JackpotHit)
class JackpotHitAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "pool", "player", "category", "kind", euros("amount", "Prize"), "hand_ref")
    list_filter = ("kind", "category", "pool")
    search_fields = ("player__username", "=hand_ref")
    list_select_related = ("pool", "player")
