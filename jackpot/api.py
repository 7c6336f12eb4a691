"""The jackpot pools, their live meters and their rules, for everyone signed in."""

from __future__ import annotations

from decimal import Decimal

from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.cents import format_cents
from casino.http.api import error_responses
from jackpot.models import JackpotPool
from wallets.api import Money


def pool_body(pool: JackpotPool) -> dict:
    schedule = pool.schedule
    return {
        "id": pool.pk,
        "name": pool.name,
        "meter": format_cents(pool.meter_account.balance),
        "seed": format_cents(pool.seed_amount),
        "bet": format_cents(pool.bet_amount),
        "meter_share_pct": str(Decimal(pool.meter_share_bp) / 100),
        "reserve_share_pct": str(Decimal(pool.reserve_share_bp) / 100),
        "schedule": {
            "percent_of_meter": schedule.get("percent_prizes", {}),
            "fixed": {k: format_cents(v) for k, v in schedule.get("fixed_prizes", {}).items()},
        },
        "simultaneous_wins": gettext(
            "Paid in the order their settlements commit; within a hand right to left. "
            "A second winner of a percentage prize gets that percentage of the meter after the first reset."
        ),
    }


class ScheduleOutput(serializers.Serializer):
    percent_of_meter = serializers.DictField(
        child=serializers.IntegerField(), help_text="Category: percent of the meter."
    )
    fixed = serializers.DictField(child=Money(), help_text="Category: a fixed prize.")


class PoolOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    meter = Money()
    seed = Money()
    bet = Money()
    meter_share_pct = serializers.CharField()
    reserve_share_pct = serializers.CharField()
    schedule = ScheduleOutput()
    simultaneous_wins = serializers.CharField()


class PoolsOutput(serializers.Serializer):
    pools = PoolOutput(many=True)
    server_time = serializers.DateTimeField()


class JackpotPoolsApi(APIView):
    @extend_schema(responses={200: PoolsOutput, **error_responses(401)}, summary="Jackpot pools: live meter and rules")
    def get(self, request):
        pools = JackpotPool.objects.filter(is_active=True).select_related("meter_account")
        return Response({"pools": [pool_body(p) for p in pools], "server_time": timezone.now()})
