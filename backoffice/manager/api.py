"""REST endpoints of the managers: limit tiers, pay tables, tables, jackpot pools, audit log.

Managers read and change; auditors read only; everyone else is refused. Thin: parse the
JSON body (amounts are decimal strings, parsed by ``casino.money.to_cents``), call one
service, render. Every refusal is ``{"code", "message", "extra"}`` and changes nothing.
"""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.manager.selectors import audit_entries, live_hand_of
from casino import policy
from casino.api import error_responses
from casino.errors import NotFound, ValidationError
from casino.idempotency import idempotent
from casino.models import AuditEntry
from casino.money import format_cents, to_cents
from casino.validation import Pagination
from jackpot import services as jackpot_services
from jackpot.models import JackpotPool
from tables import services as table_services
from tables.models import PayTable, Table
from wallets.api import Money
from wallets.models import LimitTier


class _ManagerApi(APIView):
    permission_classes = [
        policy.Allowed(
            "config.read", unsafe="config.change", message="Only managers change the configuration; auditors may read it."
        )
    ]


# --- bodies -----------------------------------------------------------------------------


def tier_body(tier: LimitTier) -> dict:
    return {
        "id": tier.pk,
        "name": tier.name,
        "min_ante": format_cents(tier.min_ante),
        "max_ante": format_cents(tier.max_ante),
        "tables": list(tier.tables.order_by("pk").values_list("pk", flat=True)),
    }


def paytable_body(paytable: PayTable) -> dict:
    return {
        "id": paytable.pk,
        "name": paytable.name,
        "qualified": paytable.data.get("qualified", {}),
        "not_qualified": paytable.data.get("not_qualified", {}),
        "tables": list(paytable.tables.order_by("pk").values_list("pk", flat=True)),
    }


def table_body(table: Table) -> dict:
    hand = live_hand_of(table)
    return {
        "id": table.pk,
        "name": table.name,
        "is_open": table.is_open,
        "tier": table.tier_id,
        "tier_name": table.tier.name,
        "min_ante": format_cents(table.tier.min_ante),
        "max_ante": format_cents(table.tier.max_ante),
        "paytable": table.paytable_id,
        "paytable_name": table.paytable.name,
        "pool": table.pool_id,
        "pool_name": table.pool.name,
        "bet_seconds": table.bet_seconds,
        "decision_seconds": table.decision_seconds,
        "extension_seconds": table.extension_seconds,
        "pair_timeout_action": table.pair_timeout_action,
        "sit_out_limit": table.sit_out_limit,
        "seated": table.seats.count(),
        "live_hand": hand.pk if hand else None,
        "hand_in_progress": bool(hand and hand.bets),
    }


def pool_body(pool: JackpotPool) -> dict:
    schedule = pool.schedule
    return {
        "id": pool.pk,
        "name": pool.name,
        "is_active": pool.is_active,
        "meter": format_cents(pool.meter_account.balance),
        "reserve": format_cents(pool.reserve_account.balance),
        "seed_amount": format_cents(pool.seed_amount),
        "bet_amount": format_cents(pool.bet_amount),
        "meter_share_bp": pool.meter_share_bp,
        "reserve_share_bp": pool.reserve_share_bp,
        "schedule": {
            "percent_prizes": dict(schedule.get("percent_prizes", {})),
            "fixed_prizes": {key: format_cents(cents) for key, cents in schedule.get("fixed_prizes", {}).items()},
        },
        "tables": list(pool.tables.order_by("pk").values_list("pk", flat=True)),
        "rules_apply_from": "next_hand",
        "hands_on_previous_rules": jackpot_services.pool_hands_on_previous_rules(pool=pool),
    }


def audit_body(entry: AuditEntry) -> dict:
    return {
        "id": entry.pk,
        "at": entry.at,
        "actor": entry.actor.get_username() if entry.actor_id else None,
        "action": entry.action,
        "object_type": entry.object_type,
        "object_id": entry.object_id,
        "before": entry.before,
        "after": entry.after,
    }


