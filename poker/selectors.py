"""The poker room's reads: what one user may see of a table, the lobby, a player's hands.

Hidden cards reach their owner alone: a snapshot carries the viewer's own down cards and
everybody's up cards (``casino.stud.engine.player_view`` / ``public_view``); mucked hands
and burns never. The server seed, which recomputes every card of the deck, reaches players
only ``POKER_SEED_REVEAL_DELAY`` after the hand ended (SPEC B4, "Seed reveal"): until then
they see the commitment and when the seed will be revealed (``seed_revealed_at``).
Auditors read the hand's row (``poker.audit``), seed included, at once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Avg, Count, Q, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext

from casino.cents import format_cents
from casino.game.cards import card_to_str
from casino.game.names import hand_name_from_codes
from casino.keyset import KeysetPage, keyset_page
from casino.stud.engine import legal_as_dict, money, player_view, public_view
from poker import replay
from poker.models import GAME_LABELS, PokerAllowance, PokerHand, PokerHandPlayer, PokerSeat, PokerTable
from poker.pokerstars import to_pokerstars
from wallets.holdings import Holding

LOBBY_HANDS = 50  # the average pot over a table's last hands
PREVIOUS_HANDS = 5  # the table's last results a snapshot carries (RESULTS_KEPT in static/js/poker_state.js)
SOKO_WORDS = {"four_flush": "four flush", "four_straight": "four straight"}
RANK_WORDS = dict(
    zip(
        "23456789TJQKA",
        ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace"),
    )
)


def stud_hand_name(category: str | None, best_five) -> str:
    """A shown stud hand as players say it ("pair of tens", "four flush, ace high")."""
    if not best_five or len(best_five) != 5 or None in best_five:
        return (category or "").replace("_", " ")
    if category in SOKO_WORDS:
        suits: dict[str, list[str]] = {}
        for code in best_five:
            suits.setdefault(code[1], []).append(code[0])
        order = "23456789TJQKA"
        if category == "four_flush":
            top = max(max(suits.values(), key=len), key=order.index)
        else:
            have = {order.index(code[0]) for code in best_five}
            top = next((order[t] for t in range(12, 2, -1) if {t, t - 1, t - 2, t - 3} <= have), "5")
            if top == "5" and not {0, 1, 2, 3} <= have:
                top = "4"  # A-2-3-4: four high
        return f"{SOKO_WORDS[category]}, {RANK_WORDS[top]} high"
    return hand_name_from_codes(list(best_five))


def _name_shown(hands: list[dict]) -> list[dict]:
    """Shown hands with their ``hand_name``; mucked ones (``{"seat", "shown": false}``) as they are."""
    return [
        {**h, "hand_name": stud_hand_name(h.get("category"), h.get("best_five"))} if h.get("shown") else h
        for h in hands
    ]


def _table_head(table: PokerTable) -> dict:
    config = replay.table_config(table)
    limit = config.limit
    return {
        "id": table.pk,
        "name": table.name,
        "game": table.game,
        "game_label": GAME_LABELS[table.game],
        "structure": limit.kind,
        "stakes": config.name,
        "small_bet": money(limit.small_bet) if limit.is_fixed else None,
        "big_bet": money(limit.big_bet) if limit.is_fixed else None,
        "min_bet": None if limit.is_fixed else money(limit.min_bet),
        "max_bet": None if limit.is_fixed else money(limit.max_bet),
        "buy_in": money(config.buy_in),
        "ante": money(config.ante),
        "bring_in": money(config.bring_in),
        "max_seats": table.max_seats,
        "is_open": table.is_open,
    }


def poker_seed_revealed_at(*, hand: PokerHand) -> datetime | None:
    """When the hand's server seed reaches its players: ``POKER_SEED_REVEAL_DELAY`` after
    the hand ended (a live hand: not yet known)."""
    if hand.ended_at is None:
        return None
    return hand.ended_at + settings.POKER_SEED_REVEAL_DELAY


def poker_seed_for_players(*, hand: PokerHand, now: datetime | None = None) -> str | None:
    """The hand's server seed once players may see it, else ``None``."""
    revealed_at = poker_seed_revealed_at(hand=hand)
    if revealed_at is None or revealed_at > (now or timezone.now()):
        return None
    return hand.server_seed


