"""REST endpoints of the managers: limit tiers, pay tables, tables, jackpot pools, audit log.

Managers read and change; auditors read only; everyone else is refused. Thin: the JSON
body through its input serializer (amounts are decimal strings, parsed by
``casino.money.to_cents``), call one service, render. Every refusal is
``{"code", "message", "extra"}`` and changes nothing.
"""

from __future__ import annotations

from django.db.models import Count, QuerySet
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.manager.forms import AuditFilterForm
from backoffice.manager.selectors import audit_page, live_hand_of, live_hands_of
from backoffice.serializers import Cents
from casino.access import policy
from casino.http.api import error_responses
from casino.http.errors import NotFound, Translated, ValidationError
from casino.http.idempotency import idempotent
from casino.http.pagination import CursorPagination
from casino.http.validation import input_of, known_fields, no_fields, required
from casino.money import to_cents
from jackpot import services as jackpot_services
from jackpot.models import JackpotPool
from tables import selectors as table_selectors
from tables.models import PayTable, Table
from tables.services import config as table_config
from wallets.api import Money
from wallets.models import LimitTier
from wallets.tiers import TIER_NAME_MAX, tier_create, tier_update


class _ManagerApi(APIView):
    permission_classes = [
        policy.Allowed(
            "config.read",
            unsafe="config.change",
            message=gettext_lazy("Only managers change the configuration; auditors may read it."),
        )
    ]


# --- what the endpoints take: every body through its input serializer ---------------------
#
# A serializer here checks the body's shape: an object of the resource's fields and no
# other (``unknown_field``), each field a create needs present (``field_required``), amounts
# decimal strings made cents (``casino.money.to_cents``). The rules of each value (names,
# bounds, ids, odds, schedules) have one home, the services (``casino.http.validation``), which
# the manager's pages call too: a value is passed to them as sent, so a refusal carries the
# same code whichever way the change came.


class ManagerInput(serializers.Serializer):
    """A manager's request body; with ``partial=True`` (a change, PATCH) nothing is required.
    (Each subclass's docstring is its schema's description.)"""

    def to_internal_value(self, data):
        data = known_fields(data, self.fields)
        if not self.partial:
            for name, field in self.fields.items():
                if field.required:
                    required(data.get(name), name)
        return super().to_internal_value(data)


def parsed(serializer_class: type[ManagerInput], request, *, partial: bool = False) -> dict:
    """The body of ``request`` through ``serializer_class``: only the fields sent."""
    return input_of(serializer_class, request.data, partial=partial)


