"""casino.db: Prepared (the ORM's query, compiled once) and Together (several queries, one
statement) give what the ORM gives; rows_save writes what the ORM writes."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from psycopg.pq import TransactionStatus

from casino.db import Prepared, Together
from tables.models import Hand, HandSeat, Seat, Table
from tables.services.seats import table_sit
from tests.conftest import require_postgres
from wallets.models import Account

pytestmark = pytest.mark.django_db(transaction=True)

HANDS_OF_TABLE = Prepared(lambda table_id: Hand.objects.filter(table_id=table_id).order_by("id"))
ACCOUNTS = Prepared(lambda ids: Account.objects.filter(pk__in=ids).order_by("pk"))
TABLE_FOR_UPDATE = Prepared(lambda pk: Table.objects.select_for_update(of=("self",)).filter(pk=pk).order_by("pk"))


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_rows_are_the_models_the_orm_builds_with_every_value_converted(table, make_player):
    table_sit(user=make_player(), table_id=table.pk)  # opens a hand: datetimes, JSON, text
    ours = HANDS_OF_TABLE.all(table_id=table.pk)
    theirs = list(Hand.objects.filter(table_id=table.pk).order_by("id"))
    assert ours and [_fields(h) for h in ours] == [_fields(h) for h in theirs]
    assert isinstance(ours[0].paytable_data, dict) and ours[0].opened_at.tzinfo is not None
    assert not ours[0]._state.adding and ours[0]._state.db == "default"
    assert HANDS_OF_TABLE.all(table_id=table.pk + 1000) == []


def test_lists_of_any_length_and_the_sql_is_built_once_per_shape(make_player):
    players = [make_player() for _ in range(3)]
    ids = sorted(Account.objects.filter(owner__in=players).values_list("pk", flat=True))
    assert [a.pk for a in ACCOUNTS.all(ids=ids[:2])] == ids[:2]
    assert [a.pk for a in ACCOUNTS.all(ids=ids)] == ids
    with CaptureQueriesContext(connection) as captured:
        assert [a.pk for a in ACCOUNTS.all(ids=ids[2:4])] == ids[2:4]
    assert len(captured.captured_queries) == 1
    assert ACCOUNTS.all(ids=ids[2:4])[0].balance == Account.objects.get(pk=ids[2]).balance


def test_a_locking_query_runs_inside_the_transaction(table):
    with transaction.atomic():
        with CaptureQueriesContext(connection) as captured:
            locked = TABLE_FOR_UPDATE.first(pk=table.pk)
    assert locked.pk == table.pk and locked.name == table.name
    if connection.vendor == "postgresql":
        assert 'FOR UPDATE OF "tables_table"' in captured.captured_queries[0]["sql"]
    with transaction.atomic():
        assert TABLE_FOR_UPDATE.first(pk=table.pk + 1000) is None


@pytest.mark.parametrize("bad", ["7", 7.0, None, [1, "2"], True])
def test_parameters_are_ids_only(bad):
    with pytest.raises(TypeError):
        HANDS_OF_TABLE.all(table_id=bad)


def test_a_joined_query_builds_and_caches_the_related_rows_as_the_orm_does(table):
    joined = Prepared(lambda pk: Table.objects.select_related("tier", "paytable", "pool").filter(pk=pk).order_by("pk"))
    ours = joined.first(pk=table.pk)
    theirs = Table.objects.select_related("tier", "paytable", "pool").get(pk=table.pk)
    assert _fields(ours) == _fields(theirs)
    with CaptureQueriesContext(connection) as captured:  # cached on the instance: no query
        related = [ours.tier, ours.paytable, ours.pool]
    assert captured.captured_queries == []
    assert [_fields(r) for r in related] == [_fields(theirs.tier), _fields(theirs.paytable), _fields(theirs.pool)]
    assert isinstance(ours.paytable.data, dict)  # the JSON column converted, as the ORM does
    assert joined.first(pk=table.pk + 1000) is None


def test_annotated_queries_are_refused(table):
    from django.db.models import F

    annotated = Prepared(lambda pk: Table.objects.annotate(twice=F("pk") * 2).filter(pk=pk))
    with pytest.raises(ValueError, match="annotations"):
        annotated.all(pk=table.pk)


# --- rows_update: several rows' fields in one UPDATE ---------------------------------------


def test_rows_update_writes_each_rows_own_values_in_one_statement(table, make_player):
    from casino.db import rows_update
    from tables.models import Seat

    for number in (1, 2, 3):
        table_sit(user=make_player(), table_id=table.pk, seat_number=number)
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    for seat in seats:
        seat.rounds_sat_out, seat.client_seed = seat.number * 10, f"seed-{seat.number}"
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        rows_update(seats, ["rounds_sat_out", "client_seed"])
    stored = {s.number: (s.rounds_sat_out, s.client_seed) for s in Seat.objects.filter(table=table)}
    assert stored == {1: (10, "seed-1"), 2: (20, "seed-2"), 3: (30, "seed-3")}
    updates = [q for q in captured.captured_queries if q["sql"].startswith("UPDATE")]
    assert len(updates) == (1 if connection.vendor == "postgresql" else 3)


def test_rows_update_stores_json_and_datetimes_as_the_orm_does(table, make_player):
    from datetime import timedelta

    from django.utils import timezone

    from casino.db import rows_update

    table_sit(user=make_player(), table_id=table.pk)
    hand = Hand.objects.get(table=table)
    deadline = timezone.now() + timedelta(seconds=30)
    hand.dealer_cards, hand.betting_deadline, hand.version = ["As", "Kd", "2c", "9h", "Ts"], deadline, 7
    with transaction.atomic():
        rows_update([hand], ["dealer_cards", "betting_deadline", "version"])
    stored = Hand.objects.get(pk=hand.pk)
    assert stored.dealer_cards == ["As", "Kd", "2c", "9h", "Ts"] and stored.betting_deadline == deadline
    assert stored.version == 7
    assert Hand.objects.filter(pk=hand.pk, dealer_cards__0="As").exists()  # JSON, not a string of it


def test_rows_update_of_a_row_that_is_gone_fails_and_changes_nothing(table, make_player):
    from django.db import DatabaseError

    from casino.db import rows_update
    from tables.models import Seat

    for number in (1, 2):
        table_sit(user=make_player(), table_id=table.pk, seat_number=number)
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    gone = Seat.objects.get(pk=seats[1].pk)
    Seat.objects.filter(pk=gone.pk).delete()
    for seat in seats:
        seat.rounds_sat_out = 5
    with pytest.raises(DatabaseError):
        with transaction.atomic():
            rows_update(seats, ["rounds_sat_out"])
    assert Seat.objects.get(pk=seats[0].pk).rounds_sat_out == 0


def test_rows_update_keeps_any_text_exactly(table, make_player):
    from casino.db import rows_update
    from tables.models import Seat

    table_sit(user=make_player(), table_id=table.pk, seat_number=1)
    seat = Seat.objects.get(table=table)
    tricky = 'q" b\\ /\t\n é€🂡 {"a": 1} \'s\''  # within the column's 64 characters
    seat.client_seed = tricky
    with transaction.atomic():
        rows_update([seat], ["client_seed"])
    assert Seat.objects.get(pk=seat.pk).client_seed == tricky


def test_a_value_with_no_json_form_is_refused_before_anything_is_sent():
    from casino.db import _json_value

    assert _json_value(None) is None and _json_value(7) == 7 and _json_value("x") == "x"
    with pytest.raises(TypeError, match="bytes"):
        _json_value(b"raw")


def test_rows_of_two_models_are_saved_in_one_statement_and_each_is_checked(table, make_player):
    from django.db import DatabaseError

    from casino.db import rows_update_together
    from tables.models import Seat

    for number in (1, 2):
        table_sit(user=make_player(), table_id=table.pk, seat_number=number)
    hand = Hand.objects.get(table=table)
    seats = list(Seat.objects.filter(table=table).order_by("number"))
    hand.version, seats[0].rounds_sat_out, seats[1].rounds_sat_out = 41, 3, 4
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        rows_update_together(([hand], ["version"]), (seats, ["rounds_sat_out"]), ([], ["ignored"]))
    assert Hand.objects.get(pk=hand.pk).version == 41
    assert [s.rounds_sat_out for s in Seat.objects.filter(table=table).order_by("number")] == [3, 4]
    writes = [q for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(writes) == (1 if connection.vendor == "postgresql" else 3)

    Seat.objects.filter(pk=seats[1].pk).delete()  # one row of the second batch is gone
    hand.version = 42
    with pytest.raises(DatabaseError):
        with transaction.atomic():
            rows_update_together(([hand], ["version"]), (seats, ["rounds_sat_out"]))
    assert Hand.objects.get(pk=hand.pk).version == 41  # nothing of it stayed
    with pytest.raises(ValueError, match="one batch per model"):
        rows_update_together((seats[:1], ["rounds_sat_out"]), (seats[1:], ["client_seed"]))


def test_a_new_row_and_updates_in_one_statement_the_new_row_as_the_orm_inserts_it(table, make_player):
    from casino.db import rows_save
    from tables.models import HandSeat

    player = make_player()
    table_sit(user=player, table_id=table.pk, seat_number=1)
    hand = Hand.objects.get(table=table)
    new = HandSeat(hand=hand, seat_number=1, player=player, client_seed="seed", ante=100, jackpot_bet=50, history_at=hand.opened_at)
    hand.version = 9
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        rows_save(insert=new, update=[([hand], ["version"])])
    assert new.pk is not None and not new._state.adding
    stored = HandSeat.objects.get(pk=new.pk)
    assert (stored.hand_id, stored.player_id, stored.ante, stored.jackpot_bet, stored.cards) == (hand.pk, player.pk, 100, 50, [])
    assert stored.bet_at is not None and stored.bet_at == new.bet_at  # auto_now_add set, as the ORM's INSERT does
    assert Hand.objects.get(pk=hand.pk).version == 9
    writes = [q for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(writes) == (1 if connection.vendor == "postgresql" else 2)
    from django.db import IntegrityError

    with pytest.raises(IntegrityError):  # the seat's bet exists: the whole statement fails
        with transaction.atomic():
            hand.version = 10
            rows_save(
                insert=HandSeat(hand=hand, seat_number=1, player=player, ante=100, history_at=hand.opened_at),
                update=[([hand], ["version"])],
            )
    assert Hand.objects.get(pk=hand.pk).version == 9


def test_a_new_row_and_updates_of_other_rows_of_its_model_in_one_statement(table, make_player):
    from casino.db import rows_save
    from tables.models import HandSeat

    players = [make_player() for _ in range(2)]
    for number, player in enumerate(players, start=1):
        table_sit(user=player, table_id=table.pk, seat_number=number)
    hand = Hand.objects.get(table=table)
    first = HandSeat.objects.create(hand=hand, seat_number=1, player=players[0], ante=100, history_at=hand.opened_at)
    first.cards, hand.version = ["As", "Kd"], 5
    new = HandSeat(hand=hand, seat_number=2, player=players[1], ante=200, cards=["2c", "3c"], history_at=hand.opened_at)
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        rows_save(insert=new, update=[([hand], ["version"]), ([first], ["cards"])])
    stored = {s.seat_number: (s.ante, s.cards) for s in HandSeat.objects.filter(hand=hand)}
    assert stored == {1: (100, ["As", "Kd"]), 2: (200, ["2c", "3c"])} and new.pk is not None
    writes = [q for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert len(writes) == (1 if connection.vendor == "postgresql" else 3)


# --- rows built without Model.__init__, and values written without the ORM's preparation ----


def test_a_row_built_plainly_is_a_model_the_orm_can_go_on_with(table, make_player):
    table_sit(user=make_player(), table_id=table.pk)
    hand = HANDS_OF_TABLE.first(table_id=table.pk)
    assert type(hand) is Hand and hand.table == table  # the foreign key loads its row
    hand.version += 1
    hand.save(update_fields=["version"])  # an UPDATE, not an INSERT: the row is not "adding"
    hand.refresh_from_db()
    assert hand.version == Hand.objects.get(pk=hand.pk).version and Hand.objects.filter(table=table).count() == 1


def test_a_model_with_init_receivers_or_deferred_columns_is_built_by_the_orm(table):
    from django.db.models.signals import post_init

    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(receiver, sender=Table)
    try:
        listened = Prepared(lambda pk: Table.objects.filter(pk=pk).order_by("pk"))
        assert listened.first(pk=table.pk).pk == table.pk and len(seen) == 1  # the receiver ran
    finally:
        post_init.disconnect(receiver, sender=Table)
    some = Prepared(lambda pk: Table.objects.only("name").filter(pk=pk).order_by("pk")).first(pk=table.pk)
    assert some.name == table.name and some.get_deferred_fields() == {
        f.attname for f in Table._meta.concrete_fields if f.attname not in ("id", "name")
    }


def test_rows_update_writes_choices_flags_nothing_and_big_numbers_as_the_orm_does(table, make_player):
    from casino.db import rows_update

    table_sit(user=make_player(), table_id=table.pk)
    hand = Hand.objects.get(table=table)
    hand.state, hand.version = Hand.State.DECISIONS, 41  # a TextChoices member, an int
    hand.dealer_qualified, hand.dealer_strength = True, 2**62  # a flag, a big number
    with transaction.atomic():
        rows_update([hand], ["state", "version", "dealer_qualified", "dealer_strength"])
    fields = ("state", "version", "dealer_qualified", "dealer_strength")
    assert Hand.objects.values_list(*fields).get(pk=hand.pk) == ("decisions", 41, True, 2**62)
    hand.dealer_qualified, hand.dealer_strength = False, None  # False stays False, None is NULL
    with transaction.atomic():
        rows_update([hand], ["dealer_qualified", "dealer_strength"])
    assert Hand.objects.values_list("dealer_qualified", "dealer_strength").get(pk=hand.pk) == (False, None)


# --- Together: several model queries in one statement --------------------------------------

SEATS_AND_HANDS = Together(
    seats=lambda table_id: Seat.objects.filter(table_id=table_id).order_by("-number"),
    hands=lambda table_id: Hand.objects.select_for_update().filter(table_id=table_id).order_by("id"),
    bets=lambda table_id: HandSeat.objects.filter(hand__table_id=table_id).order_by("seat_number"),
)


def test_together_gives_each_part_as_its_own_orm_query_in_one_statement(table, make_player):
    for number in (2, 1, 3):
        table_sit(user=make_player(), table_id=table.pk, seat_number=number)
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        got = SEATS_AND_HANDS.fetch(table_id=table.pk)
    assert len(captured.captured_queries) == (1 if connection.vendor == "postgresql" else 3)
    seats = list(Seat.objects.filter(table_id=table.pk).order_by("-number"))
    hands = list(Hand.objects.filter(table_id=table.pk).order_by("id"))
    assert [_fields(s) for s in got["seats"]] == [_fields(s) for s in seats] and [s.number for s in seats] == [3, 2, 1]
    assert [_fields(h) for h in got["hands"]] == [_fields(h) for h in hands] and hands
    assert isinstance(got["hands"][0].paytable_data, dict) and got["hands"][0].opened_at.tzinfo is not None
    assert got["bets"] == []  # a part with no rows
    assert not got["seats"][0]._state.adding and got["seats"][0].table == table


def test_together_reads_every_kind_of_value_back_exactly(table, make_player):
    from tables.services.hands import hand_bet

    players = [make_player() for _ in range(2)]
    for player in players:
        table_sit(user=player, table_id=table.pk)
    hand_bet(user=players[0], table_id=table.pk, ante=table.tier.min_ante, jackpot=False)
    hand = Hand.objects.get(table=table)
    hand.dealer_strength, hand.dealer_qualified, hand.dealer_cards = 2**62 + 1, False, ["As", "Kd"]
    hand.save()
    with transaction.atomic():  # a locking part: inside a transaction, as every caller's
        got = SEATS_AND_HANDS.fetch(table_id=table.pk)
    assert _fields(got["hands"][0]) == _fields(Hand.objects.get(pk=hand.pk))
    assert got["hands"][0].dealer_strength == 2**62 + 1  # no float on the way
    assert [_fields(b) for b in got["bets"]] == [_fields(b) for b in HandSeat.objects.filter(hand=hand)]


def test_a_locking_part_locks_its_rows(table, make_player):
    require_postgres()
    import psycopg

    table_sit(user=make_player(), table_id=table.pk)
    settings = connection.settings_dict
    other = psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"], dbname=settings["NAME"],
        password=settings["PASSWORD"] or None, autocommit=True,
    )
    try:
        with transaction.atomic():
            SEATS_AND_HANDS.fetch(table_id=table.pk)
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute("SELECT id FROM tables_hand WHERE table_id = %s FOR UPDATE NOWAIT", [table.pk])
            other.execute("SELECT id FROM tables_seat WHERE table_id = %s FOR UPDATE NOWAIT", [table.pk])  # not locked
    finally:
        other.close()


@pytest.mark.parametrize(
    "part",
    [
        lambda pk: Table.objects.select_related("tier").filter(pk=pk),  # a join
        lambda pk: Table.objects.filter(pk=pk).order_by("tier__name"),  # an order across a relation
    ],
)
def test_together_refuses_what_it_cannot_read_back(table, part):
    require_postgres()
    with pytest.raises(ValueError):
        Together(part=part).fetch(pk=table.pk)
    with pytest.raises(TypeError):
        SEATS_AND_HANDS.fetch(table_id="1")


def test_a_querys_constants_are_written_into_its_sql_and_read_as_the_orm_reads_them(make_player):
    from django.contrib.auth import get_user_model

    player = make_player(username="o'brien_50%")
    kinds = [Account.Kind.PLAYER_WALLET, Account.Kind.PLAYER_IN_PLAY]
    wallet_of = Prepared(
        lambda pk: Account.objects.filter(owner__username="o'brien_50%", owner_id=pk, kind__in=kinds).order_by("kind")
    )
    sent = []

    def record(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        ours = wallet_of.all(pk=player.pk)
    theirs = list(Account.objects.filter(owner=player, kind__in=kinds).order_by("kind"))
    assert [_fields(a) for a in ours] == [_fields(a) for a in theirs] and len(ours) == 2
    assert wallet_of.all(pk=get_user_model().objects.exclude(pk=player.pk).first().pk) == []
    if connection.vendor == "postgresql":  # the constants in the text, the id the one parameter
        [(sql, params)] = sent
        assert list(params) == [player.pk]
        assert "'player_wallet'" in sql and "'player_in_play'" in sql and "'o''brien_50%%'" in sql



# --- Together with a first statement: the lock, then the parts, in one round trip ---------

SEATS_AFTER_THE_LOCK = Together(
    first="table",
    table=lambda table_id: Table.objects.select_for_update(of=("self",)).filter(pk=table_id).order_by("pk"),
    seats=lambda table_id: Seat.objects.filter(table_id=table_id).order_by("number"),
)


def _other_connection():
    import psycopg

    settings = connection.settings_dict
    return psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"], dbname=settings["NAME"],
        password=settings["PASSWORD"] or None,
    )


def test_the_first_statement_opens_the_transaction_with_the_parts_in_one_round_trip(table, make_player, monkeypatch):
    import psycopg

    table_sit(user=make_player(), table_id=table.pk, seat_number=2)
    begins = []  # psycopg's own BEGIN, which it sends in a round trip of its own
    start = psycopg.Connection._get_tx_start_command
    monkeypatch.setattr(psycopg.Connection, "_get_tx_start_command", lambda self: begins.append(1) or start(self))
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        got = SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
        assert list(got) == ["table", "seats"]
        assert [t.pk for t in got["table"]] == [table.pk] and got["table"][0].name == table.name
        assert [s.number for s in got["seats"]] == [2]
    if connection.vendor != "postgresql":
        assert len(captured.captured_queries) == 2
        return
    [message] = [q["sql"] for q in captured.captured_queries if not q["sql"].startswith("PREPARE")]
    assert message.startswith("BEGIN; EXECUTE casino_") and message.count("; EXECUTE casino_") == 2
    assert begins == []
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        assert SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk + 1000) == {"table": [], "seats": []}
    assert len(captured.captured_queries) == 1  # prepared once per session
    with transaction.atomic():  # no bigint, no id: found nowhere, as by any query
        assert SEATS_AFTER_THE_LOCK.fetch(table_id=2**70) == {"table": [], "seats": []}


def test_the_message_is_the_transactions_first_statement_and_rolls_back_with_it(table, make_player):
    require_postgres()
    player = make_player()
    table_sit(user=player, table_id=table.pk, seat_number=1)
    with pytest.raises(RuntimeError), transaction.atomic():
        SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
        assert connection.connection.info.transaction_status == TransactionStatus.INTRANS
        Seat.objects.filter(table=table).update(rounds_sat_out=3)
        raise RuntimeError
    assert Seat.objects.get(table=table).rounds_sat_out == 0  # the write went with the message's transaction
    with transaction.atomic():
        SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
        Seat.objects.filter(table=table).update(rounds_sat_out=2)
    assert Seat.objects.get(table=table).rounds_sat_out == 2
    assert connection.get_autocommit() and connection.connection.info.transaction_status == TransactionStatus.IDLE


def test_the_parts_read_what_the_lock_holder_committed(table, make_player):
    # The parts' statement starts once the table's lock is granted: a seat taken by the
    # transaction that held the lock is in the read, though the message was sent before.
    require_postgres()
    import threading
    import time

    players = [make_player() for _ in range(2)]
    table_sit(user=players[0], table_id=table.pk, seat_number=1)
    other = _other_connection()
    holding = threading.Event()

    def hold_then_seat() -> None:
        other.execute("SELECT id FROM tables_table WHERE id = %s FOR UPDATE", [table.pk])
        holding.set()
        time.sleep(0.5)
        other.execute("UPDATE tables_seat SET number = 4 WHERE table_id = %s", [table.pk])
        other.commit()

    holder = threading.Thread(target=hold_then_seat)
    try:
        holder.start()
        assert holding.wait(5)
        with transaction.atomic():
            got = SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
        assert [s.number for s in got["seats"]] == [4]
    finally:
        holder.join(5)
        other.close()


def test_inside_an_open_transaction_the_two_statements_go_as_any_two(table, make_player):
    table_sit(user=make_player(), table_id=table.pk, seat_number=3)
    with transaction.atomic():
        Seat.objects.count()  # the transaction is open
        with CaptureQueriesContext(connection) as captured:
            got = SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
    assert [t.pk for t in got["table"]] == [table.pk] and [s.number for s in got["seats"]] == [3]
    assert len(captured.captured_queries) == 2 and "BEGIN" not in captured.captured_queries[0]["sql"]


def test_a_statement_the_session_lost_is_prepared_again(table, make_player):
    # psycopg deallocates every statement of the session after a rollback.
    require_postgres()
    table_sit(user=make_player(), table_id=table.pk, seat_number=1)
    with transaction.atomic():
        SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        got = SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
        assert [s.number for s in got["seats"]] == [1]
    sent = [q["sql"][:12] for q in captured.captured_queries]
    assert sent == ["BEGIN; EXECU", "DEALLOCATE A", "PREPARE casi", "PREPARE casi", "BEGIN; EXECU"]


def test_without_prepared_statements_the_message_carries_the_sql(table, make_player):
    require_postgres()
    table_sit(user=make_player(), table_id=table.pk, seat_number=2)
    connection.ensure_connection()
    raw = connection.connection
    threshold, raw.prepare_threshold = raw.prepare_threshold, None  # DB_PREPARED_STATEMENTS=0
    try:
        with transaction.atomic(), CaptureQueriesContext(connection) as captured:
            got = SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
    finally:
        raw.prepare_threshold = threshold
    assert [s.number for s in got["seats"]] == [2]
    [message] = [q["sql"] for q in captured.captured_queries]
    assert message.startswith("BEGIN; SELECT") and f'"tables_table"."id" = {table.pk}' in message and "EXECUTE" not in message


# --- a transaction's last write, with its COMMIT ------------------------------------------


def _held_seat_bet(table, make_player):
    """A hand with one seat that has bet, and a new bet and the hand's change to save."""
    players = [make_player() for _ in range(2)]
    for number, player in enumerate(players, start=1):
        table_sit(user=player, table_id=table.pk, seat_number=number)
    hand = Hand.objects.get(table=table)
    first = HandSeat.objects.create(hand=hand, seat_number=1, player=players[0], ante=100, history_at=hand.opened_at)
    new = HandSeat(hand=hand, seat_number=2, player=players[1], ante=200, client_seed="it's \\ \"exact\"", history_at=hand.opened_at)
    return hand, first, new