def poker_hand_state(*, hand: PokerHand):
    """The engine state of a stored hand (replayed from its seeds and actions)."""
    return replay.hand_state(hand)


def _seat_public(state, p) -> dict:
    """One seat of a hand as everyone may see it: stack, bets, up cards and how many are down."""
    up = state.up_cards(p.seat)
    return {
        "seat": p.seat,
        "player": p.player,
        "stack": money(p.stack),
        "bet": money(p.bet),
        "in_pot": money(p.committed),
        "folded": p.folded,
        "all_in": p.all_in,
        "up": [card_to_str(c) for c in up],
        "down_count": len(p.cards) - len(up),
    }


def poker_hand_public(*, hand: PokerHand, state, time_bank_ms: int | None = None) -> dict:
    """The public state of a hand at its stored version: what the table's group carries in each
    ``poker.hand`` event and what every snapshot shows (``hand``, its ``seats``, the ``legal``
    actions of the player to act). No down card, burn or mucked hand is in it; once the
    hand is over, when its server seed is revealed (``seed_revealed_at``) and, from then
    on, the seed. ``time_bank_ms``: the time bank of the player to act."""
    live = hand.is_live
    over = state.is_over
    to_act = state.to_act if live else None
    head = {
        "id": hand.pk,
        "number": hand.number,
        "state": hand.state,
        "version": hand.version,
        "street": state.street,
        "to_act": state.to_act,
        "deadline": hand.decision_deadline.isoformat() if hand.decision_deadline and live else None,
        "time_bank_left": round(time_bank_ms / 1000, 1) if time_bank_ms is not None and to_act is not None else None,
        "commitment": hand.commitment,
        "client_seed": hand.client_seed,
        "pot": format_cents(hand.pot_total) if over else money(state.pot),
        "pots": [dict(p) for p in state.pots] if over else [],
        "rake": money(state.rake),
        "community": card_to_str(state.community) if state.community is not None else None,
        "is_over": over,
        "showdown": _name_shown([h if h["shown"] else {"seat": h["seat"], "shown": False} for h in state.showdown]),
    }
    if over:
        revealed_at = poker_seed_revealed_at(hand=hand)
        head["seed_revealed_at"] = revealed_at.isoformat() if revealed_at else None
        seed = poker_seed_for_players(hand=hand)
        if seed is not None:
            head["server_seed"] = seed
    return {
        "hand": head,
        "seats": [_seat_public(state, p) for p in state.players],
        "legal": legal_as_dict(state.legal()) if to_act is not None else None,
    }


def poker_preaction_of(*, hand: PokerHand | None, seat: int | None) -> dict | None:
    """The pre-action ``seat`` ticked in the live ``hand`` (``poker.services.poker_preact``), as
    its player alone reads it: ``{"kind", "amount", "street"}`` (``amount``: the amount to call
    when it was ticked), or None. Never in a public view or event."""
    if hand is None or seat is None or not hand.is_live:
        return None
    entry = (hand.preactions or {}).get(str(seat))
    if entry is None:
        return None
    return {"kind": entry["kind"], "amount": money(entry["call"]), "street": entry["street"]}


