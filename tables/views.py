"""Player pages of the tables: lobby, the live table, hand history and hand detail.

Thin: each view reads through ``tables.selectors`` (and the wallet and jackpot readers),
checks the role, and renders. The live table is drawn in the browser from the same
``table_view`` the websocket sends (``static/js/table.js``); the server renders its first
state so the page is complete before the socket connects.

Who sees what:
- lobby and table pages: anyone signed in (staff may watch a table); only players get
  the controls to sit, bet and decide.
- hand history: players only (staff get 403: they play no hands).
- hand detail: the hand's own players and auditors; anyone else gets 404, as in the API.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import groupby

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from casino.access import policy
from casino.access.policy import player_required
from casino.cents import format_cents, parse_cents
from casino.game.evaluator import Category
from casino.game.paytables import DEFAULT_PAYTABLE, PAYTABLES
from casino.game.rules import RAISE_MULTIPLE
from casino.http.errors import ApplicationError, NotFound, ValidationError
from casino.keyset import page_cursors
from casino.money import currency_symbol, money
from casino.templatetags.casino_tags import card, category_label
from jackpot.api import pool_body
from jackpot.models import JackpotPool
from tables import selectors
from tables.presentation import (
    DECISION_LABELS,
    OUTCOME_LABELS,
    hand_view_in_language,
    paytable_rows,
    raise_rules,
    seat_explanation,
    spoken_name,
)
from tables.services import seats as seat_services
from wallets.selectors import wallet_balances

HISTORY_PAGE_SIZE = 25


# --- presentation helpers ---------------------------------------------------------------


def _marked(cards: list, winning: list | None) -> list[dict | None]:
    """The cards to draw, those that make the hand marked ``winning`` (highlighted)."""
    drawn = [card(c) for c in cards]
    for shown in drawn:
        if shown is not None:
            shown["winning"] = shown["code"] in (winning or ())
    return drawn


def _percent(value: Decimal) -> str:
    """``Decimal("70.00")`` -> ``"70"``, ``Decimal("12.50")`` -> ``"12.5"``."""
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def pool_rules(pool: JackpotPool) -> dict:
    """A pool's live meter and its rules, as a player reads them before betting."""
    body = pool_body(pool)
    rows = []
    for key, pct in body["schedule"]["percent_of_meter"].items():
        rows.append((Category.from_key(key), gettext("%(percent)s %% of the meter") % {"percent": pct}))
    for key, amount in body["schedule"]["fixed"].items():
        rows.append((Category.from_key(key), money(amount)))
    rows.sort(key=lambda row: row[0], reverse=True)
    meter_pct, reserve_pct = Decimal(body["meter_share_pct"]), Decimal(body["reserve_share_pct"])
    return {
        "id": body["id"],
        "name": body["name"],
        "meter": money(body["meter"]),
        "seed": money(body["seed"]),
        "bet": money(body["bet"]),
        "meter_share_pct": _percent(meter_pct),
        "reserve_share_pct": _percent(reserve_pct),
        "house_share_pct": _percent(100 - meter_pct - reserve_pct),
        "schedule": [{"hand": category_label(category.key), "prize": prize} for category, prize in rows],
        "lowest_prize": category_label(rows[-1][0].key) if rows else "",
        "simultaneous_wins": body["simultaneous_wins"],
    }


# --- pages ------------------------------------------------------------------------------


@login_required
def lobby(request):
    is_player = policy.allowed(request.user, "play")
    my_tables = set(request.user.seats.values_list("table_id", flat=True)) if is_player else set()
    tiers = []
    tiers_tables = list(selectors.lobby_tables())
    for _, tables in groupby(tiers_tables, key=lambda t: t.tier_id):
        tables = list(tables)
        tier = tables[0].tier
        tiers.append(
            {
                "name": tier.name,
                "min_ante": money(tier.min_ante),
                "max_ante": money(tier.max_ante),
                "tables": [
                    {
                        "id": t.pk,
                        "name": t.name,
                        "paytable": t.paytable.name,
                        "seated": t.seated,
                        "free": 4 - t.seated,
                        "you_sit": t.pk in my_tables,
                        "meter": money(t.pool.meter_account.balance),
                        "pool": t.pool_id,
                    }
                    for t in tables
                ],
            }
        )
    pools = [pool_rules(p) for p in JackpotPool.objects.filter(is_active=True).select_related("meter_account")]
    return render(
        request,
        "tables/lobby.html",
        {"tiers": tiers, "pools": pools, "is_player": is_player, "raise_rules": _lobby_raise_rules(tiers_tables)},
    )


