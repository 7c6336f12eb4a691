"""REST endpoints for the player's money: wallet and statement (the cashier's desk is in backoffice)."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.access import policy
from casino.access.sessions import session_started_at
from casino.cents import format_cents
from casino.http.api import RawField, error_responses
from casino.http.errors import ValidationError
from casino.http.idempotency import idempotent
from casino.http.pagination import CursorPagination
from casino.http.validation import StrictInput, StrictIntegerField, input_of
from casino.money import to_cents
from wallets import responsible, selectors
from wallets.holdings import player_holdings
from wallets.models import GamingLimit, PlayerProtection
from wallets.statement import statement_words


def Money(**kwargs):  # noqa: N802 - a field factory, read like a field class
    """An amount in the answers: a decimal string, never a JSON number (no float)."""
    kwargs.setdefault("help_text", 'A decimal string in the deployment\'s currency, e.g. "2.50".')
    return serializers.CharField(**kwargs)


def Nullable(field_class, **kwargs):  # noqa: N802
    return field_class(allow_null=True, **kwargs)


class Cents(serializers.CharField):
    """An amount the code holds in cents (an ``int``), answered as a decimal string:
    ``1250`` -> ``"12.50"`` (``casino.cents.format_cents``); the schema's type is a string."""

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", 'A decimal string in the deployment\'s currency, e.g. "2.50".')
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value) -> str:
        return format_cents(value)


# --- what the player's money API answers, rendered from the selectors' objects -------------


class WalletOutput(serializers.Serializer):
    """A ``wallets.selectors.WalletBalances``."""

    currency = serializers.SerializerMethodField()
    available = Cents()
    in_play = Cents(help_text="Antes and held raises of hands in play.")
    total = Cents()

    @extend_schema_field(OpenApiTypes.STR)
    def get_currency(self, balances) -> str:
        return settings.CASINO_CURRENCY


class HoldingOutput(serializers.Serializer):
    """A ``wallets.holdings.Holding``."""

    label = serializers.CharField(help_text='Where, in your language: "SOKO 2-4, seat 3".')
    amount = Cents()
    url = serializers.CharField(help_text="The page of that place (the poker table).")


class WalletViewOutput(WalletOutput):
    held = Cents(
        help_text="Your chips at the poker tables, as each table's last hand ended: not in total, and not "
        "withdrawable until you leave the table (the wallet page counts them in its total)."
    )
    holdings = HoldingOutput(many=True, read_only=True, help_text="Those chips, a row per table.")
    desk_held = Cents(
        help_text="Taken out of available by a cashier's withdrawal (or reversal of a deposit) that waits for a "
        "second staff member's approval: paid out when approved, back in available when rejected; not in total."
    )
    server_time = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.DATETIME)
    def get_server_time(self, balances):
        return serializers.DateTimeField().to_representation(timezone.now())


class StatementRowOutput(serializers.Serializer):
    """A wallet ``Leg`` and its transaction; ``what`` and ``details`` are the line as the
    statement page says it, in the requester's language (``context["words"]``)."""

    transaction = serializers.IntegerField(source="transaction_id")
    at = serializers.DateTimeField(source="transaction.created_at")
    kind = serializers.CharField(source="transaction.kind")
    memo = serializers.CharField(
        source="transaction.memo", allow_blank=True, help_text="The ledger's own record, in English."
    )
    what = serializers.SerializerMethodField(help_text="What the line is, in the requester's language.")
    details = serializers.SerializerMethodField(help_text="Its details, in the requester's language.")
    amount = Cents(source="signed_amount", help_text="Signed: negative leaves the wallet.")
    table = Nullable(serializers.IntegerField, source="transaction.table_ref")
    hand = Nullable(serializers.IntegerField, source="transaction.hand_ref")

    def get_what(self, leg) -> str:
        return self.context["words"][leg.transaction_id][0]

    def get_details(self, leg) -> str:
        return self.context["words"][leg.transaction_id][1]


class LimitStatusOutput(serializers.Serializer):
    """A ``wallets.responsible.LimitStatus``."""

    kind = serializers.ChoiceField(choices=GamingLimit.Kind.choices)
    period = serializers.ChoiceField(choices=GamingLimit.Period.choices)
    amount = Nullable(Cents)
    used = Cents()
    remaining = Nullable(Cents)
    pending_amount = Nullable(Cents)
    pending_from = Nullable(serializers.DateTimeField)


class SessionOutput(serializers.Serializer):
    started_at = Nullable(serializers.DateTimeField)
    net = Cents()