@extend_schema_field(OpenApiTypes.STR)
class Passed(serializers.Field):
    """A value its service checks (``casino.http.validation``), passed on as sent; null too."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def validate_empty_values(self, data):
        if data is None:  # null is no value: its service answers field_required
            return (True, None)
        return super().validate_empty_values(data)

    def to_internal_value(self, data):
        return data

    def to_representation(self, value):
        return value


@extend_schema_field(OpenApiTypes.INT)
class PassedInt(Passed):
    """A whole number (JSON integer) its service bounds."""


@extend_schema_field({"type": "integer", "minimum": 1})
class PassedId(Passed):
    """The id of a row the service looks up (``casino.http.validation.config_get``)."""


@extend_schema_field({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}})
class PassedOdds(Passed):
    """A pay table column: hand category -> odds N to 1 (checked by the game core)."""


@extend_schema_field({"type": "string", "enum": list(table_config.PAIR_TIMEOUT_ACTIONS)})
class PassedTimeoutAction(Passed):
    """What a pair or better does when its extension runs out too."""


@extend_schema_field({"type": "string", "pattern": r"^[0-9]+(\.[0-9]{1,2})?$", "example": "2.50"})
class AmountIn(Passed):
    """A decimal string in, integer cents out (``casino.money.to_cents``: ``amount_invalid``,
    ``amount_not_positive``, ``amount_too_large``)."""

    def to_internal_value(self, data):
        return to_cents(data, field=self.field_name)


# --- what the endpoints answer and take (the OpenAPI schema; checked live in
# tests/tables/test_api_schema.py) ---------------------------------------------------------


def _table_ids(related) -> list[int]:
    return list(related.order_by("pk").values_list("pk", flat=True))


class TierOutput(serializers.Serializer):
    """A ``wallets.models.LimitTier`` with the tables that use it."""

    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    min_ante = Cents()
    max_ante = Cents()
    tables = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_tables(self, tier: LimitTier) -> list[int]:
        return _table_ids(tier.tables)


class TiersOutput(serializers.Serializer):
    tiers = TierOutput(many=True)


class TierInput(ManagerInput):
    """A limit tier: its name and the ante range of its tables."""

    name = Passed(required=True, help_text=f"1 to {TIER_NAME_MAX} characters.")
    min_ante = AmountIn(required=True)
    max_ante = AmountIn(required=True)


class ManagedPayTableOutput(serializers.Serializer):
    """A ``tables.models.PayTable`` with the tables that use it."""

    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    qualified = serializers.DictField(
        source="data.qualified",
        default=dict,
        child=serializers.IntegerField(),
        help_text="Category: odds to 1 on the raise.",
    )
    not_qualified = serializers.DictField(
        source="data.not_qualified",
        default=dict,
        child=serializers.IntegerField(),
        help_text="Category: odds when the dealer does not qualify.",
    )
    tables = serializers.SerializerMethodField()

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_tables(self, paytable: PayTable) -> list[int]:
        return _table_ids(paytable.tables)


class ManagedPayTablesOutput(serializers.Serializer):
    paytables = ManagedPayTableOutput(many=True)


class PayTableInput(ManagerInput):
    """A pay table: the raise odds per hand category."""

    name = Passed(required=True)
    qualified = PassedOdds(required=True, help_text="Category: odds N to 1 on the raise, dealer qualified.")
    not_qualified = PassedOdds(help_text="Category: odds when the dealer does not qualify (none: the ante only).")


class ManagedTableOutput(serializers.Serializer):
    """A ``tables.models.Table`` with its seats taken and its live hand (``live_hand_of``)."""

    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    is_open = serializers.BooleanField()
    tier = serializers.IntegerField(source="tier_id")
    tier_name = serializers.CharField(source="tier.name")
    min_ante = Cents(source="tier.min_ante")
    max_ante = Cents(source="tier.max_ante")
    paytable = serializers.IntegerField(source="paytable_id")
    paytable_name = serializers.CharField(source="paytable.name")
    pool = serializers.IntegerField(source="pool_id")
    pool_name = serializers.CharField(source="pool.name")
    bet_seconds = serializers.IntegerField()
    decision_seconds = serializers.IntegerField()
    extension_seconds = serializers.IntegerField()
    pair_timeout_action = serializers.CharField()
    sit_out_limit = serializers.IntegerField()
    seated = serializers.SerializerMethodField()
    live_hand = serializers.SerializerMethodField()
    hand_in_progress = serializers.SerializerMethodField()

    def _hand(self, table: Table):
        hands = self.context.setdefault("live_hands", {})
        if table.pk not in hands:
            hands[table.pk] = live_hand_of(table)
        return hands[table.pk]

    def get_seated(self, table: Table) -> int:
        seated = getattr(table, "seated", None)  # the list's tables count their seats in its query
        return table.seats.count() if seated is None else seated

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_live_hand(self, table: Table) -> int | None:
        hand = self._hand(table)
        return hand.pk if hand else None

    def get_hand_in_progress(self, table: Table) -> bool:
        hand = self._hand(table)
        return bool(hand and hand.bets)


class ManagedTablesOutput(serializers.Serializer):
    tables = ManagedTableOutput(many=True)


def _bounds(field: str) -> str:
    low, high = table_config.TIMEBANK_LIMITS[field]
    return f"{low} to {high}."


class TableInput(ManagerInput):
    """A table: its name, tier, pay table, pool and time bank (SPEC A4 defaults)."""

    name = Passed(required=True)
    tier = PassedId(required=True, help_text="A limit tier's id.")
    paytable = PassedId(required=True, help_text="A pay table's id.")
    pool = PassedId(required=True, help_text="A jackpot pool's id.")
    bet_seconds = PassedInt(help_text=_bounds("bet_seconds"))
    decision_seconds = PassedInt(help_text=_bounds("decision_seconds"))
    extension_seconds = PassedInt(help_text=_bounds("extension_seconds"))
    pair_timeout_action = PassedTimeoutAction()
    sit_out_limit = PassedInt(help_text=_bounds("sit_out_limit"))


class PoolHandOnPreviousRulesOutput(serializers.Serializer):
    hand = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()


class PoolScheduleOutput(serializers.Serializer):
    percent_prizes = serializers.DictField(
        child=serializers.IntegerField(), help_text="Category: percent of the meter."
    )
    fixed_prizes = serializers.DictField(child=Money(), help_text="Category: a fixed prize.")


class PoolScheduleCentsOutput(serializers.Serializer):
    """A pool's ``schedule`` as stored (fixed prizes in cents)."""

    percent_prizes = serializers.DictField(
        default=dict, child=serializers.IntegerField(), help_text="Category: percent of the meter."
    )
    fixed_prizes = serializers.DictField(default=dict, child=Cents(), help_text="Category: a fixed prize.")