def _lobby_raise_rules(tables) -> list[dict]:
    """One rule per pay table in use at the open tables (the default's when none is open)."""
    by_name: dict[str, dict] = {}
    for t in tables:
        by_name.setdefault(t.paytable.name, t.paytable.data)
    if not by_name:
        by_name[DEFAULT_PAYTABLE] = PAYTABLES[DEFAULT_PAYTABLE].to_dict()
    return [{"paytable": name, **raise_rules(data)} for name, data in by_name.items()]


CHIP_DENOMINATIONS = (50, 100, 200, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000)
MAX_CHIPS = 6
RECENT_RESULTS = 5


def _chip_short(cents: int) -> str:
    """What a chip's face says: ``50`` -> ``"50c"``, ``2500`` -> ``"25"``, ``250`` -> ``"2.5"``."""
    if cents < 100:
        return f"{cents}c"
    units, rest = divmod(cents, 100)
    return str(units) if not rest else format_cents(cents).rstrip("0")


def chip_values(min_ante: int, max_ante: int) -> list[dict]:
    """The chips beside the ante field: the usual denominations within the table's limits
    (its minimum first when it is no denomination), at most ``MAX_CHIPS``."""
    values = [c for c in CHIP_DENOMINATIONS if min_ante <= c <= max_ante]
    if not values or values[0] != min_ante:
        values.insert(0, min_ante)
    values = values[:MAX_CHIPS]
    return [{"value": format_cents(c), "text": money(c), "short": _chip_short(c)} for c in values]


def recent_results(*, user, table) -> list[dict]:
    """The player's last few hands over at this table, newest first, with their net result."""
    rows = []
    for hs in selectors.player_recent_hand_seats(user=user, table=table, count=RECENT_RESULTS):
        rows.append(
            {
                "id": hs.hand_id,
                "table": table.pk,
                "hand_name": spoken_name(hs.cards, hs.category) if hs.cards else "",
                "outcome_label": OUTCOME_LABELS.get(hs.outcome, ""),
                "net": format_cents(hs.net),
                "net_text": money(hs.net, signed=True),
                "net_sign": (hs.net > 0) - (hs.net < 0),
                "ante": format_cents(hs.ante),
                "jackpot_bet": format_cents(hs.jackpot_bet),
            }
        )
    return rows


def _table_or_404(table_id: int):
    try:
        return selectors.table_get(table_id=table_id)
    except NotFound:
        raise Http404("No such table.") from None


@login_required
def table_page(request, table_id: int):
    table = _table_or_404(table_id)
    is_player = policy.allowed(request.user, "play")
    view = selectors.table_view(table=table, viewer=request.user)
    view["hand"] = hand_view_in_language(view["hand"])  # the hands' names in the reader's words
    wallet = None
    if is_player:
        balances = wallet_balances(user=request.user)
        wallet = {"available": money(balances.available), "in_play": money(balances.in_play)}
        wallet_raw = {"available": format_cents(balances.available), "in_play": format_cents(balances.in_play)}
    rules = pool_rules(table.pool)
    config = {
        "table": table.pk,
        "username": request.user.get_username(),
        "isPlayer": is_player,
        "wsPath": f"/ws/tables/{table.pk}/",
        "api": {
            "table": reverse("api-table", args=[table.pk]),
            "sit": reverse("api-table-sit", args=[table.pk]),
            "leave": reverse("api-table-leave", args=[table.pk]),
            "bet": reverse("api-table-bet", args=[table.pk]),
            "wallet": reverse("api-wallet"),
            "handBase": reverse("api-hands"),
        },
        "handPage": reverse("hand-history"),
        "jackpotLowest": rules["lowest_prize"],
        "pool": table.pool_id,
        "currencySymbol": currency_symbol(),
        "raiseMultiple": RAISE_MULTIPLE,
        "extensionSeconds": table.extension_seconds,
        "recentCount": RECENT_RESULTS,
        "walletPage": reverse("wallet"),
    }
    recent = recent_results(user=request.user, table=table) if is_player else []
    return render(
        request,
        "tables/table.html",
        {
            "table": table,
            "view": view,
            "seat_list": view["seats"],
            "wallet": wallet,
            "initial": {"table": view, "wallet": wallet_raw if is_player else None, "recent": recent},
            "recent": recent,
            "chips": chip_values(table.tier.min_ante, table.tier.max_ante),
            "config": config,
            "is_player": is_player,
            "min_ante": view["min_ante"],
            "max_ante": view["max_ante"],
            "jackpot_bet": money(view["jackpot_bet"]),
            "tier_text": f"{money(view['min_ante'])} – {money(view['max_ante'])}",
            "paytable_rows": paytable_rows(table.paytable.data),
            "raise_rules": raise_rules(table.paytable.data),
            "pool": rules,
        },
    )