class ResponsibleGamingOutput(serializers.Serializer):
    limits = LimitStatusOutput(many=True)
    excluded_until = Nullable(serializers.DateTimeField)
    reality_check_minutes = Nullable(serializers.IntegerField)
    session = SessionOutput()


class WalletApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(
        responses={200: WalletViewOutput, **error_responses(401, 403)},
        summary="Your balance: available and in play, and your chips at the poker tables",
    )
    def get(self, request):
        balances = selectors.wallet_balances(user=request.user)
        holdings = player_holdings(user=request.user)
        view = {
            "available": balances.available,
            "in_play": balances.in_play,
            "total": balances.total,
            "held": sum(holding.amount for holding in holdings),
            "holdings": holdings,
            "desk_held": selectors.desk_held(user=request.user),
        }
        return Response(WalletViewOutput(view).data)


class WalletStatementApi(APIView):
    permission_classes = [policy.Allowed("play")]
    pagination_class = CursorPagination  # for the schema: the page's shape and its parameters

    @extend_schema(
        responses={200: StatementRowOutput(many=True), **error_responses(400, 401, 403)},
        summary="Every movement of your available money, newest first, a page at a time by cursor",
    )
    def get(self, request):
        paginator = CursorPagination()
        legs = paginator.page_of(request, lambda **cursor: selectors.wallet_statement_page(user=request.user, **cursor))
        words = statement_words([leg.transaction for leg in legs], user=request.user)
        return paginator.get_paginated_response(StatementRowOutput(legs, many=True, context={"words": words}).data)


def responsible_gaming_body(request) -> dict:
    player = request.user
    started = session_started_at(request)
    protection = PlayerProtection.objects.filter(player=player).first()
    return ResponsibleGamingOutput(
        {
            "limits": responsible.limits_status(player=player),
            "excluded_until": responsible.excluded_until(player=player),
            "reality_check_minutes": protection.reality_check_minutes if protection else None,
            "session": {"started_at": started, "net": responsible.play_result_since(player, started)},
        }
    ).data


class ResponsibleGamingApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(
        responses={200: ResponsibleGamingOutput, **error_responses(401, 403)},
        summary="Your limits, exclusion, reality check and session",
    )
    def get(self, request):
        return Response(responsible_gaming_body(request))


class LimitInput(StrictInput):
    kind = serializers.ChoiceField(choices=GamingLimit.Kind.choices)
    period = serializers.ChoiceField(choices=GamingLimit.Period.choices)
    amount = RawField(help_text="Decimal string, or null to remove the limit (after 24 hours).")


class LimitApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(
        request=LimitInput,
        responses={200: ResponsibleGamingOutput, **error_responses(400, 401, 403, 409)},
        summary="Set a deposit or loss limit",
    )
    @idempotent
    def post(self, request):
        data = input_of(LimitInput, request.data)
        amount = None if data["amount"] is None else to_cents(data["amount"], field="amount", allow_zero=True)
        responsible.limit_set(player=request.user, kind=data["kind"], period=data["period"], amount=amount)
        return Response(responsible_gaming_body(request))


class ExclusionInput(StrictInput):
    months = StrictIntegerField(min_value=0, max_value=1200)
    confirm = serializers.BooleanField()


class SelfExclusionApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(
        request=ExclusionInput,
        responses={200: ResponsibleGamingOutput, **error_responses(400, 401, 403, 409)},
        summary="Exclude yourself (6 months or more)",
    )
    @idempotent
    def post(self, request):
        data = input_of(ExclusionInput, request.data)
        if not data["confirm"]:
            raise ValidationError("Confirm the self-exclusion; it cannot be undone.", code="confirmation_required")
        responsible.self_exclude(player=request.user, months=data["months"])
        return Response(responsible_gaming_body(request))


@extend_schema_field({"type": "integer", "enum": [*responsible.REALITY_CHECK_MINUTES, None], "nullable": True})
class RealityCheckMinutesField(StrictIntegerField):
    """The interval in minutes, one of ``responsible.REALITY_CHECK_MINUTES`` (the service
    refuses any other, ``reality_check_invalid``), so the published schema lists them."""


class RealityCheckInput(StrictInput):
    minutes = RealityCheckMinutesField(allow_null=True, help_text="Minutes between reminders; null: none.")


class RealityCheckApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(
        request=RealityCheckInput,
        responses={200: ResponsibleGamingOutput, **error_responses(400, 401, 403, 409)},
        summary="Reality check interval, or null",
    )
    @idempotent
    def post(self, request):
        data = input_of(RealityCheckInput, request.data)
        responsible.reality_check_set(player=request.user, minutes=data["minutes"])
        return Response(responsible_gaming_body(request))
