"""The cost of a Caribbean dealer step, pinned: the SQL one step runs (bench/README.md).

On PostgreSQL a bet that does not deal and a decision that does not settle are each: the
table's lock; one read of the hand, its seats and the money, locked (a bet: also the
table's seats and the player's stake facts); one statement of the hand's change and the
step's posting; inside BEGIN/COMMIT. As deployed (no test's transaction around the step)
the lock and the read go with the BEGIN, in one round trip (``casino.db.opening_message``),
and the write with the COMMIT (``casino.db.commit_held``): a step is two round trips.
More statements than that is a regression of the tables' hot path; what they do is held
by the hand-flow, ledger and concurrency tests.
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

STEP_SQL = ["SELECT", "SELECT", "WITH"]  # between BEGIN and COMMIT (a savepoint in a test's transaction)
_FRAME = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")


def _statements(queries) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"].split(None, 1)[0].upper() not in _FRAME]


def _verbs(queries) -> list[str]:
    return [sql.split(None, 1)[0].upper() for sql in _statements(queries)]


def test_a_bet_and_a_decision_are_each_three_statements_and_their_commit(table, make_player):
    require_postgres()
    players = [make_player(balance=10_000) for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    with CaptureQueriesContext(connection) as bet:
        seat = hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=False)
    statements = _statements(bet)
    assert _verbs(bet) == STEP_SQL, [sql[:80] for sql in statements]
    assert "wallets_account" in statements[1] and "wallets_playerprotection" in statements[1]
    assert "wallets_leg" in statements[2] and "tables_handseat" in statements[2]
    assert wallet_balances(user=players[0]).available == 10_000 - 300

    hand_bet(user=players[1], table_id=table.pk, ante=100, jackpot=False)  # deals
    with CaptureQueriesContext(connection) as fold:
        hand_decide(user=players[0], hand_id=seat.hand_id, action="fold")
    assert _verbs(fold) == STEP_SQL, [sql[:80] for sql in _statements(fold)]
    assert wallet_balances(user=players[0]).available == 10_000 - 100  # the held raise came back
    release = Transaction.objects.get(idempotency_key=f"hand:{seat.hand_id}:seat:{seat.seat_number}:release")
    assert release.kind == Transaction.Kind.HOLD_RELEASE and release.legs.count() == 2
    assert HandSeat.objects.get(pk=seat.pk).decision == HandSeat.Decision.FOLD
    assert ledger_total() == 0


def test_the_deal_and_the_settlement_read_the_table_s_rules_and_seats_with_the_hand(table, make_player):
    """The bet that deals: the table's lock, the one read, the bet and the deal in one
    write, then the jackpot's shared accounts and their posting (last, so that the meter
    is held the shortest time). The decision that settles with no jackpot prize: the
    lock, the read, the settlement's postings and the hand's change in one write, the
    next hand with the table's nonce in one more."""
    require_postgres()
    players = [make_player(balance=10_000) for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=True)
    with CaptureQueriesContext(connection) as deal:
        seat = hand_bet(user=players[1], table_id=table.pk, ante=100, jackpot=True)
    assert _verbs(deal) == ["SELECT", "SELECT", "WITH", "SELECT", "WITH"], [sql[:80] for sql in _statements(deal)]
    assert "wallets_limittier" in _statements(deal)[1] and "tables_paytable" in _statements(deal)[1]
    hand_decide(user=players[0], hand_id=seat.hand_id, action="fold")
    prizes = Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_PRIZE).count()
    with CaptureQueriesContext(connection) as settle:
        hand_decide(user=players[1], hand_id=seat.hand_id, action="raise")
    if Transaction.objects.filter(kind=Transaction.Kind.JACKPOT_PRIZE).count() == prizes:  # no prize (almost always)
        assert _verbs(settle) == ["SELECT", "SELECT", "WITH", "WITH"], [sql[:80] for sql in _statements(settle)]
        assert "wallets_leg" in _statements(settle)[2] and "tables_hand" in _statements(settle)[2]
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
    assert _verbs(settle) == ["SELECT", "SELECT", "WITH", "WITH"], [sql[:80] for sql in _statements(settle)]
    settled = [e for _, events in sent for e in events if e.get("kind") == "hand.settled"]
    assert len(settled) == 1
    assert [s["player"] for s in settled[0]["result"]["seats"]] == [p.username for p in players]