def _sent(captured) -> list[str]:
    """What went to PostgreSQL: no statement prepared once a session, nor the BEGIN that
    Django logs at the atomic block's start (psycopg sends it with the first statement)."""
    return [q["sql"] for q in captured.captured_queries if not q["sql"].startswith("PREPARE") and q["sql"] != "BEGIN"]


def test_a_held_write_goes_with_the_commit_in_one_message(table, make_player):
    require_postgres()
    from casino.db import Write, rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    hand.version, first.cards = 7, ["As", "Kd"]
    told = []
    also = Write(key="tests.also", parts="w AS (SELECT 41 + %s AS n)", result="(SELECT n FROM w)", params=[1], done=told.append)
    with CaptureQueriesContext(connection) as captured:
        with transaction.atomic():
            SEATS_AFTER_THE_LOCK.fetch(table_id=table.pk)
            rows_save(insert=new, update=[([hand], ["version"]), ([first], ["cards"])], also=also, with_commit=True)
            assert new.pk is None and told == []  # nothing sent yet
        assert new.pk is not None and not new._state.adding and told == [42]
    stored = HandSeat.objects.get(pk=new.pk)
    assert (stored.ante, stored.client_seed) == (200, new.client_seed)
    assert HandSeat.objects.get(pk=first.pk).cards == ["As", "Kd"] and Hand.objects.get(pk=hand.pk).version == 7
    assert connection.get_autocommit() and connection.connection.info.transaction_status == TransactionStatus.IDLE
    sent = _sent(captured)
    assert len(sent) == 2 and sent[0].startswith("BEGIN; ")  # two round trips: the lock and read, the write and COMMIT
    assert sent[1].startswith("SAVEPOINT casino_held; EXECUTE casino_") and sent[1].endswith("; COMMIT")


