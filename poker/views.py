"""The player's poker pages: the lobby's poker tables, the live table, hand history.

Thin, as ``tables/views.py``: each view parses input, checks the role, calls one service
or selector of ``poker`` and renders. The live table is drawn in the browser
(``static/js/poker.js``) from the same snapshot the websocket sends,
``poker.selectors.poker_table_view``; the server renders its first state so that the page
is complete (and readable without JavaScript) before the socket connects.

The seat controls (buy in, top up, sit out / in, leave, the waiting list) are plain
forms posting here; the page sends them over the socket instead while it is live.

"My tables" tiles up to four of the player's own tables, each the table page drawn
compact (``poker_table_tile``) in a frame of its own with its own socket.

Who sees what:
- lobby and table pages: anyone signed in (staff may watch); only players get controls;
- a table's snapshot is ``poker_table_view(table, user)``: a player's own down cards
  reach that player alone, everybody else's only once shown at showdown;
- hand history and its PokerStars text: the hand's own players only (their hole cards
  and what was shown, ``poker_hand_for_player``); anyone else gets 404.
"""

from __future__ import annotations

import json

from csp.decorators import csp_replace
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_POST

from casino.access import policy
from casino.access.policy import player_required
from casino.cents import parse_cents
from casino.http.errors import ApplicationError, ValidationError
from casino.keyset import page_cursors
from casino.money import currency_symbol, money, to_cents
from poker import demo_bots, notes, selectors, services
from poker.models import GAME_LABELS, PokerHand, PokerNote, PokerTable
from poker.presentation import named_view, shown_hand_name, street_title

HISTORY_PAGE_SIZE = 25


ACTION_WORDS = {
    "ante": gettext_lazy("posts the ante"),
    "bring_in": gettext_lazy("brings in for"),
    "complete": gettext_lazy("completes to"),
    "bet": gettext_lazy("bets"),
    "raise": gettext_lazy("raises to"),
    "call": gettext_lazy("calls"),
    "check": gettext_lazy("checks"),
    "fold": gettext_lazy("folds"),
    "all_in": gettext_lazy("is all in for"),
    "timeout_check": gettext_lazy("checks (time ran out)"),
    "timeout_fold": gettext_lazy("folds (time ran out)"),
    "timeout_all_in": gettext_lazy("is all in for what is in (time ran out)"),
}
SIZED_TO = frozenset({"complete", "raise"})


# --- words ----------------------------------------------------------------------------


def stakes_text(head: dict) -> str:
    """A table head's stakes in words: "€2.00/€4.00 fixed limit", "€1.00–€5.00 spread limit"."""
    if head.get("structure") == "spread":
        return gettext("%(low)s–%(high)s spread limit") % {
            "low": money(parse_cents(head["min_bet"])),
            "high": money(parse_cents(head["max_bet"])),
        }
    return gettext("%(small)s/%(big)s fixed limit") % {
        "small": money(parse_cents(head["small_bet"])),
        "big": money(parse_cents(head["big_bet"])),
    }


def _rake_text(table: PokerTable) -> str:
    """The table's rake rule in words, from its configuration (never written by hand)."""
    rule = table.config.get("rake_rule") or {}
    if not rule:
        return gettext("No rake at this table.")
    percent = (
        str(rule.get("percent", "0")).rstrip("0").rstrip(".")
        if "." in str(rule.get("percent", "0"))
        else str(rule.get("percent", "0"))
    )
    cap = money(parse_cents(rule.get("cap", "0")))
    if rule.get("no_first_round"):
        return gettext(
            "Rake: %(percent)s %% of the pot, rounded down to the cent, at most %(cap)s a hand; none when the hand "
            "ends in the first betting round; never on an uncalled bet."
        ) % {"percent": percent, "cap": cap}
    return gettext(
        "Rake: %(percent)s %% of the pot, rounded down to the cent, at most %(cap)s a hand; never on an uncalled bet."
    ) % {"percent": percent, "cap": cap}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


# --- pages ------------------------------------------------------------------------------


def _table_or_404(table_id: int) -> PokerTable:
    try:
        return PokerTable.objects.get(pk=table_id)
    except PokerTable.DoesNotExist:
        raise Http404("No such table.") from None


