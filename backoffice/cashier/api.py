"""REST endpoints of the cashier's desk: find a player, deposit, withdraw, approve, reverse, report."""

from __future__ import annotations

from datetime import date

from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.serializers import Cents
from casino.access import policy
from casino.access.roles import PLAYER
from casino.cents import format_cents
from casino.http.api import RawField, error_responses
from casino.http.errors import NotFound, ValidationError
from casino.http.idempotency import idempotent
from casino.http.validation import StrictInput, StrictIntegerField, no_fields, parse_text
from casino.money import to_cents
from wallets import selectors, services
from wallets.models import CashRequest


def _key(request) -> str:
    key = request.headers.get("Idempotency-Key")
    if not key:
        raise ValidationError("Cash movements need an Idempotency-Key header.", code="idempotency_key_required")
    return key


def _player(player_id) -> object:
    player = get_user_model().objects.filter(pk=player_id, is_active=True, groups__name=PLAYER).first()
    if player is None:
        raise NotFound("No such player.", code="player_not_found")
    return player


class CashRequestOutput(serializers.Serializer):
    """A ``wallets.models.CashRequest``, with the player's available balance now."""

    request = serializers.IntegerField(source="pk")
    kind = serializers.ChoiceField(choices=CashRequest.Kind.choices)
    status = serializers.ChoiceField(choices=CashRequest.Status.choices)
    player = serializers.IntegerField(source="player_id")
    player_name = serializers.CharField(source="player.username")
    amount = Cents()
    memo = serializers.CharField(allow_blank=True)
    requested_by = serializers.CharField(source="requested_by.username")
    requested_at = serializers.DateTimeField()
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True)
    decided_at = serializers.DateTimeField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    transaction = serializers.IntegerField(source="transaction_id", allow_null=True)
    reverses = serializers.IntegerField(source="reverses_id", allow_null=True)
    hold = serializers.IntegerField(
        source="hold_id",
        allow_null=True,
        help_text="The transaction that took the amount out of the wallet while the request waits (a withdrawal "
        "or the reversal of a deposit): paid out when approved, back in the wallet when rejected.",
    )
    available = serializers.SerializerMethodField(help_text="The player's available balance now, beside the request.")

    @extend_schema_field(Cents())
    def get_available(self, cash_request: CashRequest) -> str:
        return format_cents(selectors.wallet_balances(user=cash_request.player).available)


class CashRequestsOutput(serializers.Serializer):
    requests = CashRequestOutput(many=True)


class ReversalLegOutput(serializers.Serializer):
    """A ``wallets.models.Leg`` of the executed movement."""

    account = serializers.CharField(source="account.code")
    amount = Cents(source="signed_amount")


class ReversalOutput(CashRequestOutput):
    """An executed request with the legs of its transaction."""

    legs = serializers.SerializerMethodField()

    @extend_schema_field(ReversalLegOutput(many=True))
    def get_legs(self, cash_request: CashRequest) -> list[dict]:
        return ReversalLegOutput(cash_request.transaction.legs.select_related("account").order_by("id"), many=True).data


class DeskPlayerOutput(serializers.Serializer):
    """A player with their balances (``wallets.selectors.wallet_balances``)."""

    id = serializers.IntegerField(source="pk")
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    available = serializers.SerializerMethodField()
    in_play = serializers.SerializerMethodField()

    def _balances(self, player):
        cache = self.context.setdefault("balances", {})
        if player.pk not in cache:
            cache[player.pk] = selectors.wallet_balances(user=player)
        return cache[player.pk]

    @extend_schema_field(Cents())
    def get_available(self, player) -> str:
        return format_cents(self._balances(player).available)

    @extend_schema_field(Cents())
    def get_in_play(self, player) -> str:
        return format_cents(self._balances(player).in_play)


class DeskPlayersOutput(serializers.Serializer):
    players = DeskPlayerOutput(many=True)


# Cash movements need the key: a retry must never move money twice.
KEY_REQUIRED = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="Required: a retry with the same key gets the first answer and moves nothing.",
)
DESK_ERRORS = error_responses(400, 401, 403, 404, 409)


class CashInput(StrictInput):
    player = StrictIntegerField(min_value=1)
    amount = RawField(help_text='Decimal string, e.g. "100.00".')
    memo = serializers.CharField(required=False, max_length=200, allow_blank=True, default="")


class _CashMovementApi(APIView):
    permission_classes = [policy.Allowed("cash.desk")]
    kind = ""

    @extend_schema(
        request=CashInput,
        parameters=[KEY_REQUIRED],
        responses={
            201: OpenApiResponse(CashRequestOutput, description="Executed at once."),
            202: OpenApiResponse(
                CashRequestOutput, description="Above the threshold: waits for a second staff member."
            ),
            **DESK_ERRORS,
        },
        summary="Deposit or withdraw for a player (by the URL)",
    )
    @idempotent
    def post(self, request):
        key = _key(request)
        serializer = CashInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        cash_request = services.cash_request_create(
            cashier=request.user,
            player=_player(data["player"]),
            kind=self.kind,
            amount=to_cents(data["amount"]),
            idempotency_key=key,
            memo=data["memo"],
        )
        executed = cash_request.status == CashRequest.Status.EXECUTED
        return Response(
            CashRequestOutput(cash_request).data,
            status=status.HTTP_201_CREATED if executed else status.HTTP_202_ACCEPTED,
        )