def _you(
    *,
    table: PokerTable,
    seat,
    dealt: bool,
    legal: dict | None,
    now,
    buy_in: int | None = None,
    preaction: dict | None = None,
) -> dict:
    """The seated viewer's own block: their legal actions, pre-action, time bank, allowance, seat controls."""
    allowance = PokerAllowance.objects.filter(player_id=seat.player_id).order_by().first()
    used_at = allowance.used_at if allowance is not None else None
    buy_in = replay.table_config(table).buy_in if buy_in is None else buy_in
    return {
        "seat": seat.number,
        "legal": legal,
        "preaction": preaction,
        "time_bank": round(seat.time_bank_ms / 1000, 1),
        "all_in_allowance_left": used_at is None or used_at <= now - timedelta(hours=24),
        "can_top_up": seat.stack < buy_in and not dealt,
        "top_up_to": money(buy_in),
        "top_up_amount": money(max(0, buy_in - seat.stack)),
        "sitting_out": seat.sitting_out,
        "leaving": seat.leave_after_hand,
        "always_show": seat.always_show,
    }


def _dealt_seat(hand: PokerHand | None, user_id) -> int | None:
    if hand is None or user_id is None:
        return None
    return next((s["seat"] for s in hand.seats if s["user_id"] == user_id), None)


def poker_table_view(*, table: PokerTable, user) -> dict:
    """The snapshot ``user`` (or an anonymous spectator, ``None``) may see of ``table`` now."""
    now = timezone.now()
    seats = {s.number: s for s in table.seats.select_related("player")}
    # The live hand, else the last hand if it was settled (its showdown stays on the felt).
    hand = PokerHand.objects.filter(table=table).order_by("-number").first()
    if hand is not None and hand.state == PokerHand.State.CANCELLED:
        hand = None
    state = replay.hand_state(hand, replay.table_config(table)) if hand is not None else None
    user_id = getattr(user, "pk", None)
    mine = next((s for s in seats.values() if s.player_id == user_id), None) if user_id else None
    my_seat_in_hand = _dealt_seat(hand, user_id) if mine is not None else None
    hand_view = None
    in_hand = {}
    legal = None
    if state is not None:
        to_act_seat = seats.get(state.to_act) if state.to_act is not None else None
        public = poker_hand_public(
            hand=hand, state=state, time_bank_ms=to_act_seat.time_bank_ms if to_act_seat else None
        )
        in_hand = {s["seat"]: s for s in public["seats"]}
        if my_seat_in_hand is not None:  # the viewer's own down cards, read here, never sent to a group
            in_hand[my_seat_in_hand] = {
                **in_hand[my_seat_in_hand],
                "down": [card_to_str(c) for c in state.down_cards(my_seat_in_hand)],
            }
            if public["legal"] is not None and state.to_act == my_seat_in_hand:
                legal = public["legal"]
        view = player_view(state, my_seat_in_hand) if my_seat_in_hand is not None else public_view(state)
        hand_view = {
            **public["hand"],
            "events_count": len(view["events"]),
            "events": [
                {**e, "hands": _name_shown(e["hands"])} if e["type"] == "showdown" else e for e in view["events"]
            ],
        }
    seat_rows = []
    for number in range(1, table.max_seats + 1):
        seat = seats.get(number)
        entry = in_hand.get(number) if seat is not None else None
        row = {
            "seat": number,
            "player": seat.player.get_username() if seat else None,
            "stack": format_cents(seat.stack) if seat else None,
            "is_you": bool(seat and seat.player_id == user_id),
            "sitting_out": bool(seat and seat.sitting_out),
            "in_hand": False,
            "folded": False,
            "all_in": False,
            "bet": "0.00",
            "in_pot": "0.00",
            "up": [],
            "down_count": 0,
        }
        if entry is not None and entry["player"] == row["player"]:
            row.update(
                {
                    "in_hand": True,
                    "folded": entry["folded"],
                    "all_in": entry["all_in"],
                    "bet": entry["bet"],
                    "in_pot": entry["in_pot"],
                    "up": entry["up"],
                    "down_count": entry["down_count"],
                }
            )
            if hand.is_live:
                row["stack"] = entry["stack"]
            if "down" in entry:
                row["down"] = entry["down"]
        seat_rows.append(row)
    you = None
    if mine is not None:
        dealt = my_seat_in_hand is not None and hand is not None and hand.is_live
        you = _you(
            table=table,
            seat=mine,
            dealt=dealt,
            legal=legal if dealt else None,
            now=now,
            preaction=poker_preaction_of(hand=hand, seat=my_seat_in_hand) if dealt else None,
        )
    return {
        "table": _table_head(table),
        "seats": seat_rows,
        "hand": hand_view,
        "you": you,
        "waiting_list": [w.player.get_username() for w in table.waiting.select_related("player")],
        "last_hand_id": hand.pk if hand is not None else None,
        "previous_hands": _previous_hands(table=table, hand=hand, user_id=user_id),
    }


