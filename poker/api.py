"""The player's poker room over REST: tables, buy-in, top-up, sit out / in, leave, the table
as this player may see it, act, the hand history, one hand and its PokerStars text.

Thin, as ``tables/api.py``: each view parses input, calls one service of ``poker.services``
or reads one selector of ``poker.selectors``, and renders. The table is the snapshot the
page and the socket show (``poker_table_view``): the caller's own down cards, everybody's
up cards, shown hands; nobody's folded or mucked cards. A hand is its record as the caller
may see it (``poker_hand_record_for``). Every write honours ``Idempotency-Key`` and counts
against the play rate (``casino.access.security.PLAY_ENDPOINTS``).
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.access import policy
from casino.cents import format_cents
from casino.http.api import RawField, error_responses
from casino.http.errors import Conflict, NotFound
from casino.http.idempotency import idempotent
from casino.http.pagination import CursorPagination
from casino.http.validation import StrictInput, StrictIntegerField, input_of, no_fields
from casino.money import to_cents
from poker import demo_bots, notes, selectors, services
from poker.models import GAME_LABELS, PokerHand, PokerTable
from wallets.api import Money, Nullable, WalletOutput
from wallets.selectors import wallet_balances

PLAY_ERRORS = error_responses(400, 401, 403, 404, 409, 429, 503)
READ_ERRORS = error_responses(401, 404)
ACTION_CHOICES = sorted(services.PLAYER_ACTIONS)
PREACTION_CHOICES = sorted(services.PREACTION_KINDS)


def _amount(data: dict, field: str = "amount") -> int | None:
    raw = data.get(field)
    return to_cents(raw, field=field) if raw is not None else None


# --- input -------------------------------------------------------------------------------


class PokerSitInput(StrictInput):
    seat = StrictIntegerField(required=False, help_text="1 to the table's seats; the lowest free seat when left out.")
    client_seed = serializers.CharField(required=False, max_length=64, allow_blank=False)
    amount = RawField(required=False, help_text='The buy-in, if you name it: exactly the table\'s (e.g. "20.00").')


class PokerTopUpInput(StrictInput):
    amount = RawField(required=False, help_text="What you add, if you name it: exactly up to the buy-in.")


class PokerWaitingListInput(StrictInput):
    join = serializers.BooleanField(
        default=True, help_text="true: join the full table's waiting list; false: leave it."
    )


class PokerAlwaysShowInput(StrictInput):
    show = serializers.BooleanField(help_text="true: show a losing hand at the showdown instead of mucking it.")


class PokerActInput(StrictInput):
    hand_id = StrictIntegerField(
        min_value=1, help_text="The live hand you act in (an action never reaches another hand)."
    )
    action = serializers.ChoiceField(
        choices=ACTION_CHOICES, help_text="One of the legal actions the table offers you now."
    )
    amount = RawField(
        required=False,
        help_text='For complete, bet and raise: the street total you go to, a decimal string ("4.00"); in spread '
        "limit any size within the offered span, in steps of its step.",
    )


class PokerPreactInput(StrictInput):
    hand_id = StrictIntegerField(min_value=1, help_text="The live hand the box is for (never another hand).")
    kind = serializers.ChoiceField(
        choices=PREACTION_CHOICES,
        allow_null=True,
        help_text="The box you tick before your turn: check_fold (check, or fold to a bet), check, call (exactly "
        "`amount`), call_any (whatever is bet), fold (facing a bet); null clears it.",
    )
    amount = RawField(
        required=False,
        help_text='For call only: the amount to call now, a decimal string ("0.50"); it plays only while the '
        "amount to call stays exactly this.",
    )


# --- output ------------------------------------------------------------------------------


class PokerNoteInput(StrictInput):
    player = serializers.CharField(max_length=150, help_text="The player's user name, as the table shows it.")
    text = serializers.CharField(required=False, allow_blank=True, max_length=notes.TEXT_MAX, trim_whitespace=True)
    colour = serializers.ChoiceField(
        choices=notes.COLOURS,
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="A colour tag, or null for none.",
    )


class PokerNoteOutput(serializers.Serializer):
    player = serializers.CharField()
    text = serializers.CharField()
    colour = Nullable(serializers.ChoiceField, choices=notes.COLOURS)
    updated_at = serializers.DateTimeField()


class PokerNoteSetOutput(serializers.Serializer):
    player = serializers.CharField()
    note = Nullable(
        PokerNoteOutput, help_text="Null once both the text and the colour are empty (the note is removed)."
    )


class PokerTableHeadOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.ChoiceField(choices=list(GAME_LABELS))
    game_label = serializers.CharField()
    structure = serializers.ChoiceField(choices=["fixed", "spread"])
    stakes = serializers.CharField()
    small_bet = Nullable(Money, help_text="Fixed limit only.")
    big_bet = Nullable(Money, help_text="Fixed limit only.")
    min_bet = Nullable(Money, help_text="Spread limit only.")
    max_bet = Nullable(Money, help_text="Spread limit only.")
    buy_in = Money()
    ante = Money()
    bring_in = Money()
    max_seats = serializers.IntegerField()
    is_open = serializers.BooleanField()


class PokerLobbyTableOutput(PokerTableHeadOutput):
    players = serializers.IntegerField()
    waiting = serializers.IntegerField()
    average_pot = Nullable(Money, help_text="Over the table's last hands; null before any.")
    hands_per_hour = serializers.IntegerField()
    you_sit = serializers.BooleanField()


class PokerLobbyOutput(serializers.Serializer):
    tables = PokerLobbyTableOutput(many=True)
    server_time = serializers.DateTimeField()


class PokerSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = Nullable(serializers.CharField)
    is_bot = serializers.BooleanField(help_text="Played by the room's bot (the demo's regulars).")
    stack = Nullable(Money)
    is_you = serializers.BooleanField()
    sitting_out = serializers.BooleanField()
    in_hand = serializers.BooleanField()
    folded = serializers.BooleanField()
    all_in = serializers.BooleanField()
    bet = Money()
    in_pot = Money()
    up = serializers.ListField(child=serializers.CharField(), help_text='Face-up cards, "Ah", "Td", …')
    down_count = serializers.IntegerField()
    down = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="Your own down cards on your own seat; null on every other seat.",
    )
    note = Nullable(PokerNoteOutput, help_text="Your own note on this player; null without one (and on your own seat).")


class PokerLegalOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    actions = serializers.ListField(child=serializers.ChoiceField(choices=ACTION_CHOICES))
    call_amount = Money()
    bring_in_amount = Nullable(Money)
    complete_to = serializers.ListField(child=Money(), allow_null=True, help_text="[lowest, highest] street total.")
    bet_to = serializers.ListField(child=Money(), allow_null=True, help_text="[lowest, highest] street total.")
    raise_to = serializers.ListField(child=Money(), allow_null=True, help_text="[lowest, highest] street total.")
    step = Money(help_text="Sizes between lowest and highest go in these steps.")
    all_in_to = Nullable(Money)


class PokerShownHandOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    shown = serializers.BooleanField()
    cards = serializers.ListField(child=serializers.CharField(), allow_null=True, help_text="Null for a mucked hand.")
    category = Nullable(serializers.CharField)
    best_five = serializers.ListField(child=serializers.CharField(), allow_null=True)
    hand_name = Nullable(serializers.CharField, help_text='As players say it: "pair of tens".')


class PokerHandPotOutput(serializers.Serializer):
    amount = Money()
    rake = Money()
    eligible = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    shares = serializers.DictField(child=Money(), help_text="Seat → amount won.")


HAND_NUMBER_HELP = (
    "The hand's count at its table, the fair check's nonce. A hand is named by its `id` (the pages, "
    "the statement, the PokerStars text): unique across the room, where two tables both have a hand 1."
)


class PokerLiveHandOutput(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField(help_text=HAND_NUMBER_HELP)
    state = serializers.ChoiceField(choices=PokerHand.State.choices)
    version = serializers.IntegerField()
    street = serializers.IntegerField()
    to_act = Nullable(serializers.IntegerField)
    deadline = Nullable(serializers.DateTimeField)
    time_bank_left = Nullable(serializers.FloatField, help_text="Seconds of the acting player's time bank.")
    commitment = serializers.CharField()
    client_seed = serializers.CharField()
    pot = Money()
    pots = PokerHandPotOutput(many=True)
    rake = Money()
    community = Nullable(serializers.CharField)
    is_over = serializers.BooleanField()
    showdown = PokerShownHandOutput(many=True)
    seed_revealed_at = Nullable(serializers.DateTimeField)
    server_seed = Nullable(serializers.CharField, help_text="Once revealed (SPEC B4: a delay after the hand).")
    events_count = serializers.IntegerField()
    events = serializers.ListField(
        child=serializers.DictField(), help_text="The hand so far, as docs/stud-hand-record.md; hidden cards are null."
    )


class PokerPreactionOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=PREACTION_CHOICES)
    amount = Money(help_text="The amount to call when you ticked it.")
    street = serializers.IntegerField(help_text="The street it is for: a new street clears it.")


class PokerYouOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    legal = Nullable(PokerLegalOutput, help_text="What you may do now; null unless it is your turn.")
    preaction = Nullable(
        PokerPreactionOutput,
        help_text="The box you ticked before your turn (yours alone to see); null without one. Played at once "
        "when your turn comes if still legal, else cleared; cleared too when the bet it was ticked for changes.",
    )
    time_bank = serializers.FloatField(help_text="Seconds.")
    all_in_allowance_left = serializers.BooleanField()
    can_top_up = serializers.BooleanField()
    top_up_to = Money()
    top_up_amount = Money()
    sitting_out = serializers.BooleanField()
    leaving = serializers.BooleanField()
    always_show = serializers.BooleanField()


class PokerTableOutput(serializers.Serializer):
    table = PokerTableHeadOutput()
    seats = PokerSeatOutput(many=True)
    hand = Nullable(PokerLiveHandOutput, help_text="The live hand, else the last one settled; null before any.")
    you = Nullable(PokerYouOutput, help_text="Your seat's block; null when you do not sit here.")
    waiting_list = serializers.ListField(child=serializers.CharField())
    last_hand_id = Nullable(serializers.IntegerField)
    wallet = Nullable(WalletOutput)
    server_time = serializers.DateTimeField()


class PokerHistoryRowOutput(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    game = serializers.ChoiceField(choices=list(GAME_LABELS))
    number = serializers.IntegerField(help_text=HAND_NUMBER_HELP)
    state = serializers.ChoiceField(choices=PokerHand.State.choices)
    seat = serializers.IntegerField()
    net = Money(help_text="Your result: stack after the hand minus before its ante.")
    pot = Money()
    ended_at = serializers.DateTimeField()
    seed_revealed_at = Nullable(serializers.DateTimeField)


class PokerRecordSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    stack = Money()
    client_seed = serializers.CharField()
    all_in_allowance = serializers.BooleanField()
    always_show = serializers.BooleanField()
    note = Nullable(PokerNoteOutput, help_text="Your own note on this player; null without one (and on your own seat).")


class PokerRecordOutput(serializers.Serializer):
    """``docs/stud-hand-record.md`` as this player may see it."""

    version = serializers.IntegerField()
    game = serializers.ChoiceField(choices=list(GAME_LABELS))
    table = serializers.CharField()
    limit = serializers.DictField(child=serializers.CharField())
    buy_in = Money()
    ante = Money()
    bring_in = Money()
    bring_in_rule = serializers.ChoiceField(choices=["lowest", "highest"])
    max_seats = serializers.IntegerField()
    rake_rule = serializers.DictField()
    server_seed = Nullable(serializers.CharField, help_text="Null until revealed.")
    seed_revealed_at = Nullable(serializers.DateTimeField)
    commitment = serializers.CharField()
    client_seed = serializers.CharField()
    nonce = serializers.IntegerField()
    dealt_from_seeds = serializers.BooleanField()
    seats = PokerRecordSeatOutput(many=True)
    events = serializers.ListField(
        child=serializers.DictField(), help_text="Every deal, burn and action; cards you may not see are null."
    )
    showdown = PokerShownHandOutput(many=True)
    pots = PokerHandPotOutput(many=True)
    rake = Money()
    net = serializers.DictField(child=Money(), help_text="Seat → result.")
    complete = serializers.BooleanField()
    community = Nullable(serializers.CharField)
    viewer_seat = serializers.IntegerField()


class PokerHandOutput(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    number = serializers.IntegerField(help_text=HAND_NUMBER_HELP)
    state = serializers.ChoiceField(choices=PokerHand.State.choices)
    your_seat = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    ended_at = Nullable(serializers.DateTimeField)
    record = Nullable(PokerRecordOutput, help_text="Once the hand ended; null while it is live or once cancelled.")


class PokerStarsOutput(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField(help_text="The hand in PokerStars' hand-history format, as you saw it.")


# --- bodies ----------------------------------------------------------------------------


def _table_or_404(table_id: int) -> PokerTable:
    table = PokerTable.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound("No such poker table.", code="table_not_found")
    return table


def _shown(hands) -> list[dict]:
    out = []
    for h in hands or ():
        name = h.get("hand_name")
        if h.get("shown") and not name:
            name = selectors.stud_hand_name(h.get("category"), h.get("best_five"))
        out.append(
            {
                "seat": h["seat"],
                "shown": bool(h.get("shown")),
                "cards": h.get("cards") if h.get("shown") else None,
                "category": h.get("category") if h.get("shown") else None,
                "best_five": h.get("best_five") if h.get("shown") else None,
                "hand_name": name if h.get("shown") else None,
            }
        )
    return out


def table_body(*, table: PokerTable, user) -> dict:
    """``poker_table_view`` for ``user``, every key always present (the schema's shape)."""
    view = selectors.poker_table_view(table=table, user=user)
    by_name = notes.notes_by_name(author=user, names=[s["player"] for s in view["seats"] if not s["is_you"]])
    bots = set(demo_bots.bot_names(table_id=table.pk))
    seats = []
    for row in view["seats"]:
        seats.append(
            {
                **row,
                "down": row.get("down") if row["is_you"] else None,
                "note": by_name.get(row["player"]),
                "is_bot": row["player"] in bots,
            }
        )
    hand = view["hand"]
    if hand is not None:
        hand = {**hand, "showdown": _shown(hand.get("showdown")), "pots": hand.get("pots") or []}
        hand.setdefault("seed_revealed_at", None)
        hand.setdefault("server_seed", None)
    you = view["you"]
    return {
        "table": view["table"],
        "seats": seats,
        "hand": hand,
        "you": you,
        "waiting_list": view["waiting_list"],
        "last_hand_id": view["last_hand_id"],
        "wallet": wallet_balances(user=user) if policy.allowed(user, "play") else None,
        "server_time": timezone.now(),
    }


def _table_response(table_id: int, request, status_code: int = status.HTTP_200_OK) -> Response:
    table = _table_or_404(table_id)
    return Response(PokerTableOutput(table_body(table=table, user=request.user)).data, status=status_code)


def player_hand_or_404(*, hand_id: int, user) -> tuple[PokerHand, int]:
    """A hand the user was dealt into, and their seat; for anybody else it does not exist."""
    hand = PokerHand.objects.select_related("table").filter(pk=hand_id).first()
    seat = selectors.poker_seat_of(hand=hand, user=user) if hand is not None else None
    if hand is None or seat is None:
        raise NotFound("No such hand.", code="hand_not_found")
    return hand, seat


def hand_body(*, hand: PokerHand, seat: int, user) -> dict:
    record = None
    if hand.state == PokerHand.State.ENDED and hand.record:
        seen = selectors.poker_hand_record_for(hand=hand, user=user)
        by_name = notes.notes_by_name(
            author=user, names=[s["player"] for s in seen.get("seats", []) if s["seat"] != seat]
        )
        record = {
            **{key: value for key, value in seen.items() if key != "deck"},  # a rigged test deck: never shown
            "seats": [
                {**s, "note": by_name.get(s["player"]) if s["seat"] != seat else None} for s in seen.get("seats", [])
            ],
            "showdown": _shown(seen.get("showdown")),
            "community": seen.get("community"),
        }
    return {
        "id": hand.pk,
        "table": hand.table_id,
        "table_name": hand.table.name,
        "number": hand.number,
        "state": hand.state,
        "your_seat": seat,
        "started_at": hand.started_at,
        "ended_at": hand.ended_at,
        "record": record,
    }


# --- views ---------------------------------------------------------------------------------


class PokerLobbyApi(APIView):
    @extend_schema(
        responses={200: PokerLobbyOutput, **error_responses(401)},
        summary="The poker tables: game, stakes, buy-in, players",
        operation_id="poker_tables_list",
    )
    def get(self, request):
        mine = set(request.user.poker_seats.values_list("table_id", flat=True))
        rows = [{**row, "you_sit": row["id"] in mine} for row in selectors.poker_lobby_rows()]
        return Response(PokerLobbyOutput({"tables": rows, "server_time": timezone.now()}).data)


class PokerTableApi(APIView):
    @extend_schema(
        responses={200: PokerTableOutput, **READ_ERRORS},
        summary="A poker table as you may see it: seats, up cards, your down cards, the hand, your legal actions",
    )
    def get(self, request, table_id: int):
        return _table_response(table_id, request)


class _SeatApi(APIView):
    permission_classes = [policy.Allowed("play")]


class PokerSitApi(_SeatApi):
    @extend_schema(
        request=PokerSitInput,
        responses={201: PokerTableOutput, **PLAY_ERRORS},
        summary="Buy in: exactly the table's buy-in from your wallet to a stack in a seat",
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(PokerSitInput, request.data)
        services.poker_sit(
            user=request.user,
            table_id=table_id,
            seat_number=data.get("seat"),
            client_seed=data.get("client_seed"),
            amount=_amount(data),
        )
        return _table_response(table_id, request, status.HTTP_201_CREATED)


class PokerTopUpApi(_SeatApi):
    @extend_schema(
        request=PokerTopUpInput,
        responses={200: PokerTableOutput, **PLAY_ERRORS},
        summary="Between hands: top your stack up to the buy-in",
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(PokerTopUpInput, request.data)
        services.poker_top_up(user=request.user, table_id=table_id, amount=_amount(data))
        return _table_response(table_id, request)


class PokerSitOutApi(_SeatApi):
    @extend_schema(
        request=None,
        responses={200: PokerTableOutput, **PLAY_ERRORS},
        summary="Sit out from the next hand (auto-ante off)",
    )
    @idempotent
    def post(self, request, table_id: int):
        no_fields(request.data)
        services.poker_sit_out(user=request.user, table_id=table_id)
        return _table_response(table_id, request)


class PokerSitInApi(_SeatApi):
    @extend_schema(
        request=None, responses={200: PokerTableOutput, **PLAY_ERRORS}, summary="Be dealt in again from the next hand"
    )
    @idempotent
    def post(self, request, table_id: int):
        no_fields(request.data)
        services.poker_sit_in(user=request.user, table_id=table_id)
        return _table_response(table_id, request)


class PokerLeaveApi(_SeatApi):
    @extend_schema(
        request=None,
        responses={200: PokerTableOutput, **PLAY_ERRORS},
        summary="Leave: your stack goes back to your wallet (dealt in: when this hand ends, `you.leaving`)",
    )
    @idempotent
    def post(self, request, table_id: int):
        no_fields(request.data)
        services.poker_leave(user=request.user, table_id=table_id)
        return _table_response(table_id, request)


class PokerWaitingListApi(_SeatApi):
    @extend_schema(
        request=PokerWaitingListInput,
        responses={200: PokerTableOutput, **PLAY_ERRORS},
        summary="Join (or leave) a full table's waiting list: the next free seat is yours, bought in from your wallet",
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(PokerWaitingListInput, request.data)
        if data["join"]:
            services.poker_waitlist_join(user=request.user, table_id=table_id)
        else:
            services.poker_waitlist_leave(user=request.user, table_id=table_id)
        return _table_response(table_id, request)


class PokerAlwaysShowApi(_SeatApi):
    @extend_schema(
        request=PokerAlwaysShowInput,
        responses={200: PokerTableOutput, **PLAY_ERRORS},
        summary="Always show your hand at the showdown, or muck a losing one (from the next hand)",
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(PokerAlwaysShowInput, request.data)
        services.poker_always_show(user=request.user, table_id=table_id, show=data["show"])
        return _table_response(table_id, request)


class PokerActApi(_SeatApi):
    @extend_schema(
        request=PokerActInput,
        responses={200: PokerTableOutput, **PLAY_ERRORS},
        summary="Act in the live hand: fold, check, call, bet, raise, bring in, complete, all in, as `you.legal` "
        "offers",
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(PokerActInput, request.data)
        services.poker_act(
            user=request.user, table_id=table_id, hand_id=data["hand_id"], action=data["action"], amount=_amount(data)
        )
        return _table_response(table_id, request)


class PokerPreactApi(_SeatApi):
    @extend_schema(
        request=PokerPreactInput,
        responses={200: PokerTableOutput, **PLAY_ERRORS},
        summary="Before your turn: tick check/fold, check, call, call any or fold (null clears it); `you.preaction`",
    )
    @idempotent
    def post(self, request, table_id: int):
        data = input_of(PokerPreactInput, request.data)
        services.poker_preact(
            user=request.user, table_id=table_id, hand_id=data["hand_id"], kind=data["kind"], amount=_amount(data)
        )
        return _table_response(table_id, request)


class PokerHandListApi(APIView):
    permission_classes = [IsAuthenticated]
    pagination_class = CursorPagination

    @extend_schema(
        responses={200: PokerHistoryRowOutput(many=True), **error_responses(400, 401)},
        summary="Your poker hands, newest first, a page at a time by cursor (the cursor: a hand's id)",
        operation_id="poker_hands_list",
    )
    def get(self, request):
        paginator = CursorPagination()
        page = paginator.page_of(request, lambda **cursor: selectors.poker_hand_page(user=request.user, **cursor))
        rows = [
            {
                "id": played.hand_id,
                "table": played.hand.table_id,
                "table_name": played.hand.table.name,
                "game": played.hand.table.game,
                "number": played.hand.number,
                "state": played.hand.state,
                "seat": played.seat,
                "net": format_cents(played.net),
                "pot": format_cents(played.hand.pot_total),
                "ended_at": played.ended_at,
                "seed_revealed_at": selectors.poker_seed_revealed_at(hand=played.hand),
            }
            for played in page
        ]
        return paginator.get_paginated_response(PokerHistoryRowOutput(rows, many=True).data)


class PokerHandApi(APIView):
    @extend_schema(
        responses={200: PokerHandOutput, **READ_ERRORS}, summary="One of your hands: its record as you may see it"
    )
    def get(self, request, hand_id: int):
        hand, seat = player_hand_or_404(hand_id=hand_id, user=request.user)
        return Response(PokerHandOutput(hand_body(hand=hand, seat=seat, user=request.user)).data)


class PokerHandTextApi(APIView):
    @extend_schema(
        responses={200: PokerStarsOutput, **error_responses(401, 404, 409)},
        summary="One of your hands in PokerStars' hand-history text",
    )
    def get(self, request, hand_id: int):
        hand, _ = player_hand_or_404(hand_id=hand_id, user=request.user)
        if hand.state != PokerHand.State.ENDED or not hand.record:
            raise Conflict("The hand history is ready once the hand is over.", code="hand_not_over")
        text = selectors.poker_hand_pokerstars(hand=hand, user=request.user)
        return Response(PokerStarsOutput({"id": hand.pk, "text": text}).data)


class PokerNotesApi(APIView):
    pagination_class = CursorPagination

    @extend_schema(
        responses={200: PokerNoteOutput(many=True), **error_responses(400, 401)},
        summary="Your notes on other players, the newest first, a page at a time by cursor",
        operation_id="poker_notes_list",
    )
    def get(self, request):
        paginator = CursorPagination()
        page = paginator.page_of(request, lambda **cursor: notes.poker_notes_page(author=request.user, **cursor))
        return paginator.get_paginated_response(PokerNoteOutput([notes.note_json(n) for n in page], many=True).data)

    @extend_schema(
        request=PokerNoteInput,
        responses={200: PokerNoteSetOutput, **error_responses(400, 401, 403, 404)},
        summary="Write your private note and colour tag on a player you have played with (both empty: removed)",
    )
    @idempotent
    def post(self, request):
        data = input_of(PokerNoteInput, request.data)
        note = notes.poker_note_set(
            author=request.user, name=data["player"], text=data.get("text"), colour=data.get("colour")
        )
        return Response(
            PokerNoteSetOutput({"player": data["player"], "note": notes.note_json(note) if note else None}).data
        )


class PokerNoteApi(APIView):
    @extend_schema(responses={200: PokerNoteOutput, **READ_ERRORS}, summary="Your note on one player")
    def get(self, request, player: str):
        return Response(PokerNoteOutput(notes.note_json(notes.poker_note_get(author=request.user, name=player))).data)

    @extend_schema(responses={204: None, **READ_ERRORS}, summary="Remove your note on one player")
    def delete(self, request, player: str):
        notes.poker_note_delete(author=request.user, name=player)
        return Response(status=status.HTTP_204_NO_CONTENT)
