"""What the auditors read of the players: search, and a player's money and last hands
(Caribbean and poker).

Staff-only composition over the apps' own readers; the ledger is read in
``wallets.selectors``, a Caribbean hand's recall in ``backoffice.auditor.recall`` (a poker
hand's in ``poker.audit``), the pools' history in ``jackpot.selectors`` and the reports in
``backoffice.reports``.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, Sum

from backoffice.models import PlayerDay, TableDay
from backoffice.reports import report_closed_through
from casino.access.roles import PLAYER
from casino.http.errors import NotFound
from casino.http.validation import is_ascii_digits
from jackpot.models import JackpotHit
from poker.models import PokerTable
from poker.selectors import poker_hands_of_player
from tables.models import Hand, HandSeat
from tables.selectors import table_names
from wallets.models import Account, LedgerSeal, Transaction
from wallets.selectors import day_start, wallet_balances

User = get_user_model()

RECENT_HANDS = 10


def player_find(*, text: str):
    """A player by id (digits) or username (case-insensitive); None if there is none."""
    text = (text or "").strip()
    if not text:
        return None
    players = User.objects.filter(groups__name=PLAYER)
    if is_ascii_digits(text):
        found = players.filter(pk=int(text)).first()
        if found is not None:
            return found
    return players.filter(username__iexact=text).first()


def player_search(*, query: str, limit: int = 50) -> list:
    """Players whose username contains ``query`` (or whose id it is), by username."""
    query = (query or "").strip()
    players = User.objects.filter(groups__name=PLAYER)
    if not query:
        return list(players.order_by("username")[:limit])
    match = Q(username__icontains=query)
    if is_ascii_digits(query):
        match |= Q(pk=int(query))
    return list(players.filter(match).distinct().order_by("username")[:limit])  # the trigram index (casino 0005)


def player_get(*, user_id: int):
    player = User.objects.filter(pk=user_id, groups__name=PLAYER).first()
    if player is None:
        raise NotFound("No such player.", code="player_not_found")
    return player


def player_poker_hands(*, player) -> list[dict]:
    """The player's last ``RECENT_HANDS`` settled poker hands, each with the player's seat
    and net result (cents)."""
    return [
        {"hand": played.hand, "seat": played.seat, "net": played.net}
        for played in poker_hands_of_player(user=player)[:RECENT_HANDS]
    ]


def player_totals(*, player) -> dict:
    """The player's settled Caribbean hands, net result and jackpot wins over the whole
    history: the closed days' ``PlayerDay`` rollups plus the hands settled since (read on
    the player's history index from the open day on)."""
    last = report_closed_through()
    totals = {"hands": 0, "net": 0, "jackpot_wins": 0}
    if last is not None:
        rolled = PlayerDay.objects.filter(player=player, day__lte=last).aggregate(
            hands=Sum("hands"), net=Sum("net"), wins=Sum("jackpot_wins")
        )
        totals = {"hands": rolled["hands"] or 0, "net": rolled["net"] or 0, "jackpot_wins": rolled["wins"] or 0}
    open_seats = HandSeat.objects.filter(player=player, hand__state=Hand.State.SETTLED)
    if last is not None:
        since = day_start(last + timedelta(days=1))
        open_seats = open_seats.filter(history_at__gte=since, hand__settled_at__gte=since)
    live = open_seats.aggregate(hands=Count("id"), net=Sum("net"), wins=Sum("jackpot_win"))
    return {
        "hands": totals["hands"] + (live["hands"] or 0),
        "net": totals["net"] + (live["net"] or 0),
        "jackpot_wins": totals["jackpot_wins"] + (live["wins"] or 0),
    }


def player_summary(*, player) -> dict:
    """A player's money (at poker tables too), accounts, Caribbean hands played and their
    last ``RECENT_HANDS`` Caribbean and poker hands."""
    balances = wallet_balances(user=player)
    accounts = list(Account.objects.filter(owner=player).order_by("id"))
    hand_seats = HandSeat.objects.filter(player=player)
    totals = player_totals(player=player)
    recent = list(hand_seats.select_related("hand", "hand__table").order_by("-hand_id")[:RECENT_HANDS])
    return {
        "player": player,
        "available": balances.available,
        "in_play": balances.in_play,
        "at_poker": sum(a.balance for a in accounts if a.kind == Account.Kind.POKER_STACK),
        "accounts": accounts,
        "hands_played": totals["hands"] or 0,
        "net": totals["net"] or 0,
        "jackpot_wins": totals["jackpot_wins"] or 0,
        "jackpot_hits": list(JackpotHit.objects.filter(player=player).select_related("pool")[:RECENT_HANDS]),
        "recent": recent,
        "poker_recent": player_poker_hands(player=player),
    }


def history_sizes() -> dict:
    """How long the history is, read by key and from the rollups (counting every row took
    longer with every day): ``sealed``, the transactions in the hash chain (the newest
    seal's number); ``hands``, the settled Caribbean hands (the closed days' rollups plus
    the hands settled since)."""
    last = report_closed_through()
    hands = Hand.objects.filter(state=Hand.State.SETTLED)
    closed = 0
    if last is not None:
        closed = TableDay.objects.filter(day__lte=last).aggregate(n=Sum("hands"))["n"] or 0
        hands = hands.filter(settled_at__gte=day_start(last + timedelta(days=1)))
    return {
        "sealed": LedgerSeal.objects.order_by("-seq").values_list("seq", flat=True).first() or 0,
        "hands": closed + hands.count(),
    }


def transaction_table_names(transactions) -> dict[int, str]:
    """The name of each transaction's table, by transaction id: a Caribbean table's or a
    poker table's, as the transaction's game says (the two games number theirs apart)."""
    transactions = [t for t in transactions if t.game and t.table_ref is not None]

    def ids(game):
        return {t.table_ref for t in transactions if t.game == game}

    pokers = ids(Transaction.Game.POKER)
    names = {
        Transaction.Game.CARIBBEAN: table_names(ids(Transaction.Game.CARIBBEAN)),
        Transaction.Game.POKER: dict(PokerTable.objects.filter(pk__in=pokers).values_list("pk", "name"))
        if pokers
        else {},
    }
    return {t.pk: names[t.game][t.table_ref] for t in transactions if t.table_ref in names[t.game]}