def _previous_hands(*, table: PokerTable, hand: PokerHand | None, user_id) -> list[dict]:
    """The results of the table's last hands settled before the one on the felt, newest
    first, up to ``PREVIOUS_HANDS`` (a page opened now keeps them one click away, as the
    page that saw them played does): each hand's public state and events, who sat where,
    whether the viewer was dealt in. One query (the hands' records left unread); their
    states come from the replay cache."""
    hands = PokerHand.objects.filter(table=table, state=PokerHand.State.ENDED).defer("record")
    if hand is not None:
        hands = hands.filter(number__lt=hand.number)
    config = replay.table_config(table)
    past = []
    for previous in hands.order_by("-number")[:PREVIOUS_HANDS]:
        state = replay.hand_state(previous, config)
        public = poker_hand_public(hand=previous, state=state)
        events = public_view(state)["events"]
        past.append(
            {
                **public["hand"],
                "events": [{**e, "hands": _name_shown(e["hands"])} if e["type"] == "showdown" else e for e in events],
                "names": {entry["seat"]: entry["player"] for entry in public["seats"]},
                "your_seat": _dealt_seat(previous, user_id),
            }
        )
    return past


def poker_private_view(*, table_id: int, hand_id: int, user) -> dict:
    """What a player's own sockets get when their own view of a hand changed (the private nudge):
    their down cards in that hand and their ``you`` block (without ``legal``, which the public
    events carry). Read here for that one user; it never travels over the channel layer.

    ``{"hand": {"id", "version", "state", "seat", "down"} | None, "you": {...} | None}``:
    ``hand`` is ``None`` for a hand this user was not dealt into (or a cancelled one), ``you``
    is ``None`` once the user no longer sits at the table."""
    user_id = getattr(user, "pk", None)
    hand = PokerHand.objects.filter(pk=hand_id, table_id=table_id).order_by().first()
    if hand is None:
        return {"hand": None, "you": None}
    table = PokerTable.objects.filter(pk=table_id).order_by().first()
    config = replay.table_config(table)
    seat = PokerSeat.objects.filter(table_id=table_id, player_id=user_id).order_by().first() if user_id else None
    dealt_seat = _dealt_seat(hand, user_id)
    own = None
    if dealt_seat is not None and hand.state != PokerHand.State.CANCELLED:
        state = replay.hand_state(hand, config)
        own = {
            "id": hand.pk,
            "version": hand.version,
            "state": hand.state,
            "seat": dealt_seat,
            "down": [card_to_str(c) for c in state.down_cards(dealt_seat)],
        }
    you = None
    if seat is not None:
        dealt = dealt_seat is not None and hand.is_live
        you = _you(
            table=table,
            seat=seat,
            dealt=dealt,
            legal=None,
            now=timezone.now(),
            buy_in=config.buy_in,
            preaction=poker_preaction_of(hand=hand, seat=dealt_seat) if dealt else None,
        )
        del you["legal"]
    return {"hand": own, "you": you}