class DepositApi(_CashMovementApi):
    permission_classes = [policy.Allowed("cash.deposit")]
    kind = CashRequest.Kind.DEPOSIT


class WithdrawalApi(_CashMovementApi):
    permission_classes = [policy.Allowed("cash.withdraw")]
    kind = CashRequest.Kind.WITHDRAWAL


class CashRequestListApi(APIView):
    permission_classes = [policy.Allowed("cash.approve")]

    @extend_schema(
        parameters=[OpenApiParameter("status", str, enum=CashRequest.Status.values)],
        responses={200: CashRequestsOutput, **error_responses(400, 401, 403)},
        summary="Cash requests; ?status=pending by default",
    )
    def get(self, request):
        wanted = request.query_params.get("status", CashRequest.Status.PENDING)
        if wanted not in CashRequest.Status.values:
            raise ValidationError("Unknown status.", code="status_invalid")
        rows = CashRequest.objects.filter(status=wanted).select_related("player", "requested_by", "decided_by")[:200]
        return Response(CashRequestsOutput({"requests": rows}).data)


class RejectInput(StrictInput):
    reason = serializers.CharField(max_length=200)


class CashRequestApproveApi(APIView):
    permission_classes = [policy.Allowed("cash.approve")]

    @extend_schema(
        request=None, responses={200: CashRequestOutput, **DESK_ERRORS}, summary="Approve (a second staff member)"
    )
    @idempotent
    def post(self, request, request_id: int):
        no_fields(request.data)
        return Response(
            CashRequestOutput(services.cash_request_approve(approver=request.user, request_id=request_id)).data
        )


class CashRequestRejectApi(APIView):
    permission_classes = [policy.Allowed("cash.approve")]

    @extend_schema(
        request=RejectInput, responses={200: CashRequestOutput, **DESK_ERRORS}, summary="Reject (a second staff member)"
    )
    @idempotent
    def post(self, request, request_id: int):
        serializer = RejectInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        cash_request = services.cash_request_reject(
            approver=request.user, request_id=request_id, reason=serializer.validated_data["reason"]
        )
        return Response(CashRequestOutput(cash_request).data)


class ReversalInput(StrictInput):
    transaction = StrictIntegerField(min_value=1)
    reason = serializers.CharField(max_length=200)


class ReversalApi(APIView):
    permission_classes = [policy.Allowed("cash.reverse")]

    @extend_schema(
        request=ReversalInput,
        parameters=[KEY_REQUIRED],
        responses={
            201: OpenApiResponse(ReversalOutput, description="Reversed at once, with the legs."),
            202: OpenApiResponse(CashRequestOutput, description="Above the threshold: waits for approval."),
            **DESK_ERRORS,
        },
        summary="Undo a mistaken deposit or withdrawal (above the threshold: 202, waits for approval)",
    )
    @idempotent
    def post(self, request):
        key = _key(request)
        serializer = ReversalInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        cash_request = services.cashier_reverse(
            cashier=request.user,
            transaction_id=serializer.validated_data["transaction"],
            reason=serializer.validated_data["reason"],
            idempotency_key=key,
        )
        if cash_request.status != CashRequest.Status.EXECUTED:  # above the threshold: a second staff member decides
            return Response(CashRequestOutput(cash_request).data, status=status.HTTP_202_ACCEPTED)
        return Response(ReversalOutput(cash_request).data, status=status.HTTP_201_CREATED)


class PlayerSearchApi(APIView):
    permission_classes = [policy.Allowed("cash.desk")]

    @extend_schema(
        parameters=[OpenApiParameter("q", str)],
        responses={200: DeskPlayersOutput, **error_responses(400, 401, 403)},
        summary="Find players by name, e-mail or id (?q=)",
    )
    def get(self, request):
        players = selectors.player_search(query=parse_text(request.query_params.get("q"), field="q"))
        return Response(DeskPlayersOutput({"players": players}).data)


class DrawerOutput(serializers.Serializer):
    """A ``wallets.selectors.CashReport`` row."""

    cashier = serializers.CharField()
    opening = Cents()
    deposits = Cents()
    withdrawals = Cents()
    reversals = Cents()
    closing = Cents()


class CashReportOutput(serializers.Serializer):
    date = serializers.DateField()
    drawers = DrawerOutput(many=True)


class CashReportQuery(serializers.Serializer):
    date = serializers.DateField(
        required=False, input_formats=["iso-8601"], help_text="YYYY-MM-DD (UTC); today when absent."
    )


class CashReportApi(APIView):
    permission_classes = [policy.Allowed("cash.report")]

    @extend_schema(
        parameters=[OpenApiParameter("date", OpenApiTypes.DATE)],
        responses={200: CashReportOutput, **error_responses(400, 401, 403)},
        summary="Daily cash report (?date=YYYY-MM-DD, UTC)",
    )
    def get(self, request):
        raw = request.query_params.get("date")
        query = CashReportQuery(data={"date": raw} if raw else {})
        if not query.is_valid():
            raise ValidationError("The date is YYYY-MM-DD.", code="date_invalid")
        day = query.validated_data.get("date") or date.today()
        return Response(CashReportOutput({"date": day, "drawers": selectors.cash_report(day=day)}).data)
