"""REST endpoints for players: lobby, seats, bets, decisions, hands. Thin: parse, call, render."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.access import policy
from casino.game.rules import MAX_SEATS
from casino.http.api import RawField, error_responses
from casino.http.errors import NotFound
from casino.http.idempotency import idempotent
from casino.http.pagination import CursorPagination
from casino.http.validation import StrictInput, StrictIntegerField, input_of, no_fields
from casino.money import to_cents
from tables import selectors
from tables.models import Hand, Seat
from tables.presentation import hand_name_in_language, hand_view_in_language
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_leave, table_sit
from wallets.api import Cents, Money, Nullable, WalletOutput
from wallets.selectors import wallet_balances


class SitInput(StrictInput):
    # Bounds are the service's (seat_invalid, as over the websocket).
    seat = StrictIntegerField(required=False, help_text="1 to 4; the lowest free seat when left out.")
    client_seed = serializers.CharField(required=False, max_length=64, allow_blank=False)


class BetInput(StrictInput):
    ante = RawField(help_text='Decimal string, e.g. "2.50".')
    jackpot = serializers.BooleanField(default=False, help_text="Also place the jackpot chip.")


# --- what the player API answers (the OpenAPI schema; tests/tables/test_api_schema.py
# checks live responses of played hands against it, strictly) ------------------------------


class TableSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = Nullable(serializers.CharField)
    is_you = serializers.BooleanField()


class HandSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    is_you = serializers.BooleanField()
    ante = Money()
    jackpot_bet = Money()
    locals()["raise"] = Money(help_text="2x the ante once raised, else 0.00.")
    decision = Nullable(serializers.ChoiceField, choices=["fold", "raise"])
    decided_by_timeout = serializers.BooleanField()
    decision_deadline = Nullable(serializers.DateTimeField, help_text="Your own seat's, while you decide.")
    cards = serializers.ListField(child=Nullable(serializers.CharField), help_text='"Ah", "Td", …; null: face down.')
    category = Nullable(serializers.CharField)
    category_label = Nullable(serializers.CharField)
    hand_name = Nullable(
        serializers.CharField, help_text='As players say it: "pair of tens", "king high"; null until shown.'
    )
    winning_cards = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="The cards that make the hand; null until shown."
    )
    outcome = Nullable(serializers.CharField)
    paytable_line = Nullable(serializers.CharField)
    ante_return = Nullable(Money)
    raise_return = Nullable(Money)
    jackpot_win = Nullable(Money)
    net = Nullable(Money)
    decision_label = Nullable(serializers.CharField, help_text='The decision in words: "Raised", "Folded".')
    outcome_label = Nullable(serializers.CharField, help_text='The outcome in words: "Won", "Dealer did not qualify".')
    explanation = serializers.ListField(
        child=serializers.CharField(),
        help_text="Once the hand is over: why the seat won or lost, line by line (empty before).",
    )


class DealerOutput(serializers.Serializer):
    cards = serializers.ListField(
        child=Nullable(serializers.CharField), help_text="Face down (null) until the hand is over, but the up card."
    )
    up_card = Nullable(serializers.CharField)
    category = Nullable(serializers.CharField)
    qualified = Nullable(serializers.BooleanField)
    hand_name = Nullable(serializers.CharField, help_text="The dealer's hand as players say it, once shown.")
    winning_cards = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="The cards that make the dealer's hand, once shown."
    )


class PaytableOutput(serializers.Serializer):
    name = serializers.CharField()
    qualified = serializers.DictField(child=serializers.IntegerField(), help_text="Category: odds to 1 on the raise.")
    not_qualified = serializers.DictField(
        child=serializers.IntegerField(), help_text="Category: odds paid when the dealer does not qualify."
    )


class TurnOutput(serializers.Serializer):
    phase = serializers.ChoiceField(choices=Hand.State.choices)
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="The seats that must still act.")
    deadline = Nullable(serializers.DateTimeField, help_text="Until when they may.")


class NextHandOutput(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    state = serializers.ChoiceField(choices=Hand.State.choices)


class HandOutput(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    nonce = serializers.IntegerField()
    state = serializers.ChoiceField(choices=Hand.State.choices)
    version = serializers.IntegerField()
    commitment = serializers.CharField(help_text="SHA-256 of the server seed, published before the deal.")
    server_seed = Nullable(serializers.CharField, help_text="Revealed once the hand is over.")
    client_seed = Nullable(serializers.CharField)
    paytable = PaytableOutput()
    min_ante = Money()
    max_ante = Money()
    jackpot_bet_amount = Money()
    opened_at = serializers.DateTimeField()
    betting_deadline = Nullable(serializers.DateTimeField)
    dealt_at = Nullable(serializers.DateTimeField)
    decision_deadline = Nullable(serializers.DateTimeField)
    settled_at = Nullable(serializers.DateTimeField)
    dealer = DealerOutput()
    seats = HandSeatOutput(many=True)
    turn = TurnOutput()
    your_seat = Nullable(serializers.IntegerField)
    allowed_actions = serializers.ListField(
        child=serializers.ChoiceField(choices=["bet", "fold", "raise"]), help_text="What you may do now."
    )
    next_hand = Nullable(NextHandOutput, help_text="Once this hand is over: the table's next hand.")
    server_time = serializers.DateTimeField()


class HandWithWalletOutput(HandOutput):
    wallet = WalletOutput()


class TableOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    tier = serializers.CharField()
    min_ante = Money()
    max_ante = Money()
    paytable = serializers.CharField()
    jackpot_pool = serializers.CharField()
    jackpot_meter = Money()
    jackpot_bet = Money()
    seats = TableSeatOutput(many=True)
    free_seats = serializers.ListField(child=serializers.IntegerField())
    hand = Nullable(HandOutput)
    server_time = serializers.DateTimeField()


class LobbyTableOutput(serializers.Serializer):
    """A ``Table`` of ``selectors.lobby_tables()`` (annotated with ``seated``)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    tier = serializers.CharField(source="tier.name")
    min_ante = Cents(source="tier.min_ante")
    max_ante = Cents(source="tier.max_ante")
    paytable = serializers.CharField(source="paytable.name")
    seats_taken = serializers.IntegerField(source="seated")
    free_seats = serializers.SerializerMethodField()
    jackpot_pool = serializers.CharField(source="pool.name")
    jackpot_meter = Cents(source="pool.meter_account.balance")

    @extend_schema_field(OpenApiTypes.INT)
    def get_free_seats(self, table) -> int:
        return MAX_SEATS - table.seated