# --- what the endpoints answer and take (the OpenAPI schema; checked live in
# tests/tables/test_api_schema.py) ---------------------------------------------------------


class TierOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    min_ante = Money()
    max_ante = Money()
    tables = serializers.ListField(child=serializers.IntegerField())


class TiersOutput(serializers.Serializer):
    tiers = TierOutput(many=True)


class TierInput(serializers.Serializer):
    name = serializers.CharField(required=False)
    min_ante = Money(required=False)
    max_ante = Money(required=False)


class ManagedPayTableOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    qualified = serializers.DictField(child=serializers.IntegerField(), help_text="Category: odds to 1 on the raise.")
    not_qualified = serializers.DictField(child=serializers.IntegerField(), help_text="Category: odds when the dealer does not qualify.")
    tables = serializers.ListField(child=serializers.IntegerField())


class ManagedPayTablesOutput(serializers.Serializer):
    paytables = ManagedPayTableOutput(many=True)


class PayTableInput(serializers.Serializer):
    name = serializers.CharField(required=False)
    qualified = serializers.DictField(child=serializers.IntegerField(), required=False)
    not_qualified = serializers.DictField(child=serializers.IntegerField(), required=False)


class ManagedTableOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    is_open = serializers.BooleanField()
    tier = serializers.IntegerField()
    tier_name = serializers.CharField()
    min_ante = Money()
    max_ante = Money()
    paytable = serializers.IntegerField()
    paytable_name = serializers.CharField()
    pool = serializers.IntegerField()
    pool_name = serializers.CharField()
    bet_seconds = serializers.IntegerField()
    decision_seconds = serializers.IntegerField()
    extension_seconds = serializers.IntegerField()
    pair_timeout_action = serializers.CharField()
    sit_out_limit = serializers.IntegerField()
    seated = serializers.IntegerField()
    live_hand = serializers.IntegerField(allow_null=True)
    hand_in_progress = serializers.BooleanField()


class ManagedTablesOutput(serializers.Serializer):
    tables = ManagedTableOutput(many=True)


class TableInput(serializers.Serializer):
    name = serializers.CharField(required=False)
    tier = serializers.IntegerField(required=False)
    paytable = serializers.IntegerField(required=False)
    pool = serializers.IntegerField(required=False)
    bet_seconds = serializers.IntegerField(required=False, help_text="3 to 600.")
    decision_seconds = serializers.IntegerField(required=False, help_text="3 to 600.")
    extension_seconds = serializers.IntegerField(required=False, help_text="0 to 600.")
    pair_timeout_action = serializers.ChoiceField(choices=["fold", "raise"], required=False)
    sit_out_limit = serializers.IntegerField(required=False, help_text="1 to 100.")


class PoolHandOnPreviousRulesOutput(serializers.Serializer):
    hand = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()


class PoolScheduleOutput(serializers.Serializer):
    percent_prizes = serializers.DictField(child=serializers.IntegerField(), help_text="Category: percent of the meter.")
    fixed_prizes = serializers.DictField(child=Money(), help_text="Category: a fixed prize.")


class ManagedPoolOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    is_active = serializers.BooleanField()
    meter = Money()
    reserve = Money()
    seed_amount = Money()
    bet_amount = Money()
    meter_share_bp = serializers.IntegerField(help_text="7000 = 70 %.")
    reserve_share_bp = serializers.IntegerField()
    schedule = PoolScheduleOutput()
    tables = serializers.ListField(child=serializers.IntegerField())
    rules_apply_from = serializers.ChoiceField(
        choices=["next_hand"],
        help_text="A change of the chip, split or prizes applies at each table from its next hand; "
        "a hand holding jackpot chips settles by the rules it opened under. A new seed applies to the next reset.",
    )
    hands_on_previous_rules = PoolHandOnPreviousRulesOutput(
        many=True, help_text="Hands in play whose jackpot bets still run on the rules before the last change."
    )


class ManagedPoolsOutput(serializers.Serializer):
    pools = ManagedPoolOutput(many=True)