def poker_lobby_rows() -> list[dict]:
    """Every poker table: game, stakes, buy-in, players/seats, waiting list, average pot, hands per hour."""
    hour_ago = timezone.now() - timedelta(hours=1)
    tables = PokerTable.objects.annotate(
        players=Count("seats", distinct=True),
        waiting_count=Count("waiting", distinct=True),
        hands_last_hour=Count("hands", filter=Q(hands__state="ended", hands__ended_at__gte=hour_ago), distinct=True),
    ).order_by("game", "id")
    rows = []
    for table in tables:
        recent = PokerHand.objects.filter(table=table, state=PokerHand.State.ENDED).order_by("-number")[:LOBBY_HANDS]
        average = PokerHand.objects.filter(pk__in=recent.values("pk")).aggregate(avg=Avg("pot_total"))["avg"]
        rows.append(
            {
                **_table_head(table),
                "players": table.players,
                "waiting": table.waiting_count,
                "average_pot": format_cents(int(average)) if average is not None else None,
                "hands_per_hour": table.hands_last_hour,
            }
        )
    return rows


def poker_tables_of_player(*, user) -> list[dict]:
    """The tables where ``user`` holds a seat, the one sat at first first: each table's
    head (id, name, game, stakes, as the lobby's rows)."""
    seats = PokerSeat.objects.filter(player=user).select_related("table").order_by("created_at", "pk")
    return [_table_head(seat.table) for seat in seats]


def poker_chips_of_player(user) -> list[Holding]:
    """The player's chips at each poker table where they hold a seat, as the ledger holds
    them (their stack account: the stack as the last hand ended), the table sat at first
    first; seats without chips left out. The wallet page's holdings (``wallets.holdings``)."""
    seats = (
        PokerSeat.objects.filter(player_id=user.pk, account__balance__gt=0)
        .select_related("table", "account")
        .order_by("created_at", "pk")
    )
    return [
        Holding(
            label=gettext("%(table)s, seat %(seat)s") % {"table": seat.table.name, "seat": seat.number},
            amount=seat.account.balance,
            url=reverse("poker-table", args=[seat.table_id]),
        )
        for seat in seats
    ]


def poker_hands_of_player(*, user) -> QuerySet[PokerHandPlayer]:
    """The settled hands ``user`` was dealt into, newest first: a row each with the
    player's seat and net result (cents) and the hand (``.hand``, with its table; its
    record and seats not loaded), read by the player's index a page at a time."""
    return (
        PokerHandPlayer.objects.filter(player=user)
        .select_related("hand__table")
        .defer("hand__record", "hand__seats", "hand__actions", "hand__deck")
        .order_by("-ended_at", "-hand_id")
    )


def poker_hand_page(*, user, limit: int, before: int | None = None, after: int | None = None) -> KeysetPage:
    """A page of ``poker_hands_of_player`` by cursor (``casino.keyset``), in the same order
    (the hand's end, then the hand): the newest ``limit``, those older than hand ``before``
    or those newer than hand ``after`` (each found by the (hand, player) index: not one of
    the player's, ``cursor_not_found``); a range of the (player, end, hand) index, however
    many hands the player has played (no count)."""
    return keyset_page(
        poker_hands_of_player(user=user), key=("ended_at", "hand_id"), limit=limit, before=before, after=after
    )


def poker_seat_of(*, hand: PokerHand, user) -> int | None:
    return next((s["seat"] for s in hand.seats if s["user_id"] == getattr(user, "pk", None)), None)