class ManagedPoolOutput(serializers.Serializer):
    """A ``jackpot.models.JackpotPool`` with its balances, tables and the hands still on its previous rules."""

    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    is_active = serializers.BooleanField()
    meter = Cents(source="meter_account.balance")
    reserve = Cents(source="reserve_account.balance")
    seed_amount = Cents()
    bet_amount = Cents()
    meter_share_bp = serializers.IntegerField(help_text="7000 = 70 %.")
    reserve_share_bp = serializers.IntegerField()
    schedule = PoolScheduleCentsOutput()
    tables = serializers.SerializerMethodField()
    rules_apply_from = serializers.SerializerMethodField()
    hands_on_previous_rules = serializers.SerializerMethodField(
        help_text="Hands in play whose jackpot bets still run on the rules before the last change."
    )

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_tables(self, pool: JackpotPool) -> list[int]:
        return _table_ids(pool.tables)

    @extend_schema_field(
        serializers.ChoiceField(
            choices=["next_hand"],
            help_text="A change of the chip, split or prizes applies at each table from its next hand; "
            "a hand holding jackpot chips settles by the rules it opened under. A new seed applies to the next reset.",
        )
    )
    def get_rules_apply_from(self, pool: JackpotPool) -> str:
        return "next_hand"

    @extend_schema_field(PoolHandOnPreviousRulesOutput(many=True))
    def get_hands_on_previous_rules(self, pool: JackpotPool) -> list[dict]:
        return table_selectors.pool_hands_on_previous_rules(pool=pool)


class ManagedPoolsOutput(serializers.Serializer):
    pools = ManagedPoolOutput(many=True)


@extend_schema_field(PoolScheduleOutput)
class ScheduleIn(Passed):
    """The API's schedule (fixed prizes as decimal strings) in the pool's cents; any other
    shape passes on for ``jackpot.services`` to refuse."""

    def to_internal_value(self, schedule):
        if isinstance(schedule, dict) and isinstance(schedule.get("fixed_prizes"), dict):
            fixed = {
                key: (to_cents(value, field=f"schedule.fixed_prizes.{key}") if value is not None else None)
                for key, value in schedule["fixed_prizes"].items()
            }
            return {**schedule, "fixed_prizes": fixed}
        return schedule


class PoolInput(ManagerInput):
    """A jackpot pool: the seed, the chip, its split and the payout schedule."""

    name = Passed(required=True)
    seed_amount = AmountIn(required=True)
    bet_amount = AmountIn(required=True)
    meter_share_bp = PassedInt(required=True, help_text="7000 = 70 %.")
    reserve_share_bp = PassedInt(required=True)
    schedule = ScheduleIn(required=True)


# The fields each service takes are its own (one home); the bodies name exactly those.
assert set(TableInput().fields) == set(table_config.TABLE_FIELDS)
assert set(PoolInput().fields) == set(jackpot_services.POOL_FIELDS)


class TopUpInput(ManagerInput):
    """A top-up of a pool's meter from the house bankroll."""

    amount = AmountIn(required=True)


class TopUpOutput(serializers.Serializer):
    transaction = serializers.IntegerField()
    replayed = serializers.BooleanField()
    pool = ManagedPoolOutput()


class AuditEntryOutput(serializers.Serializer):
    """A ``casino.models.AuditEntry``."""

    id = serializers.IntegerField(source="pk")
    at = serializers.DateTimeField()
    actor = serializers.CharField(source="actor.username", allow_null=True)
    action = serializers.CharField()
    object_type = serializers.CharField()
    object_id = serializers.CharField()
    before = serializers.JSONField(help_text="Any JSON value; null for a creation.")
    after = serializers.JSONField(help_text="Any JSON value.")


def tier_output(tier: LimitTier) -> dict:
    return TierOutput(tier).data


def paytable_output(paytable: PayTable) -> dict:
    return ManagedPayTableOutput(paytable).data


def table_output(table: Table) -> dict:
    return ManagedTableOutput(table).data


def pool_output(pool: JackpotPool) -> dict:
    return ManagedPoolOutput(pool).data


READ_ERRORS = error_responses(401, 403)
WRITE_ERRORS = error_responses(400, 401, 403, 404, 409)


def _get(query: QuerySet, pk: int, code: str):
    obj = query.filter(pk=pk).first()
    if obj is None:
        raise NotFound(code=code)  # "No such pay table.": the code's message
    return obj