def test_a_statement_after_a_held_write_sends_it_first(table, make_player):
    # The statements run in the order written: the one that follows reads the write.
    from casino.db import rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    hand.version = 8
    with transaction.atomic():
        rows_save(insert=new, update=[([hand], ["version"])], with_commit=True)
        assert Hand.objects.get(pk=hand.pk).version == 8 and new.pk is not None
        assert HandSeat.objects.filter(hand=hand).count() == 2
        first.ante = 300
        rows_save(update=[([first], ["ante"])], with_commit=True)
        hand.version = 9
        rows_save(update=[([hand], ["version"])], with_commit=True)  # the one before goes first
        with connection.execute_wrapper(lambda execute, *args: execute(*args)):  # a caller's own wrapper
            assert HandSeat.objects.get(pk=first.pk).ante == 300
    assert Hand.objects.get(pk=hand.pk).version == 9
    assert connection.execute_wrappers == []


def test_a_held_write_is_dropped_when_its_transaction_rolls_back(table, make_player):
    from casino.db import rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    hand.version = 11
    with CaptureQueriesContext(connection) as captured:
        with pytest.raises(RuntimeError), transaction.atomic():
            Seat.objects.filter(table=table).update(rounds_sat_out=2)
            rows_save(insert=new, update=[([hand], ["version"])], with_commit=True)
            raise RuntimeError
    if connection.vendor == "postgresql":
        assert not any("INSERT" in sql or "EXECUTE" in sql for sql in _sent(captured))  # never sent
    assert Hand.objects.get(pk=hand.pk).version != 11
    assert HandSeat.objects.filter(hand=hand).count() == 1 and not Seat.objects.filter(rounds_sat_out=2).exists()
    assert connection.execute_wrappers == []
    with transaction.atomic():  # the next transaction of the connection is its own
        Seat.objects.filter(table=table).update(rounds_sat_out=1)
    assert HandSeat.objects.filter(hand=hand).count() == 1 and Hand.objects.get(pk=hand.pk).version != 11