class LobbyOutput(serializers.Serializer):
    tables = LobbyTableOutput(many=True)
    server_time = serializers.DateTimeField()


class _BlankAsNull(serializers.CharField):
    """A model's text field whose empty value means "none yet": answered as null."""

    def get_attribute(self, instance):
        return super().get_attribute(instance) or None


class HandHistoryRowOutput(serializers.Serializer):
    """A ``HandSeat`` of ``selectors.player_hand_seats()``, with its hand and table."""

    id = serializers.IntegerField(source="hand_id")
    table = serializers.IntegerField(source="hand.table_id")
    table_name = serializers.CharField(source="hand.table.name")
    nonce = serializers.IntegerField(source="hand.nonce")
    state = serializers.ChoiceField(source="hand.state", choices=Hand.State.choices)
    opened_at = serializers.DateTimeField(source="hand.opened_at")
    settled_at = Nullable(serializers.DateTimeField, source="hand.settled_at")
    seat = serializers.IntegerField(source="seat_number")
    ante = Cents()
    jackpot_bet = Cents()
    decision = Nullable(_BlankAsNull)
    category = Nullable(_BlankAsNull)
    hand_name = serializers.SerializerMethodField(
        help_text='Your hand as players say it ("pair of tens"); null before the deal.'
    )
    outcome = Nullable(_BlankAsNull)
    net = Nullable(Cents)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_hand_name(self, seat) -> str | None:
        return hand_name_in_language(seat.cards)