@pytest.mark.django_db(transaction=True)
def test_as_deployed_a_step_is_two_round_trips_its_begin_with_its_reads_and_its_write_with_its_commit(table, make_player):
    require_postgres()
    players = [make_player(balance=10_000) for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    with CaptureQueriesContext(connection) as bet:
        seat = hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=False)
    assert seat.pk is not None  # the new seat's key, once the step committed
    hand_bet(user=players[1], table_id=table.pk, ante=100, jackpot=False)  # deals
    with CaptureQueriesContext(connection) as fold:
        hand_decide(user=players[0], hand_id=seat.hand_id, action="fold")
    for step in (bet, fold):
        # What went to PostgreSQL: no statement prepared once a session, no BEGIN that
        # Django logs at the block's start (the first message carries it).
        sent = [q["sql"] for q in step.captured_queries if q["sql"] != "BEGIN" and not q["sql"].startswith("PREPARE")]
        assert len(sent) == 2, [sql[:80] for sql in sent]
        assert sent[0].startswith("BEGIN; ") and sent[0].count("; EXECUTE casino_") == 2  # the lock, the read under it
        assert "; EXECUTE casino_" in sent[1] and sent[1].endswith("; COMMIT")  # the write, with the COMMIT
    assert wallet_balances(user=players[0]).available == 10_000 - 100
    assert HandSeat.objects.get(pk=seat.pk).decision == HandSeat.Decision.FOLD
    assert ledger_total() == 0


@pytest.mark.django_db(transaction=True)
def test_as_deployed_the_bet_that_deals_sends_its_jackpot_posting_with_its_commit(table, make_player):
    require_postgres()
    players = [make_player(balance=10_000) for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    hand_bet(user=players[0], table_id=table.pk, ante=100, jackpot=True)
    with CaptureQueriesContext(connection) as deal:
        seat = hand_bet(user=players[1], table_id=table.pk, ante=100, jackpot=True)  # deals
    sent = [q["sql"] for q in deal.captured_queries if q["sql"] != "BEGIN" and not q["sql"].startswith("PREPARE")]
    # the lock and reads with the BEGIN; the deal's write; the pool's accounts locked; the
    # jackpot bets' posting with the COMMIT
    assert len(sent) == 4 and sent[-1].endswith("; COMMIT"), [sql[:80] for sql in sent]
    contribution = Transaction.objects.get(idempotency_key=f"hand:{seat.hand_id}:jackpot_contribution")
    assert contribution.legs.count() >= 3 and ledger_total() == 0


@pytest.mark.django_db(transaction=True)
def test_as_deployed_the_decision_that_settles_sends_the_next_hand_with_its_commit(table, make_player, sent):
    """The lock and reads with the BEGIN; the settlement's write; the next hand (and the
    table's nonce) with the COMMIT: three round trips. The next hand's id, which only the
    commit gives, is in the table's hand.opened event, built after it."""
    require_postgres()
    players, seat = _dealt_with_one_decision_left(table, make_player)
    sent.clear()
    with CaptureQueriesContext(connection) as settle:
        hand_decide(user=players[1], hand_id=seat.hand_id, action="raise")
    messages = [q["sql"] for q in settle.captured_queries if q["sql"] != "BEGIN" and not q["sql"].startswith("PREPARE")]
    assert len(messages) == 3, [sql[:80] for sql in messages]
    assert messages[0].startswith("BEGIN; ") and "tables_hand" in messages[1]
    assert messages[2].endswith("; COMMIT") and "; EXECUTE casino_" in messages[2]  # the next hand, with the COMMIT
    [following] = table.hands.live()
    assert following.pk > seat.hand_id and following.nonce == HandSeat.objects.get(pk=seat.pk).hand.nonce + 1
    opened = [e for group, events in sent for e in events if e.get("kind") == "hand.opened"]
    assert [e["hand"] for e in opened] == [following.pk] and opened[0]["version"] == following.version
    assert ledger_total() == 0