def test_a_held_write_that_misses_a_row_fails_the_commit_and_nothing_is_committed(table, make_player):
    from django.db import DatabaseError

    from casino.db import rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    gone = HandSeat.objects.create(hand=hand, seat_number=3, player=make_player(), ante=100, history_at=hand.opened_at)
    HandSeat.objects.filter(pk=gone.pk).delete()
    first.ante, gone.ante = 500, 500
    with pytest.raises(DatabaseError, match="did not affect"):
        with transaction.atomic():
            Seat.objects.filter(table=table).update(rounds_sat_out=2)  # an earlier write of the transaction
            rows_save(update=[([hand], ["version"]), ([first, gone], ["ante"])], with_commit=True)
    assert HandSeat.objects.get(pk=first.pk).ante == 100 and not Seat.objects.filter(rounds_sat_out=2).exists()


def test_a_held_write_refused_by_a_constraint_fails_the_commit(table, make_player):
    from django.db import IntegrityError

    from casino.db import rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    new.seat_number = 1  # seat 1 has bet on this hand
    with pytest.raises(IntegrityError), transaction.atomic():
        hand.version = 12
        rows_save(insert=new, update=[([hand], ["version"])], with_commit=True)
    assert HandSeat.objects.filter(hand=hand).count() == 1 and Hand.objects.get(pk=hand.pk).version != 12