@player_required
@require_POST
def table_sit(request, table_id: int):
    """The lobby's "Sit" button: take the lowest free seat, then go to the table."""
    table = _table_or_404(table_id)
    try:
        seat_services.table_sit(user=request.user, table_id=table.pk)
    except ApplicationError as error:
        if error.code != "already_seated":
            messages.error(request, error.message)
            return redirect("lobby")
    return redirect("table", table_id=table.pk)


@player_required
def hand_history(request):
    """The player's hands, newest first, a page at a time by cursor (``before=``,
    ``after=``: ``casino.keyset``); a page number of the old links reads the newest page,
    a bad cursor is a 400 page with its error."""
    try:
        before, after = page_cursors(request.GET)
        page = selectors.player_hand_page(user=request.user, limit=HISTORY_PAGE_SIZE, before=before, after=after)
    except ValidationError as error:
        return render(request, "tables/hand_history.html", {"page": None, "rows": [], "error": error}, status=400)
    rows = [
        {
            "id": hs.hand_id,
            "table": hs.hand.table.name,
            "nonce": hs.hand.nonce,
            "state": hs.hand.get_state_display(),
            "at": hs.hand.settled_at or hs.hand.opened_at,
            "seat": hs.seat_number,
            "ante": money(hs.ante),
            "jackpot": money(hs.jackpot_bet) if hs.jackpot_bet else "—",
            "decision": DECISION_LABELS.get(hs.decision, "—"),
            "hand": spoken_name(hs.cards, hs.category) if hs.hand.is_over or hs.cards else "",
            "outcome": OUTCOME_LABELS.get(hs.outcome, hs.outcome or "—"),
            "net": money(hs.net, signed=True) if hs.net is not None else "—",
            "net_sign": (hs.net > 0) - (hs.net < 0) if hs.net is not None else 0,
        }
        for hs in page.rows
    ]
    return render(request, "tables/hand_history.html", {"page": page, "rows": rows})


@login_required
def hand_detail(request, hand_id: int):
    try:
        hand = selectors.hand_get(hand_id=hand_id)
    except NotFound:
        raise Http404("No such hand.") from None
    if (
        not policy.allowed(request.user, "hand.read_any")
        and selectors.player_hand_seat(hand=hand, user=request.user) is None
    ):
        raise Http404("No such hand.")
    view = selectors.hand_view(hand=hand, viewer=request.user)
    rows = {hs.seat_number: hs for hs in hand.hand_seats.all()}
    seats = []
    for seat in view["seats"]:
        seats.append(
            {
                **seat,
                "category_text": spoken_name(seat["cards"], seat.get("category")) if seat.get("category") else "",
                "outcome_text": seat["outcome_label"] or "",
                "ante_text": money(seat["ante"]),
                "jackpot_text": money(seat["jackpot_bet"]) if parse_cents(seat["jackpot_bet"]) else "—",
                "raise_text": money(seat["raise"]) if parse_cents(seat["raise"]) else "—",
                "net_text": money(seat["net"], signed=True) if seat.get("net") is not None else "",
                "net_sign": (parse_cents(seat["net"]) > 0) - (parse_cents(seat["net"]) < 0) if seat.get("net") else 0,
                # The hand's page is a record: its words name no "you", whoever reads it.
                "explanation": seat_explanation(hand, rows[seat["seat"]], you=False),
                "card_list": _marked(seat["cards"], seat.get("winning_cards")),
            }
        )
    fair = {
        "commitment": view["commitment"],
        "serverSeed": view["server_seed"],
        "clientSeed": view["client_seed"],
        "nonce": view["nonce"],
        "seats": [{"seat": s["seat"], "cards": s["cards"]} for s in view["seats"]],
        "dealer": view["dealer"]["cards"],
    }
    return render(
        request,
        "tables/hand_detail.html",
        {
            "hand": view,
            "state_label": hand.get_state_display(),  # "Settled", "Abgerechnet": the state in the reader's words
            "table_name": hand.table.name,
            "seats": seats,
            "dealer_label": spoken_name(view["dealer"]["cards"], view["dealer"]["category"]),
            "dealer_cards": _marked(view["dealer"]["cards"], view["dealer"].get("winning_cards")),
            "fair": fair,
            "is_over": hand.is_over,
        },
    )