@login_required
def poker_lobby(request):
    """Every poker table: game, stakes, buy-in, players/seats, waiting list, average pot, hands per hour."""
    rows = lobby_rows(request.user)
    return render(
        request,
        "poker/lobby.html",
        {
            "poker_tables": rows,
            "is_player": policy.allowed(request.user, "play"),
            "my_tables_count": sum(row["you_sit"] for row in rows),
        },
    )


def lobby_rows(user) -> list[dict]:
    """The lobby's poker rows, with the viewer's own seat marked (also used by the main lobby)."""
    mine = set(user.poker_seats.values_list("table_id", flat=True)) if policy.allowed(user, "play") else set()
    rows = []
    for row in selectors.poker_lobby_rows():
        row = dict(row)
        row["you_sit"] = row["id"] in mine
        row["stakes_text"] = stakes_text(row)
        rows.append(row)
    return rows


def _after_words(delay) -> str:
    """A delay in words ("1 day", "2 hours"), empty for none."""
    start = timezone.now()
    return timesince(start, start + delay) if delay else ""


@login_required
def poker_table_page(request, table_id: int):
    return _table_page(request, table_id, tile=False)


@login_required
@xframe_options_sameorigin
@csp_replace({"frame-ancestors": ["'self'"]})
def poker_table_tile(request, table_id: int):
    """The live table drawn compact, for a tile of "My tables" (``poker_my_tables``): the
    same table page without the site's header, footer and side panels, which this site's
    own pages alone may frame (every other page refuses any frame)."""
    return _table_page(request, table_id, tile=True)


def _table_page(request, table_id: int, *, tile: bool):
    table = _table_or_404(table_id)
    is_player = policy.allowed(request.user, "play")
    view = named_view(selectors.poker_table_view(table=table, user=request.user))
    seats = view["seats"]
    hand = view.get("hand")
    shown = (
        {e["seat"]: e for e in (hand or {}).get("showdown") or () if e.get("shown")}
        if hand and hand.get("is_over")
        else {}
    )
    bots = set(demo_bots.bot_names(table_id=table.pk))
    seat_list = []
    for seat in seats:
        entry = dict(seat)
        entry["is_bot"] = bool(seat.get("player")) and seat["player"] in bots
        entry["shown"] = shown.get(seat["seat"])
        down = list(seat.get("down") or [])
        entry["down_cards"] = [down[i] if i < len(down) else None for i in range(seat.get("down_count") or 0)]
        seat_list.append(entry)
    config = {
        "table": table.pk,
        "username": request.user.get_username(),
        "isPlayer": is_player,
        "wsPath": f"/ws/poker/{table.pk}/",
        "snapshotUrl": reverse("poker-table-state", args=[table.pk]),
        "actUrl": reverse("poker-table-act", args=[table.pk]),
        "preactUrl": reverse("poker-table-preact", args=[table.pk]),
        "handPage": reverse("poker-hand", args=[0]),
        "currencySymbol": currency_symbol(),
    }
    you = view.get("you")
    others = [s["player"] for s in seats if s.get("player") and not s.get("is_you")]
    seated = [s for s in seat_list if s.get("player")]
    if tile:
        config["tile"] = True
    return render(
        request,
        "poker/table.html",
        {
            "table": table,
            "view": view,
            "seat_list": seat_list,
            "you": you,
            "hand": hand,
            "config": config,
            "is_player": is_player,
            "stakes": stakes_text(view["table"]),
            "rake_text": _rake_text(table),
            "game_label": GAME_LABELS.get(table.game, table.game),
            "free_seat": any(not s.get("player") for s in seats),
            # The demo's regulars play only beside somebody else (poker.demo_bots): the felt says so.
            "regulars_wait": bool(seated) and all(s["is_bot"] for s in seated),
            "waiting": request.user.get_username() in (view.get("waiting_list") or []),
            "seed_reveal_after": _after_words(settings.POKER_SEED_REVEAL_DELAY),
            "note_rows": note_rows(request.user, others) if is_player and not tile else [],
            "note_back": f"table:{table.pk}",
            "note_colour_choices": PokerNote.Colour.choices,
            "seat_marks": {
                "notes": notes.notes_by_name(author=request.user, names=others) if is_player else {},
                "bots": sorted(bots),
            },
            "tile": tile,
            "my_tables_count": request.user.poker_seats.count() if is_player else 0,
        },
    )