PLAY_ERRORS = error_responses(400, 401, 403, 404, 409, 429, 503)


def hand_body(*, hand, request, wallet: bool = False) -> dict:
    """The hand as the caller may see it (``selectors.hand_view``), and what a client needs
    to play without polling blind: whose turn it is until when, what the caller may do
    now, the next hand once this one is over, the time on the server (and the wallet)."""
    user = request.user
    view = hand_view_in_language(selectors.hand_view(hand=hand, viewer=user))  # hands' names in the reader's words
    table_seats = dict(Seat.objects.filter(table_id=hand.table_id).values_list("player_id", "number"))
    in_hand = {seat["seat"]: seat for seat in view["seats"]}
    mine = next((seat for seat in view["seats"] if seat["is_you"]), None)
    if hand.state == Hand.State.BETTING:
        waiting = sorted(number for number in table_seats.values() if number not in in_hand)
        turn = {"phase": "betting", "seats": waiting, "deadline": view["betting_deadline"]}
    elif hand.state == Hand.State.DECISIONS:
        waiting = sorted(number for number, seat in in_hand.items() if not seat["decision"])
        turn = {"phase": "decisions", "seats": waiting, "deadline": view["decision_deadline"]}
    else:
        turn = {"phase": hand.state, "seats": [], "deadline": None}
    your_seat = table_seats.get(user.pk) or (mine["seat"] if mine else None)
    allowed = []
    if hand.state == Hand.State.BETTING and mine is None and user.pk in table_seats:
        allowed = ["bet"]
    elif hand.state == Hand.State.DECISIONS and mine is not None and not mine["decision"]:
        allowed = ["fold", "raise"]
    next_hand = None
    if hand.is_over:
        following = (
            Hand.objects.filter(table_id=hand.table_id, pk__gt=hand.pk).order_by("pk").only("pk", "state").first()
        )
        if following is not None:
            next_hand = {"id": following.pk, "url": reverse("api-hand", args=[following.pk]), "state": following.state}
    view.update(turn=turn, your_seat=your_seat, allowed_actions=allowed, next_hand=next_hand)
    if wallet and policy.allowed(user, "play"):
        view["wallet"] = wallet_balances(user=user)  # rendered by WalletOutput
    view["server_time"] = timezone.now()
    return view


def table_body(*, table, request) -> dict:
    view = selectors.table_view(table=table, viewer=request.user)
    if view["hand"] is not None:
        view["hand"] = hand_body(hand=selectors.hand_get(hand_id=view["hand"]["id"]), request=request)
    view["server_time"] = timezone.now()
    return view


class LobbyApi(APIView):
    @extend_schema(
        responses={200: LobbyOutput, **error_responses(401)},
        summary="Open tables by tier, free seats and the live jackpot",
    )
    def get(self, request):
        return Response(LobbyOutput({"tables": selectors.lobby_tables(), "server_time": timezone.now()}).data)


class TableDetailApi(APIView):
    @extend_schema(
        responses={200: TableOutput, **error_responses(401, 404)},
        summary="A table, its seats and its current hand as you may see it",
    )
    def get(self, request, table_id: int):
        table = selectors.table_get(table_id=table_id)
        return Response(TableOutput(table_body(table=table, request=request)).data)


class TableSitApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(
        request=SitInput,
        responses={201: TableOutput, **PLAY_ERRORS},
        summary="Take a seat (the lowest free one by default)",
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(SitInput, request.data)
        table_sit(
            user=request.user, table_id=table_id, seat_number=data.get("seat"), client_seed=data.get("client_seed")
        )
        table = selectors.table_get(table_id=table_id)
        return Response(TableOutput(table_body(table=table, request=request)).data, status=status.HTTP_201_CREATED)


class TableLeaveApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(request=None, responses={200: TableOutput, **PLAY_ERRORS}, summary="Leave the table between hands")
    @idempotent
    def post(self, request, table_id: int):
        no_fields(request.data)
        table_leave(user=request.user, table_id=table_id)
        table = selectors.table_get(table_id=table_id)
        return Response(TableOutput(table_body(table=table, request=request)).data)


class TableBetApi(APIView):
    permission_classes = [policy.Allowed("play")]

    @extend_schema(
        request=BetInput, responses={201: HandWithWalletOutput, **PLAY_ERRORS}, summary="Ante (and the jackpot chip)"
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(BetInput, request.data)
        hand_seat = hand_bet(
            user=request.user, table_id=table_id, ante=to_cents(data["ante"], field="ante"), jackpot=data["jackpot"]
        )
        hand = selectors.hand_get(hand_id=hand_seat.hand_id)
        return Response(
            HandWithWalletOutput(hand_body(hand=hand, request=request, wallet=True)).data,
            status=status.HTTP_201_CREATED,
        )


class TableCurrentHandApi(APIView):
    @extend_schema(
        responses={200: HandOutput, **error_responses(401, 404)}, summary="The table's current hand as you may see it"
    )
    def get(self, request, table_id: int):
        table = selectors.table_get(table_id=table_id)
        hand = selectors.table_live_hand(table=table)
        if hand is None:
            raise NotFound("No hand is open at this table.", code="no_current_hand")
        return Response(HandOutput(hand_body(hand=hand, request=request)).data)


def _hand_for(request, hand_id: int):
    """A past or present hand, for its players and the auditors only (else: not found)."""
    hand = selectors.hand_get(hand_id=hand_id)
    if (
        not policy.allowed(request.user, "hand.read_any")
        and selectors.player_hand_seat(hand=hand, user=request.user) is None
    ):
        raise NotFound("No such hand.", code="hand_not_found")
    return hand


class _HandApi(APIView):
    """A hand by id: for its players and the auditors; for anybody else it does not exist,
    whatever the verb (checked after authentication, before the method is looked up)."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        self.hand = _hand_for(request, kwargs["hand_id"])


class HandDetailApi(_HandApi):
    @extend_schema(
        responses={200: HandOutput, **error_responses(401, 404)},
        summary="One hand: your cards, and everything once it is settled",
    )
    def get(self, request, hand_id: int):
        return Response(HandOutput(hand_body(hand=self.hand, request=request)).data)


class _DecisionApi(_HandApi):
    permission_classes = [policy.Allowed("play")]
    action = ""

    @extend_schema(
        request=None, responses={200: HandWithWalletOutput, **PLAY_ERRORS}, summary="Fold or raise (by the URL)"
    )
    @idempotent
    def post(self, request, hand_id: int):
        no_fields(request.data)
        hand_decide(user=request.user, hand_id=hand_id, action=self.action)
        hand = selectors.hand_get(hand_id=hand_id)
        return Response(HandWithWalletOutput(hand_body(hand=hand, request=request, wallet=True)).data)


class HandFoldApi(_DecisionApi):
    action = "fold"


class HandRaiseApi(_DecisionApi):
    action = "raise"


class HandHistoryApi(APIView):
    permission_classes = [IsAuthenticated]
    pagination_class = CursorPagination  # for the schema: the page's shape and its parameters

    @extend_schema(
        responses={200: HandHistoryRowOutput(many=True), **error_responses(400, 401)},
        summary="Your hands, newest first, a page at a time by cursor (the cursor: a hand's id)",
        operation_id="hands_list",
    )
    def get(self, request):
        paginator = CursorPagination()
        seats = paginator.page_of(request, lambda **cursor: selectors.player_hand_page(user=request.user, **cursor))
        return paginator.get_paginated_response(HandHistoryRowOutput(seats, many=True).data)