def poker_hand_record_for(*, hand: PokerHand, user) -> dict:
    """A settled hand's record as ``user`` may see it: their own down cards and what was shown.

    Others' down cards that were not shown, and the burns, are ``None``; mucked hands keep
    only ``{"seat", "shown": false}``; the server seed is ``None`` until it is revealed
    (``seed_revealed_at``, SPEC B4). Auditors read ``hand.record`` whole.
    """
    record = hand.record or {}
    viewer = poker_seat_of(hand=hand, user=user)
    shown = {h["seat"] for h in record.get("showdown", []) if h.get("shown")}
    events = []
    for e in record.get("events", []):
        t = e.get("type")
        if t == "deal" and not e["up"] and e["seat"] != viewer and e["seat"] not in shown:
            e = {**e, "card": None}
        elif t == "burn":
            e = {**e, "card": None}
        elif t == "showdown":
            e = {
                **e,
                "hands": [
                    h if h["shown"] or h["seat"] == viewer else {"seat": h["seat"], "shown": False} for h in e["hands"]
                ],
            }
        events.append(e)
    showdown = [
        h if h["shown"] or h["seat"] == viewer else {"seat": h["seat"], "shown": False}
        for h in record.get("showdown", [])
    ]
    return {
        **record,
        "events": events,
        "showdown": showdown,
        "viewer_seat": viewer,
        "server_seed": poker_seed_for_players(hand=hand),
        "seed_revealed_at": poker_seed_revealed_at(hand=hand),
    }


def poker_hand_pokerstars(*, hand: PokerHand, user=None, show_all: bool = False) -> str:
    """The PokerStars text of a settled hand: for ``user`` (their hole cards), or the auditor's (``show_all``)."""
    return to_pokerstars(
        hand.record,
        hero_seat=None if show_all else poker_seat_of(hand=hand, user=user),
        show_all=show_all,
        hand_id=hand.pk,
        table_name=hand.table.name,
        played_at=hand.ended_at,
    )


__all__ = [
    "LOBBY_HANDS",
    "PREVIOUS_HANDS",
    "poker_hand_pokerstars",
    "poker_hand_public",
    "poker_private_view",
    "stud_hand_name",
    "poker_hand_record_for",
    "poker_hand_state",
    "poker_seed_for_players",
    "poker_seed_revealed_at",
    "poker_hands_of_player",
    "poker_lobby_rows",
    "poker_preaction_of",
    "poker_reconciliation",
    "poker_seat_of",
    "poker_table_view",
]


# --------------------------------------------------------------------------- reconciliation