def _pools():
    return JackpotPool.objects.select_related("meter_account", "reserve_account").order_by("pk")


def _tables():
    return Table.objects.select_related("tier", "paytable", "pool").order_by("pk")


# --- limit tiers ------------------------------------------------------------------------


class TierListApi(_ManagerApi):
    @extend_schema(
        responses={200: TiersOutput, **READ_ERRORS}, summary="Limit tiers", operation_id="manager_tiers_list"
    )
    def get(self, request):
        return Response(TiersOutput({"tiers": LimitTier.objects.order_by("min_ante", "pk")}).data)

    @extend_schema(request=TierInput, responses={201: TierOutput, **WRITE_ERRORS}, summary="New limit tier")
    @idempotent
    def post(self, request):
        data = parsed(TierInput, request)
        tier = tier_create(
            actor=request.user, name=data.get("name"), min_ante=data.get("min_ante"), max_ante=data.get("max_ante")
        )
        return Response(tier_output(tier), status=status.HTTP_201_CREATED)


class TierDetailApi(_ManagerApi):
    @extend_schema(responses={200: TierOutput, **READ_ERRORS}, summary="A limit tier")
    def get(self, request, tier_id: int):
        return Response(tier_output(_get(LimitTier.objects.all(), tier_id, "tier_not_found")))

    @extend_schema(request=TierInput, responses={200: TierOutput, **WRITE_ERRORS}, summary="Change a limit tier")
    @idempotent
    def patch(self, request, tier_id: int):
        changes = parsed(TierInput, request, partial=True)
        tier = tier_update(actor=request.user, tier_id=tier_id, changes=changes)
        return Response(tier_output(tier))


# --- pay tables -------------------------------------------------------------------------


class PayTableListApi(_ManagerApi):
    @extend_schema(
        responses={200: ManagedPayTablesOutput, **READ_ERRORS},
        summary="Pay tables",
        operation_id="manager_paytables_list",
    )
    def get(self, request):
        return Response(ManagedPayTablesOutput({"paytables": PayTable.objects.order_by("pk")}).data)

    @extend_schema(
        request=PayTableInput, responses={201: ManagedPayTableOutput, **WRITE_ERRORS}, summary="New pay table"
    )
    @idempotent
    def post(self, request):
        data = parsed(PayTableInput, request)
        paytable = table_config.paytable_create(
            actor=request.user,
            name=data.get("name"),
            qualified=data.get("qualified"),
            not_qualified=data.get("not_qualified", {}),
        )
        return Response(paytable_output(paytable), status=status.HTTP_201_CREATED)


class PayTableDetailApi(_ManagerApi):
    @extend_schema(responses={200: ManagedPayTableOutput, **READ_ERRORS}, summary="A pay table")
    def get(self, request, paytable_id: int):
        return Response(paytable_output(_get(PayTable.objects.all(), paytable_id, "paytable_not_found")))

    @extend_schema(
        request=PayTableInput, responses={200: ManagedPayTableOutput, **WRITE_ERRORS}, summary="Change a pay table"
    )
    @idempotent
    def patch(self, request, paytable_id: int):
        paytable = table_config.paytable_update(
            actor=request.user, paytable_id=paytable_id, changes=parsed(PayTableInput, request, partial=True)
        )
        return Response(paytable_output(paytable))


# --- tables -----------------------------------------------------------------------------


class TableListApi(_ManagerApi):
    @extend_schema(
        responses={200: ManagedTablesOutput, **READ_ERRORS},
        summary="Every table, open or closed",
        operation_id="manager_tables_list",
    )
    def get(self, request):
        tables = list(_tables().annotate(seated=Count("seats")))
        return Response(ManagedTablesOutput({"tables": tables}, context={"live_hands": live_hands_of(tables)}).data)

    @extend_schema(request=TableInput, responses={201: ManagedTableOutput, **WRITE_ERRORS}, summary="New table")
    @idempotent
    def post(self, request):
        data = parsed(TableInput, request)
        timebank = {k: v for k, v in data.items() if k not in ("name", "tier", "paytable", "pool")}
        table = table_config.table_add(
            actor=request.user,
            name=data.get("name"),
            tier_id=data.get("tier"),
            paytable_id=data.get("paytable"),
            pool_id=data.get("pool"),
            timebank=timebank,
        )
        return Response(table_output(_tables().get(pk=table.pk)), status=status.HTTP_201_CREATED)


