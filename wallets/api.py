"""REST endpoints for money: the player's wallet and statement; the cashier's desk."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import RawField
from casino.errors import NotFound, ValidationError
from casino.idempotency import idempotent
from casino.money import format_cents, to_cents
from casino.roles import PLAYER, IsCashier, IsPlayer
from wallets import selectors, services


class WalletApi(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Your balance: available and in play")
    def get(self, request):
        balances = selectors.wallet_balances(user=request.user)
        return Response(
            {
                "currency": settings.CASINO_CURRENCY,
                "available": format_cents(balances.available),
                "in_play": format_cents(balances.in_play),
                "total": format_cents(balances.total),
            }
        )


class WalletStatementApi(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Every movement of your available money, newest first")
    def get(self, request):
        paginator = LimitOffsetPagination()
        page = paginator.paginate_queryset(selectors.wallet_statement(user=request.user), request, view=self)
        rows = [
            {
                "transaction": leg.transaction_id,
                "at": leg.transaction.created_at,
                "kind": leg.transaction.kind,
                "memo": leg.transaction.memo,
                "amount": format_cents(leg.signed_amount),
                "table": leg.transaction.table_ref,
                "hand": leg.transaction.hand_ref,
            }
            for leg in page
        ]
        return paginator.get_paginated_response(rows)


class CashInput(serializers.Serializer):
    player = serializers.IntegerField(min_value=1)
    amount = RawField(help_text='Decimal string, e.g. "100.00".')
    memo = serializers.CharField(required=False, max_length=200, allow_blank=True, default="")


def _transaction_body(txn) -> dict:
    legs = list(txn.legs.select_related("account"))
    return {
        "transaction": txn.pk,
        "kind": txn.kind,
        "at": txn.created_at,
        "replayed": txn.replayed,
        "legs": [{"account": leg.account.code, "amount": format_cents(leg.signed_amount)} for leg in legs],
    }


class _CashierApi(APIView):
    permission_classes = [IsCashier]
    service = None

    @extend_schema(request=CashInput, responses=OpenApiTypes.OBJECT)
    @idempotent
    def post(self, request):
        key = request.headers.get("Idempotency-Key")
        if not key:
            raise ValidationError("Cashier movements need an Idempotency-Key header.", code="idempotency_key_required")
        serializer = CashInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        player = get_user_model().objects.filter(pk=data["player"], is_active=True, groups__name=PLAYER).first()
        if player is None:
            raise NotFound("No such player.", code="player_not_found")
        txn = type(self).service(
            cashier=request.user, player=player, amount=to_cents(data["amount"]), idempotency_key=key, memo=data["memo"]
        )
        balances = selectors.wallet_balances(user=player)
        body = _transaction_body(txn) | {"player": player.pk, "available": format_cents(balances.available)}
        return Response(body, status=status.HTTP_201_CREATED)


class CashierDepositApi(_CashierApi):
    service = staticmethod(services.cashier_deposit)


class CashierWithdrawalApi(_CashierApi):
    service = staticmethod(services.cashier_withdraw)