MY_TABLES_TILED = 4  # tables tiled at once on "My tables" (as PokerStars caps them)


@player_required
def poker_my_tables(request):
    """The player's own tables, up to four tiled (each its live table page, compact, in a
    frame on its own socket); the page brings the table waiting for the player to the
    fore (``static/js/poker_tiles.js``). The tables beyond four are named with links."""
    tables = [
        {**head, "stakes_text": stakes_text(head)} for head in selectors.poker_tables_of_player(user=request.user)
    ]
    return render(
        request,
        "poker/my_tables.html",
        {"tiles": tables[:MY_TABLES_TILED], "others": tables[MY_TABLES_TILED:], "tiled_max": MY_TABLES_TILED},
    )


@login_required
@require_GET
def poker_table_state(request, table_id: int):
    """The snapshot as JSON, for the page while its socket is down."""
    table = _table_or_404(table_id)
    return JsonResponse(named_view(selectors.poker_table_view(table=table, user=request.user)))


def _hand_request(request, table_id: int, play, *, kind_required: bool = False) -> JsonResponse:
    """A JSON request on the hand at the table, for the page while its socket is down:
    ``{"hand_id", "amount"?, …}`` (``amount`` a decimal string) -> ``play(table, body,
    hand_id, cents)``, then the new snapshot; a refusal -> ``{"code", "message", "extra"}``
    and nothing changes."""
    table = _table_or_404(table_id)
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        body = None
    try:
        if not isinstance(body, dict):
            raise ValidationError("Send a JSON object.", code="malformed")
        hand_id = body.get("hand_id")
        if isinstance(hand_id, bool) or not isinstance(hand_id, int):
            raise ValidationError("Name the hand: hand_id.", code="hand_id_invalid")
        if kind_required and "kind" not in body:
            raise ValidationError("Say which box: kind (null clears it).", code="kind_required")
        amount = body.get("amount")
        cents = to_cents(amount, field="amount") if amount is not None else None
        play(table, body, hand_id, cents)
    except ApplicationError as error:
        return JsonResponse({"code": error.code, "message": error.message, "extra": error.extra}, status=error.status)
    return JsonResponse(named_view(selectors.poker_table_view(table=table, user=request.user)))


@player_required
@require_POST
def poker_table_act(request, table_id: int):
    """The player's action: ``{"hand_id", "kind", "amount"?}`` (``amount`` the street total)."""

    def play(table, body, hand_id, cents):
        services.poker_act(user=request.user, table_id=table.pk, hand_id=hand_id, action=body.get("kind"), amount=cents)

    return _hand_request(request, table_id, play)


@player_required
@require_POST
def poker_table_preact(request, table_id: int):
    """The player's pre-action: ``{"hand_id", "kind" (or null), "amount"?}``."""

    def play(table, body, hand_id, cents):
        services.poker_preact(user=request.user, table_id=table.pk, hand_id=hand_id, kind=body["kind"], amount=cents)

    return _hand_request(request, table_id, play, kind_required=True)


def _seat_action(request, table_id: int, call, done: str):
    table = _table_or_404(table_id)
    try:
        call(table)
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        if done:
            messages.success(request, done)
    return redirect("poker-table", table_id=table.pk)


@player_required
@require_POST
def poker_sit(request, table_id: int):
    """Buy in: the table's buy-in from the wallet to a stack in the chosen (or lowest free) seat."""
    seat_text = request.POST.get("seat", "").strip()
    seat_number = None
    if seat_text:
        if not seat_text.isdigit():
            messages.error(request, gettext("Choose a seat by its number."))
            return redirect("poker-table", table_id=table_id)
        seat_number = int(seat_text)
    client_seed = request.POST.get("client_seed", "").strip() or None
    return _seat_action(
        request,
        table_id,
        lambda t: services.poker_sit(
            user=request.user, table_id=t.pk, seat_number=seat_number, client_seed=client_seed
        ),
        gettext("You bought in: your stack is on the table."),
    )