class TableDetailApi(_ManagerApi):
    @extend_schema(responses={200: ManagedTableOutput, **READ_ERRORS}, summary="A table's configuration")
    def get(self, request, table_id: int):
        return Response(table_output(_get(_tables(), table_id, "table_not_found")))

    @extend_schema(request=TableInput, responses={200: ManagedTableOutput, **WRITE_ERRORS}, summary="Change a table")
    @idempotent
    def patch(self, request, table_id: int):
        table = table_config.table_update(
            actor=request.user, table_id=table_id, changes=parsed(TableInput, request, partial=True)
        )
        return Response(table_output(_tables().get(pk=table.pk)))


class TableOpenApi(_ManagerApi):
    @extend_schema(request=None, responses={200: ManagedTableOutput, **WRITE_ERRORS}, summary="Open a table")
    @idempotent
    def post(self, request, table_id: int):
        no_fields(request.data)
        table = table_config.table_open(actor=request.user, table_id=table_id)
        return Response(table_output(_tables().get(pk=table.pk)))


class TableCloseApi(_ManagerApi):
    @extend_schema(
        request=None,
        responses={200: ManagedTableOutput, **WRITE_ERRORS},
        summary="Close a table: no new seat or hand; a hand in play ends normally",
    )
    @idempotent
    def post(self, request, table_id: int):
        no_fields(request.data)
        table = table_config.table_close(actor=request.user, table_id=table_id)
        return Response(table_output(_tables().get(pk=table.pk)))


# --- jackpot pools ----------------------------------------------------------------------


class PoolListApi(_ManagerApi):
    @extend_schema(
        responses={200: ManagedPoolsOutput, **READ_ERRORS},
        summary="Jackpot pools with meter and reserve",
        operation_id="manager_pools_list",
    )
    def get(self, request):
        return Response(ManagedPoolsOutput({"pools": _pools()}).data)

    @extend_schema(
        request=PoolInput, responses={201: ManagedPoolOutput, **WRITE_ERRORS}, summary="New pool, seeded by the house"
    )
    @idempotent
    def post(self, request):
        data = parsed(PoolInput, request)
        pool = jackpot_services.pool_add(
            actor=request.user,
            name=data.get("name"),
            seed_amount=data.get("seed_amount"),
            bet_amount=data.get("bet_amount"),
            meter_share_bp=data.get("meter_share_bp"),
            reserve_share_bp=data.get("reserve_share_bp"),
            schedule=data.get("schedule"),
        )
        return Response(pool_output(_pools().get(pk=pool.pk)), status=status.HTTP_201_CREATED)


class PoolDetailApi(_ManagerApi):
    @extend_schema(responses={200: ManagedPoolOutput, **READ_ERRORS}, summary="A pool")
    def get(self, request, pool_id: int):
        return Response(pool_output(_get(_pools(), pool_id, "pool_not_found")))

    @extend_schema(
        request=PoolInput,
        responses={200: ManagedPoolOutput, **WRITE_ERRORS},
        summary="Change a pool (rules apply from each table's next hand)",
    )
    @idempotent
    def patch(self, request, pool_id: int):
        pool = jackpot_services.pool_update(
            actor=request.user, pool_id=pool_id, changes=parsed(PoolInput, request, partial=True)
        )
        return Response(pool_output(_pools().get(pk=pool.pk)))


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
        data = parsed(TopUpInput, request)
        txn = jackpot_services.pool_manual_top_up(
            actor=request.user, pool_id=pool_id, amount=data.get("amount"), idempotency_key=key
        )
        pool = _pools().get(pk=pool_id)
        body = TopUpOutput({"transaction": txn.pk, "replayed": txn.replayed, "pool": pool}).data
        return Response(body, status=status.HTTP_201_CREATED)


# --- audit log --------------------------------------------------------------------------


class AuditLogApi(_ManagerApi):
    pagination_class = CursorPagination  # for the schema: the page's shape and its parameters

    @extend_schema(
        responses={200: AuditEntryOutput(many=True), **error_responses(400, 401, 403)},
        summary="Configuration changes: who, when, before, after; newest first, a page at a time by cursor",
    )
    def get(self, request):
        paginator = CursorPagination()
        form = AuditFilterForm(request.query_params)
        if not form.is_valid():
            field = next(iter(form.errors))
            raise ValidationError(
                Translated(f"'{field}': {' '.join(form.errors[field])}"),  # the form's words, in the reader's language
                code=f"{field}_invalid",
                extra={"field": field},
            )
        page = paginator.page_of(request, lambda **cursor: audit_page(**form.filters(), **cursor))
        return paginator.get_paginated_response(AuditEntryOutput(page, many=True).data)