class PoolInput(serializers.Serializer):
    name = serializers.CharField(required=False)
    seed_amount = Money(required=False)
    bet_amount = Money(required=False)
    meter_share_bp = serializers.IntegerField(required=False)
    reserve_share_bp = serializers.IntegerField(required=False)
    schedule = PoolScheduleOutput(required=False)


class TopUpInput(serializers.Serializer):
    amount = Money()


class TopUpOutput(serializers.Serializer):
    transaction = serializers.IntegerField()
    replayed = serializers.BooleanField()
    pool = ManagedPoolOutput()


class AuditEntryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True)
    action = serializers.CharField()
    object_type = serializers.CharField()
    object_id = serializers.CharField()
    before = serializers.JSONField(help_text="Any JSON value; null for a creation.")
    after = serializers.JSONField(help_text="Any JSON value.")


READ_ERRORS = error_responses(401, 403)
WRITE_ERRORS = error_responses(400, 401, 403, 404, 409)


# --- input ------------------------------------------------------------------------------


def _body(request, allowed: set[str]) -> dict:
    """The JSON object sent, with known fields only."""
    data = request.data
    if not isinstance(data, dict):
        raise ValidationError("The body must be a JSON object.", code="field_invalid", extra={"field": "body"})
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ValidationError(
            f"Unknown field(s): {', '.join(unknown)}.", code="unknown_field", extra={"fields": unknown, "allowed": sorted(allowed)}
        )
    return dict(data)


def _amounts(data: dict, fields: tuple[str, ...]) -> dict:
    """Decimal strings to int cents; a missing or null amount is left for the service to refuse."""
    for field in fields:
        if data.get(field) is not None:
            data[field] = to_cents(data[field], field=field)
    return data


def _schedule_in(schedule):
    """The API's schedule (fixed prizes as decimal strings) in the pool's cents."""
    if isinstance(schedule, dict) and isinstance(schedule.get("fixed_prizes"), dict):
        fixed = {
            key: (to_cents(value, field=f"schedule.fixed_prizes.{key}") if value is not None else None)
            for key, value in schedule["fixed_prizes"].items()
        }
        return {**schedule, "fixed_prizes": fixed}
    return schedule


def _get(query: QuerySet, pk: int, code: str, what: str):
    obj = query.filter(pk=pk).first()
    if obj is None:
        raise NotFound(f"No such {what}.", code=code)
    return obj


def _pools():
    return JackpotPool.objects.select_related("meter_account", "reserve_account").order_by("pk")


def _tables():
    return Table.objects.select_related("tier", "paytable", "pool").order_by("pk")


# --- limit tiers ------------------------------------------------------------------------

TIER_FIELDS = {"name", "min_ante", "max_ante"}


class TierListApi(_ManagerApi):
    @extend_schema(responses={200: TiersOutput, **READ_ERRORS}, summary="Limit tiers", operation_id="manager_tiers_list")
    def get(self, request):
        return Response({"tiers": [tier_body(t) for t in LimitTier.objects.order_by("min_ante", "pk")]})

    @extend_schema(request=TierInput, responses={201: TierOutput, **WRITE_ERRORS}, summary="New limit tier")
    @idempotent
    def post(self, request):
        data = _amounts(_body(request, TIER_FIELDS), ("min_ante", "max_ante"))
        tier = table_services.tier_create(
            actor=request.user, name=data.get("name"), min_ante=data.get("min_ante"), max_ante=data.get("max_ante")
        )
        return Response(tier_body(tier), status=status.HTTP_201_CREATED)


class TierDetailApi(_ManagerApi):
    @extend_schema(responses={200: TierOutput, **READ_ERRORS}, summary="A limit tier")
    def get(self, request, tier_id: int):
        return Response(tier_body(_get(LimitTier.objects.all(), tier_id, "tier_not_found", "limit tier")))

    @extend_schema(request=TierInput, responses={200: TierOutput, **WRITE_ERRORS}, summary="Change a limit tier")
    @idempotent
    def patch(self, request, tier_id: int):
        changes = _amounts(_body(request, TIER_FIELDS), ("min_ante", "max_ante"))
        tier = table_services.tier_update(actor=request.user, tier_id=tier_id, changes=changes)
        return Response(tier_body(tier))