@player_required
@require_POST
def poker_top_up(request, table_id: int):
    return _seat_action(
        request,
        table_id,
        lambda t: services.poker_top_up(user=request.user, table_id=t.pk),
        gettext("Your stack is topped up to the buy-in."),
    )


@player_required
@require_POST
def poker_sit_out(request, table_id: int):
    return _seat_action(
        request,
        table_id,
        lambda t: services.poker_sit_out(user=request.user, table_id=t.pk),
        gettext("You sit out from the next hand."),
    )


@player_required
@require_POST
def poker_sit_in(request, table_id: int):
    return _seat_action(
        request,
        table_id,
        lambda t: services.poker_sit_in(user=request.user, table_id=t.pk),
        gettext("You are dealt in from the next hand."),
    )


@player_required
@require_POST
def poker_leave(request, table_id: int):
    table = _table_or_404(table_id)
    try:
        seat = services.poker_leave(user=request.user, table_id=table.pk)
    except ApplicationError as error:
        messages.error(request, error.message)
        return redirect("poker-table", table_id=table.pk)
    if seat is not None and getattr(seat, "leave_after_hand", False):
        messages.success(request, gettext("You leave when this hand ends; your stack goes back to your wallet then."))
        return redirect("poker-table", table_id=table.pk)
    messages.success(request, gettext("You left the table: your stack is back in your wallet."))
    return redirect("lobby")


@player_required
@require_POST
def poker_waitlist(request, table_id: int):
    join = request.POST.get("join", "1") != "0"
    call = services.poker_waitlist_join if join else services.poker_waitlist_leave
    done = (
        gettext("You are on the waiting list: you get the next free seat.")
        if join
        else gettext("You left the waiting list.")
    )
    return _seat_action(request, table_id, lambda t: call(user=request.user, table_id=t.pk), done)


# --- hand history -------------------------------------------------------------------------


@player_required
def poker_hand_history(request):
    """The player's poker hands, newest first, a page at a time by cursor (``before=``,
    ``after=``: ``casino.keyset``); a page number of the old links reads the newest page,
    a bad cursor is a 400 page with its error."""
    try:
        before, after = page_cursors(request.GET)
        page = selectors.poker_hand_page(user=request.user, limit=HISTORY_PAGE_SIZE, before=before, after=after)
    except ValidationError as error:
        return render(request, "poker/hand_history.html", {"page": None, "rows": [], "error": error}, status=400)
    rows = []
    for played in page.rows:
        hand = played.hand
        rows.append(
            {
                "id": hand.pk,
                "table": hand.table.name,
                "game": GAME_LABELS.get(hand.table.game, hand.table.game),
                "at": played.ended_at,
                "state": hand.get_state_display(),
                "state_code": hand.state,
                "pot": money(hand.pot_total),
                "net": money(played.net, signed=True),
                "net_sign": (played.net > 0) - (played.net < 0),
                "seed_revealed_at": selectors.poker_seed_revealed_at(hand=hand),
            }
        )
    return render(request, "poker/hand_history.html", {"rows": rows, "page": page, "now": timezone.now()})


def _player_hand_or_404(request, hand_id: int) -> tuple[PokerHand, int]:
    hand = PokerHand.objects.select_related("table").filter(pk=hand_id).first()
    seat = selectors.poker_seat_of(hand=hand, user=request.user) if hand is not None else None
    if hand is None or seat is None:
        raise Http404("No such hand.")
    return hand, seat