def test_a_held_write_whose_statement_the_session_lost_is_prepared_again(table, make_player):
    require_postgres()
    from casino.db import rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    hand.version = 13
    with transaction.atomic():
        rows_save(update=[([hand], ["version"])], with_commit=True)  # its statement prepared
    with CaptureQueriesContext(connection) as captured:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("DEALLOCATE ALL")  # the session forgets it; the registry does not know
            hand.version = 14
            rows_save(update=[([hand], ["version"])], with_commit=True)
    assert Hand.objects.get(pk=hand.pk).version == 14
    sent = [q["sql"][:15] for q in captured.captured_queries if q["sql"] != "BEGIN"]
    # the message fails under its savepoint, which is rolled back to; then sent again
    assert sent == ["DEALLOCATE ALL", "SAVEPOINT casin", "ROLLBACK TO SAV", "DEALLOCATE ALL", "PREPARE casino_", "SAVEPOINT casin"]


def test_without_prepared_statements_a_held_write_carries_its_sql(table, make_player):
    require_postgres()
    from casino.db import rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    connection.ensure_connection()
    raw = connection.connection
    threshold, raw.prepare_threshold = raw.prepare_threshold, None  # DB_PREPARED_STATEMENTS=0
    try:
        with CaptureQueriesContext(connection) as captured, transaction.atomic():
            hand.version = 15
            rows_save(insert=new, update=[([hand], ["version"])], with_commit=True)
    finally:
        raw.prepare_threshold = threshold
    [message] = [q for q in captured.captured_queries if q["sql"] != "BEGIN"]
    assert message["sql"].startswith("WITH ") and message["sql"].endswith("; COMMIT") and "EXECUTE" not in message["sql"]
    assert HandSeat.objects.get(pk=new.pk).client_seed == "it's \\ \"exact\"" and Hand.objects.get(pk=hand.pk).version == 15


def test_outside_a_transaction_or_inside_an_outer_one_a_held_write_is_sent_before_it_ends(table, make_player):
    from casino.db import rows_save

    hand, first, new = _held_seat_bet(table, make_player)
    hand.version = 16
    rows_save(update=[([hand], ["version"])], with_commit=True)  # autocommit: nothing to hold it for
    assert Hand.objects.get(pk=hand.pk).version == 16
    with transaction.atomic():
        with transaction.atomic():  # a savepoint: its RELEASE sends it
            hand.version = 17
            rows_save(insert=new, update=[([hand], ["version"])], with_commit=True)
        assert new.pk is not None and Hand.objects.get(pk=hand.pk).version == 17
        with pytest.raises(RuntimeError), transaction.atomic():
            hand.version = 18
            rows_save(update=[([hand], ["version"])], with_commit=True)
            raise RuntimeError  # rolled back to the savepoint: sent, then undone
        assert Hand.objects.get(pk=hand.pk).version == 17
    assert Hand.objects.get(pk=hand.pk).version == 17 and HandSeat.objects.filter(hand=hand).count() == 2