# --- pay tables -------------------------------------------------------------------------

PAYTABLE_FIELDS = {"name", "qualified", "not_qualified"}


class PayTableListApi(_ManagerApi):
    @extend_schema(responses={200: ManagedPayTablesOutput, **READ_ERRORS}, summary="Pay tables", operation_id="manager_paytables_list")
    def get(self, request):
        return Response({"paytables": [paytable_body(p) for p in PayTable.objects.order_by("pk")]})

    @extend_schema(request=PayTableInput, responses={201: ManagedPayTableOutput, **WRITE_ERRORS}, summary="New pay table")
    @idempotent
    def post(self, request):
        data = _body(request, PAYTABLE_FIELDS)
        paytable = table_services.paytable_create(
            actor=request.user,
            name=data.get("name"),
            qualified=data.get("qualified"),
            not_qualified=data.get("not_qualified", {}),
        )
        return Response(paytable_body(paytable), status=status.HTTP_201_CREATED)


class PayTableDetailApi(_ManagerApi):
    @extend_schema(responses={200: ManagedPayTableOutput, **READ_ERRORS}, summary="A pay table")
    def get(self, request, paytable_id: int):
        return Response(paytable_body(_get(PayTable.objects.all(), paytable_id, "paytable_not_found", "pay table")))

    @extend_schema(request=PayTableInput, responses={200: ManagedPayTableOutput, **WRITE_ERRORS}, summary="Change a pay table")
    @idempotent
    def patch(self, request, paytable_id: int):
        paytable = table_services.paytable_update(
            actor=request.user, paytable_id=paytable_id, changes=_body(request, PAYTABLE_FIELDS)
        )
        return Response(paytable_body(paytable))


# --- tables -----------------------------------------------------------------------------

TABLE_CREATE_FIELDS = set(table_services.TABLE_FIELDS)


class TableListApi(_ManagerApi):
    @extend_schema(responses={200: ManagedTablesOutput, **READ_ERRORS}, summary="Every table, open or closed", operation_id="manager_tables_list")
    def get(self, request):
        return Response({"tables": [table_body(t) for t in _tables()]})

    @extend_schema(request=TableInput, responses={201: ManagedTableOutput, **WRITE_ERRORS}, summary="New table")
    @idempotent
    def post(self, request):
        data = _body(request, TABLE_CREATE_FIELDS)
        timebank = {k: v for k, v in data.items() if k not in ("name", "tier", "paytable", "pool")}
        table = table_services.table_add(
            actor=request.user,
            name=data.get("name"),
            tier_id=data.get("tier"),
            paytable_id=data.get("paytable"),
            pool_id=data.get("pool"),
            timebank=timebank,
        )
        return Response(table_body(_tables().get(pk=table.pk)), status=status.HTTP_201_CREATED)


class TableDetailApi(_ManagerApi):
    @extend_schema(responses={200: ManagedTableOutput, **READ_ERRORS}, summary="A table's configuration")
    def get(self, request, table_id: int):
        return Response(table_body(_get(_tables(), table_id, "table_not_found", "table")))

    @extend_schema(request=TableInput, responses={200: ManagedTableOutput, **WRITE_ERRORS}, summary="Change a table")
    @idempotent
    def patch(self, request, table_id: int):
        table = table_services.table_update(
            actor=request.user, table_id=table_id, changes=_body(request, TABLE_CREATE_FIELDS)
        )
        return Response(table_body(_tables().get(pk=table.pk)))


class TableOpenApi(_ManagerApi):
    @extend_schema(request=None, responses={200: ManagedTableOutput, **WRITE_ERRORS}, summary="Open a table")
    @idempotent
    def post(self, request, table_id: int):
        table = table_services.table_open(actor=request.user, table_id=table_id)
        return Response(table_body(_tables().get(pk=table.pk)))