def poker_reconciliation() -> list[dict]:
    """Per table: bought in == chips in play + cashed out + rake, to the cent; every hand
    posted once, and its players (``PokerHandPlayer``: what the histories show) as its seats
    and record say.

    Each row: ``table``, ``bought_in``, ``cashed_out``, ``in_play``, ``rake``, ``hands``,
    ``problems`` (a list of sentences; empty when the table reconciles).
    """
    from django.db.models import Prefetch, Sum

    from casino.stud.engine import cents
    from wallets.models import Account, Leg, Transaction

    rows = []
    for table in PokerTable.objects.order_by("id"):
        problems: list[str] = []
        stacks = Account.objects.filter(kind=Account.Kind.POKER_STACK, code__startswith=f"poker_stack:{table.pk}:")
        stack_ids = set(stacks.values_list("pk", flat=True))

        def flow(kind: str, side: str) -> int:
            return (
                Leg.objects.filter(account_id__in=stack_ids, side=side, transaction__kind=kind).aggregate(
                    t=Sum("amount")
                )["t"]
                or 0
            )

        bought_in = flow(Transaction.Kind.POKER_BUY_IN, Leg.Side.CREDIT) - flow(
            Transaction.Kind.POKER_BUY_IN, Leg.Side.DEBIT
        )
        cashed_out = flow(Transaction.Kind.POKER_CASH_OUT, Leg.Side.DEBIT) - flow(
            Transaction.Kind.POKER_CASH_OUT, Leg.Side.CREDIT
        )
        in_play = stacks.aggregate(t=Sum("balance"))["t"] or 0
        rake = Account.objects.get(pk=table.rake_account_id).balance
        if in_play + cashed_out + rake != bought_in:
            problems.append(
                f"chips in play {format_cents(in_play)} + cashed out {format_cents(cashed_out)} + rake "
                f"{format_cents(rake)} != bought in {format_cents(bought_in)}"
            )
        other = (
            Leg.objects.filter(account_id__in=stack_ids | {table.rake_account_id})
            .exclude(
                transaction__kind__in=[
                    Transaction.Kind.POKER_BUY_IN,
                    Transaction.Kind.POKER_CASH_OUT,
                    Transaction.Kind.POKER_HAND,
                ]
            )
            .count()
        )
        if other:
            problems.append(f"{other} ledger legs of another kind touch this table's accounts")
        seat_accounts = {}
        for seat in table.seats.select_related("account", "player"):
            seat_accounts[seat.account_id] = seat
            if seat.stack != seat.account.balance:
                problems.append(
                    f"seat {seat.number}: stack {format_cents(seat.stack)} but its account holds "
                    f"{format_cents(seat.account.balance)}"
                )
        for account in stacks:
            if account.pk not in seat_accounts and account.balance != 0:
                problems.append(f"{account.code} holds {format_cents(account.balance)} without a seat")
        settled = {}
        legs = Prefetch(
            "legs", queryset=Leg.objects.select_related("account")
        )  # with the hands' settlements: no query a hand
        for txn in Transaction.objects.filter(kind=Transaction.Kind.POKER_HAND, table_ref=table.pk).prefetch_related(
            legs
        ):
            settled.setdefault(txn.hand_ref, []).append(txn)
        players: dict[int, set] = {}  # the hands' players, as the history finds them
        for hand_id, *row in PokerHandPlayer.objects.filter(hand__table=table).values_list(
            "hand_id", "seat", "player_id", "net", "ended_at"
        ):
            players.setdefault(hand_id, set()).add(tuple(row))
        hands = 0
        for hand in table.hands.exclude(state=PokerHand.State.LIVE).only(  # table_id: else a query a hand
            "pk", "table_id", "number", "state", "record", "seats", "ended_at"
        ):
            txns = settled.pop(hand.pk, [])
            listed = players.pop(hand.pk, set())
            if hand.state == PokerHand.State.CANCELLED:
                if txns:
                    problems.append(f"hand {hand.number} was cancelled but has {len(txns)} settlement(s)")
                if listed:
                    problems.append(f"hand {hand.number} was cancelled but lists its players as having played it")
                continue
            hands += 1
            record = hand.record or {}
            expected = {}
            by_seat = {s["seat"]: s["user_id"] for s in hand.seats}
            nets = {int(seat): cents(amount) for seat, amount in (record.get("net") or {}).items()}
            if listed != {(seat, user_id, nets.get(seat, 0), hand.ended_at) for seat, user_id in by_seat.items()}:
                problems.append(
                    f"hand {hand.number}: its players as the history finds them differ from its seats and record"
                )
            for seat, amount in (record.get("net") or {}).items():
                if cents(amount):
                    code = f"poker_stack:{table.pk}:{by_seat[int(seat)]}"
                    expected[code] = expected.get(code, 0) + cents(amount)
            if cents(record.get("rake", "0.00")):
                expected["rake"] = cents(record["rake"])
            if len(txns) > 1:
                problems.append(f"hand {hand.number} is settled {len(txns)} times")
            posted = {}
            for txn in txns[:1]:
                for leg in txn.legs.all():
                    key = "rake" if leg.account_id == table.rake_account_id else leg.account.code
                    posted[key] = posted.get(key, 0) + leg.signed_amount
            if posted != expected:
                problems.append(f"hand {hand.number}: the ledger posted {posted}, its record says {expected}")
        for hand_ref, txns in settled.items():
            problems.append(f"settlement(s) {[t.pk for t in txns]} for hand id {hand_ref}, which is not settled")
        for hand_id in players:
            problems.append(f"hand id {hand_id} lists players but is not settled")
        rows.append(
            {
                "table": table.name,
                "bought_in": bought_in,
                "cashed_out": cashed_out,
                "in_play": in_play,
                "rake": rake,
                "hands": hands,
                "problems": problems,
            }
        )
    return rows