def hand_streets(view: dict, *, names: dict[int, str], game: str) -> list[dict]:
    """The hand street by street: each deal (card or face down), each action in words."""
    streets: list[dict] = []
    current = None

    def street(number):
        nonlocal current
        if current is None or current["number"] != number:
            current = {
                "number": number,
                "title": street_title(game, number),
                "lines": [],
                "deals": {},
            }
            streets.append(current)
        return current

    for event in view.get("events") or ():
        kind = event.get("type")
        if kind == "deal":
            st = street(event["street"])
            st["deals"].setdefault(event["seat"], []).append({"code": event.get("card"), "up": event.get("up")})
        elif kind == "action":
            st = street(event.get("street") or (current["number"] if current else 0))
            action = event["action"]
            amount = event.get("to") if action in SIZED_TO else event.get("amount")
            words = ACTION_WORDS.get(action, action)
            if action in ("check", "fold", "timeout_check", "timeout_fold", "timeout_all_in"):
                text = f"{names.get(event['seat'], event['seat'])} {words}"
            else:
                text = f"{names.get(event['seat'], event['seat'])} {words} {money(parse_cents(amount))}"
            st["lines"].append(text)
        elif kind == "return":
            if current:
                current["lines"].append(
                    gettext("Uncalled %(amount)s returned to %(name)s")
                    % {"amount": money(parse_cents(event["amount"])), "name": names.get(event["seat"], event["seat"])}
                )
        elif kind == "community" and current:
            current["lines"].append(
                gettext("Community card %(card)s: every player's seventh card") % {"card": event["card"]}
            )
    for st in streets:
        st["deal_rows"] = [
            {"seat": s, "player": names.get(s, s), "cards": cards} for s, cards in sorted(st.pop("deals").items())
        ]
    return streets


def deck_positions(view: dict) -> list[dict]:
    """Each card this player saw with its place in the deck (deals and burns take the deck
    in order, SPEC B2), for the browser to check against the recomputed deck; stops at a
    deck-exhaustion reshuffle, whose pool continues the stream differently."""
    out: list[dict] = []
    pos = 0
    for event in view.get("events") or ():
        kind = event.get("type")
        if kind == "reshuffle":
            break
        if kind in ("deal", "burn"):
            if event.get("card"):
                out.append({"pos": pos, "card": event["card"], "seat": event.get("seat"), "up": event.get("up")})
            pos += 1
    return out


@player_required
def poker_hand_detail(request, hand_id: int):
    hand, seat = _player_hand_or_404(request, hand_id)
    view = selectors.poker_hand_record_for(hand=hand, user=request.user)
    names = {int(s["seat"]): s["player"] for s in hand.seats}
    over = hand.state != PokerHand.State.LIVE
    shown = []
    for entry in view.get("showdown") or ():
        shown.append(
            {
                "seat": entry["seat"],
                "player": names.get(entry["seat"], entry["seat"]),
                "shown": entry.get("shown"),
                "cards": entry.get("cards") or [],
                "best_five": entry.get("best_five") or [],
                "name": _capital(shown_hand_name(entry.get("category"), entry.get("best_five")))
                if entry.get("shown")
                else "",
            }
        )
    pots = []
    for index, pot in enumerate(view.get("pots") or ()):
        pots.append(
            {
                "label": gettext("Main pot") if index == 0 else gettext("Side pot %(number)s") % {"number": index},
                "amount": money(parse_cents(pot["amount"])),
                "rake": money(parse_cents(pot.get("rake"))) if parse_cents(pot.get("rake")) else "",
                "shares": [
                    {"player": names.get(int(s), s), "amount": money(parse_cents(a))}
                    for s, a in (pot.get("shares") or {}).items()
                ],
            }
        )
    net = view.get("net") or {}
    results = [
        {
            "seat": s,
            "player": names[s],
            "is_you": s == seat,
            "net": money(parse_cents(net.get(str(s))), signed=True) if str(s) in net else "—",
            "net_sign": (parse_cents(net.get(str(s))) > 0) - (parse_cents(net.get(str(s))) < 0)
            if net.get(str(s))
            else 0,
        }
        for s in sorted(names)
    ]
    revealed_at = view.get("seed_revealed_at")
    fair = {
        "commitment": view.get("commitment") or hand.commitment,
        "serverSeed": view.get("server_seed") if over else None,  # None until revealed (SPEC B4)
        "clientSeed": view.get("client_seed"),
        "nonce": view.get("nonce", hand.number),
        "cards": deck_positions(view) if over else [],
        "fromSeeds": bool(view.get("dealt_from_seeds", True)),
    }
    return render(
        request,
        "poker/hand_detail.html",
        {
            "hand": hand,
            "view": view,
            "you_seat": seat,
            "game_label": GAME_LABELS.get(hand.table.game, hand.table.game),
            "streets": hand_streets(view, names=names, game=hand.table.game),
            "shown": shown,
            "pots": pots,
            "rake": money(parse_cents(view.get("rake"))),
            "results": results,
            "fair": fair,
            "seed_revealed_at": revealed_at,
            "seed_reveal_after": _after_words(settings.POKER_SEED_REVEAL_DELAY),
            "is_over": over,
            "note_rows": note_rows(request.user, [names[s] for s in sorted(names) if s != seat]),
            "note_back": f"hand:{hand.pk}",
            "note_colour_choices": PokerNote.Colour.choices,
        },
    )