class TableCloseApi(_ManagerApi):
    @extend_schema(
        request=None,
        responses={200: ManagedTableOutput, **WRITE_ERRORS},
        summary="Close a table: no new seat or hand; a hand in play ends normally",
    )
    @idempotent
    def post(self, request, table_id: int):
        table = table_services.table_close(actor=request.user, table_id=table_id)
        return Response(table_body(_tables().get(pk=table.pk)))


# --- jackpot pools ----------------------------------------------------------------------

POOL_FIELDS = set(jackpot_services.POOL_FIELDS)


def _pool_input(request) -> dict:
    data = _amounts(_body(request, POOL_FIELDS), ("seed_amount", "bet_amount"))
    if "schedule" in data:
        data["schedule"] = _schedule_in(data["schedule"])
    return data


class PoolListApi(_ManagerApi):
    @extend_schema(responses={200: ManagedPoolsOutput, **READ_ERRORS}, summary="Jackpot pools with meter and reserve", operation_id="manager_pools_list")
    def get(self, request):
        return Response({"pools": [pool_body(p) for p in _pools()]})

    @extend_schema(request=PoolInput, responses={201: ManagedPoolOutput, **WRITE_ERRORS}, summary="New pool, seeded by the house")
    @idempotent
    def post(self, request):
        data = _pool_input(request)
        pool = jackpot_services.pool_add(
            actor=request.user,
            name=data.get("name"),
            seed_amount=data.get("seed_amount"),
            bet_amount=data.get("bet_amount"),
            meter_share_bp=data.get("meter_share_bp"),
            reserve_share_bp=data.get("reserve_share_bp"),
            schedule=data.get("schedule"),
        )
        return Response(pool_body(_pools().get(pk=pool.pk)), status=status.HTTP_201_CREATED)


class PoolDetailApi(_ManagerApi):
    @extend_schema(responses={200: ManagedPoolOutput, **READ_ERRORS}, summary="A pool")
    def get(self, request, pool_id: int):
        return Response(pool_body(_get(_pools(), pool_id, "pool_not_found", "jackpot pool")))

    @extend_schema(request=PoolInput, responses={200: ManagedPoolOutput, **WRITE_ERRORS}, summary="Change a pool (rules apply from each table's next hand)")
    @idempotent
    def patch(self, request, pool_id: int):
        pool = jackpot_services.pool_update(actor=request.user, pool_id=pool_id, changes=_pool_input(request))
        return Response(pool_body(_pools().get(pk=pool.pk)))


class PoolTopUpApi(_ManagerApi):
    @extend_schema(
        request=TopUpInput,
        responses={201: TopUpOutput, **WRITE_ERRORS},
        summary="Top the meter up from the house bankroll (Idempotency-Key required)",
    )
    @idempotent
    def post(self, request, pool_id: int):
        key = request.headers.get("Idempotency-Key")
        if not key:
            raise ValidationError("A top-up needs an Idempotency-Key header.", code="idempotency_key_required")
        data = _amounts(_body(request, {"amount"}), ("amount",))
        txn = jackpot_services.pool_manual_top_up(
            actor=request.user, pool_id=pool_id, amount=data.get("amount"), idempotency_key=key
        )
        pool = _pools().get(pk=pool_id)
        body = {"transaction": txn.pk, "replayed": txn.replayed, "pool": pool_body(pool)}
        return Response(body, status=status.HTTP_201_CREATED)


# --- audit log --------------------------------------------------------------------------


class AuditLogApi(_ManagerApi):
    pagination_class = Pagination  # for the schema: the page's shape and its parameters

    @extend_schema(responses={200: AuditEntryOutput(many=True), **error_responses(400, 401, 403)}, summary="Configuration changes: who, when, before, after")
    def get(self, request):
        paginator = Pagination()
        page = paginator.paginate_queryset(audit_entries(params=request.query_params), request, view=self)
        return paginator.get_paginated_response([audit_body(e) for e in page])
