"""The cost of a Caribbean dealer step, bounded: the statements one step sends (bench/README.md).

On PostgreSQL a step reads with one call of its read function (the table's lock, the
hand's, the money's, and what it reads with them: ``tables.locks``), then writes its rows
and its postings with the ORM, inside BEGIN/COMMIT. More statements than the bounds here
is a regression of the tables' hot path; what they do is held by the hand-flow, ledger
and concurrency tests.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jackpot.selectors import ledger_total
from tables.models import HandSeat
from tables.services.hands import hand_bet, hand_decide
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from wallets.models import Transaction
from wallets.selectors import WalletBalances, wallet_balances

pytestmark = pytest.mark.django_db

_FRAME = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")


def _statements(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"].split(None, 1)[0].upper() not in _FRAME]


_WRITES = ("ledger_insert(", "caribbean_hand_write(")  # functions called by a SELECT that write


def _reads(queries) -> list[str]:
    return [
        sql
        for sql in _statements(queries)
        if sql.lstrip().upper().startswith("SELECT")
        and not sql.startswith(tuple(f"SELECT {write}" for write in _WRITES))
    ]


def test_a_bet_and_a_decision_read_once_and_write_their_rows_and_postings(table, make_player):
    require_postgres()
    players = [make_player(balance=10_000) for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    with CaptureQueriesContext(connection) as bet:
        seat = hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=False)
    # the read; the hand's change, the new seat, the bet's transaction and its legs
    assert len(_statements(bet)) <= 5, [sql[:80] for sql in _statements(bet)]
    assert len(_reads(bet)) == 1 and "caribbean_live_hand_lock" in _reads(bet)[0]
    assert wallet_balances(user=players[0]).available == 10_000 - 300

    hand_bet(user=players[1], table_id=table.pk, ante=100, jackpot=False)  # deals
    with CaptureQueriesContext(connection) as fold:
        hand_decide(user=players[0], hand_id=seat.hand_id, action="fold")
    # the read; the hand, the seat, the release's transaction and its legs
    assert len(_statements(fold)) <= 5, [sql[:80] for sql in _statements(fold)]
    assert len(_reads(fold)) == 1 and "caribbean_hand_lock" in _reads(fold)[0]
    assert wallet_balances(user=players[0]).available == 10_000 - 100  # the held raise came back
    release = Transaction.objects.get(idempotency_key=f"hand:{seat.hand_id}:seat:{seat.seat_number}:release")
    assert release.kind == Transaction.Kind.HOLD_RELEASE and release.legs.count() == 2
    assert HandSeat.objects.get(pk=seat.pk).decision == HandSeat.Decision.FOLD
    assert ledger_total() == 0


def test_the_deal_and_the_settlement_are_bounded_by_their_seats(table, make_player):
    """The bet that deals writes every seat's cards and takes the jackpot bets (the pool's
    shared accounts locked last); the decision that settles writes every seat's result and
    opens the next hand. Neither reads the hand again."""
    require_postgres()
    players = [make_player(balance=10_000) for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=True)
    with CaptureQueriesContext(connection) as deal:
        seat = hand_bet(user=players[1], table_id=table.pk, ante=100, jackpot=True)
    # the read; the hand, a seat, the new seat, the bet; the pool's accounts, the contribution
    assert len(_statements(deal)) <= 10, [sql[:80] for sql in _statements(deal)]
    assert sum('tables_hand"' in sql and sql.startswith("SELECT") for sql in _statements(deal)) == 0
    hand_decide(user=players[0], hand_id=seat.hand_id, action="fold")
    prizes = Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_PRIZE).count()
    with CaptureQueriesContext(connection) as settle:
        hand_decide(user=players[1], hand_id=seat.hand_id, action="raise")
    if Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_PRIZE).count() == prizes:  # no prize (almost always)
        # the read; the postings (transactions, legs); the hand, two seats; the table's nonce, the next hand
        assert len(_statements(settle)) <= 8, [sql[:80] for sql in _statements(settle)]
    for player in players:  # each wallet moved by its seat's net, nothing left in play
        hand_seat = HandSeat.objects.get(hand_id=seat.hand_id, player=player)
        assert hand_seat.outcome
        assert wallet_balances(user=player) == WalletBalances(available=10_000 + hand_seat.net, in_play=0)
    assert table.hands.live().count() == 1  # the next hand is open
    assert ledger_total() == 0


def _dealt_with_one_decision_left(table, make_player):
    """Two players, both bet (no jackpot chip), the first folded: the second's decision settles."""
    players = [make_player(balance=10_000) for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    for player in players:
        seat = hand_bet(user=player, table_id=table.pk, ante=100, jackpot=False)
    hand_decide(user=players[0], hand_id=seat.hand_id, action="fold")
    return players, seat


@pytest.fixture
def sent(monkeypatch) -> list:
    """What the steps' outboxes send, (group, events) by group, instead of sending it."""
    from casino.live import outbox

    sent = []

    async def keep(layer, messages):
        sent.extend(messages)

    monkeypatch.setattr(outbox, "_send_batch", keep)
    return sent


def test_a_settlement_s_public_event_is_built_from_what_its_step_read(
    table, make_player, sent, django_capture_on_commit_callbacks
):
    """The whole result goes to the table after the commit, with every player's name: the
    names came with the decision's one read, so building it reads nothing more."""
    require_postgres()
    players, seat = _dealt_with_one_decision_left(table, make_player)
    with CaptureQueriesContext(connection) as settle, django_capture_on_commit_callbacks(execute=True):
        hand_decide(user=players[1], hand_id=seat.hand_id, action="raise")
    # its read, the table's rules and whether anybody still sits (for the next hand): the
    # hand, its seats and the players' names are not read again for the event
    reads = _reads(settle)
    assert len(reads) <= 3 and not [sql for sql in reads[1:] if "tables_hand" in sql or "auth_user" in sql], reads
    settled = [e for _, events in sent for e in events if e.get("kind") == "hand.settled"]
    assert len(settled) == 1
    assert [s["player"] for s in settled[0]["result"]["seats"]] == [p.username for p in players]