@player_required
def poker_hand_pokerstars(request, hand_id: int):
    """The hand in PokerStars' hand-history text, as this player saw it (their own down
    cards and what was shown), for tracking tools."""
    hand, seat = _player_hand_or_404(request, hand_id)
    if hand.state != PokerHand.State.ENDED or not hand.record:
        raise Http404("The hand history is ready once the hand is over.")
    text = selectors.poker_hand_pokerstars(hand=hand, user=request.user)
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="poker-hand-{hand.pk}.txt"'
    return response


# --- notes on other players -------------------------------------------------------------------


def note_rows(user, names: list[str]) -> list[dict]:
    """The players named, each with the viewer's own note on them (or none), for the notes panel."""
    by_name = notes.notes_by_name(author=user, names=names)
    labels = dict(PokerNote.Colour.choices)
    rows = [{"player": name, "note": by_name.get(name)} for name in dict.fromkeys(names)]
    for row in rows:
        row["colour_label"] = labels.get((row["note"] or {}).get("colour") or "", "")
    return rows


@player_required
@require_POST
def poker_note(request):
    """Save the viewer's note and colour tag on a player (the notes panel of a table or a
    hand), then back to that page; ``back`` is ``table:<id>`` or ``hand:<id>``."""
    name = request.POST.get("player", "")
    try:
        note = notes.poker_note_set(
            author=request.user, name=name, text=request.POST.get("text", ""), colour=request.POST.get("colour", "")
        )
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            gettext("Your note on %(player)s is saved.") % {"player": name}
            if note
            else gettext("Your note on %(player)s is removed.") % {"player": name},
        )
    kind, _, pk = request.POST.get("back", "").partition(":")
    if kind == "table" and pk.isascii() and pk.isdigit():
        return redirect("poker-table", table_id=int(pk))
    if kind == "hand" and pk.isascii() and pk.isdigit():
        return redirect("poker-hand", hand_id=int(pk))
    return redirect("poker-lobby")


# --- the hand replayer -----------------------------------------------------------------------


@login_required
def poker_hand_replay(request, hand_id: int):
    """A settled hand replayed street by street and action by action from its record
    (``static/js/replayer.js``): a player's own hand as they saw it (their down cards, and
    the others' only as shown at the showdown), any hand for the auditor (every card)."""
    hand = PokerHand.objects.select_related("table").filter(pk=hand_id).first()
    seat = selectors.poker_seat_of(hand=hand, user=request.user) if hand is not None else None
    auditor = policy.allowed(request.user, "hand.read_any")
    if hand is None or (seat is None and not auditor):
        raise Http404("No such hand.")
    if hand.state != PokerHand.State.ENDED or not hand.record:
        raise Http404("A hand is replayed once it is over.")
    if seat is not None:
        record = selectors.poker_hand_record_for(hand=hand, user=request.user)
        record = {**record, "seed_revealed_at": None}  # not drawn; a datetime is not JSON
    else:
        record = dict(hand.record)
    record.pop("deck", None)
    data = {"record": record, "symbol": currency_symbol(), "viewerSeat": seat, "auditor": seat is None}
    return render(
        request,
        "poker/replay.html",
        {
            "hand": hand,
            "data": data,
            "game_label": GAME_LABELS.get(hand.table.game, hand.table.game),
            "is_auditor_view": seat is None,
        },
    )
