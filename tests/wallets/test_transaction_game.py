"""Every transaction with a table or hand says which game they are of (Caribbean Stud's
and the poker room's ids overlap); the database refuses a game that contradicts the
kind or the references, the check finds one changed behind its back, and the rows
written before transactions had a game get theirs from their kind."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.wallets.test_integrity import tampered
from wallets import integrity
from wallets.integrity import ledger_seal, ledger_verify, transaction_mac
from wallets.models import Account, Transaction
from wallets.services import account_get_or_create, ledger_post, transaction_reverse

BEFORE = ("wallets", "0010_leg_account_index")  # the ledger before transactions had a game


@pytest.fixture
def house_pair(db):
    return (
        account_get_or_create(code="test:house:a", kind=Account.Kind.HOUSE, name="House A"),
        account_get_or_create(code="test:house:b", kind=Account.Kind.HOUSE, name="House B"),
    )


def post(kind, accounts, key, **refs) -> Transaction:
    a, b = accounts
    with transaction.atomic():
        return ledger_post(kind=kind, idempotency_key=key, postings=[(a, -100), (b, 100)], **refs)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "kind, refs",
    [
        ("bet", {"table_ref": 2, "hand_ref": 1, "game": "poker"}),  # a Caribbean kind at a poker table
        ("jackpot_prize", {"table_ref": 2, "hand_ref": 1, "game": "poker"}),
        ("poker_hand", {"table_ref": 2, "hand_ref": 1, "game": "caribbean"}),  # a poker kind at a Caribbean table
        ("poker_buy_in", {"table_ref": 2, "game": "caribbean"}),
        ("deposit", {"table_ref": 2, "game": "caribbean"}),  # a kind of neither game at a table
        ("bankroll", {"hand_ref": 1, "game": "poker"}),
        ("bet", {"table_ref": 2, "hand_ref": 1, "game": "blackjack"}),
    ],
)
def test_the_database_refuses_a_game_that_contradicts_the_kind(house_pair, kind, refs):
    with pytest.raises(IntegrityError):
        post(kind, house_pair, "contradiction", **refs)
    assert not Transaction.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "bet", "table_ref": 2, "hand_ref": 1, "game": ""},  # a table and hand of no game
        {"kind": "poker_buy_in", "table_ref": 2, "game": ""},
        {"kind": "bet", "game": "caribbean"},  # a game without a table or hand
        {"kind": "deposit", "game": "poker"},
    ],
)
def test_the_database_refuses_a_game_without_references_or_references_without_a_game(fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        Transaction.objects.create(idempotency_key="bare", fingerprint="-", **fields)
    assert not Transaction.objects.exists()


@pytest.mark.django_db
def test_posting_a_table_without_its_game_is_refused_before_the_database(house_pair):
    with pytest.raises(ValueError, match="needs a game"):
        post("poker_buy_in", house_pair, "no-game", table_ref=2)
    assert not Transaction.objects.exists()


@pytest.mark.django_db
def test_each_game_posts_with_its_own_game_and_a_reversal_keeps_its_originals(house_pair):
    bet = post("bet", house_pair, "bet", table_ref=2, hand_ref=1, game="caribbean")
    poker = post("poker_hand", house_pair, "poker", table_ref=2, hand_ref=1, game="poker")
    funding = post("jackpot_funding", house_pair, "funding")
    undone = transaction_reverse(original=bet, actor=None, idempotency_key="undo", reason="test")
    assert [t.game for t in Transaction.objects.filter(pk__in=[bet.pk, poker.pk, funding.pk, undone.pk])] == [
        "caribbean",
        "poker",
        "",
        "caribbean",
    ]
    assert undone.table_ref == 2 and undone.hand_ref == 1


@pytest.fixture
def games_ledger(house_pair, monkeypatch):
    """A Caribbean bet, its reversal and a poker settlement, all at table 2 and hand 1, sealed."""
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0))
    monkeypatch.setattr(integrity, "SEAL_GRACE", timedelta(0))
    bet = post("bet", house_pair, "bet", table_ref=2, hand_ref=1, game="caribbean")
    undone = transaction_reverse(original=bet, actor=None, idempotency_key="undo", reason="test")
    poker = post("poker_hand", house_pair, "poker", table_ref=2, hand_ref=1, game="poker")
    ledger_seal()
    assert ledger_verify().ok
    return bet, undone, poker


def _without_the_game_rules() -> list[str]:
    """What lets an intruder write a game the rules forbid: the CHECKs off (PostgreSQL:
    dropped, inside the rolled-back transaction; SQLite: ignored)."""
    if connection.vendor == "postgresql":
        return ["SET CONSTRAINTS ALL IMMEDIATE"] + [
            f"ALTER TABLE wallets_transaction DROP CONSTRAINT {name}"
            for name in (
                "transaction_game_iff_refs",
                "transaction_game_poker_kinds",
                "transaction_game_caribbean_kinds",
            )
        ]
    return ["PRAGMA ignore_check_constraints = ON"]


@pytest.mark.django_db
def test_a_changed_game_is_found_by_the_check(games_ledger):
    bet, undone, poker = games_ledger
    # A reversal may be of either game, so the database lets this one through; the row it reverses says otherwise.
    found = tampered(f"UPDATE wallets_transaction SET game = 'poker' WHERE id = {undone.pk}")
    assert any(f"#{undone.pk} names the game “poker”" in p for p in found), found
    found = tampered(*_without_the_game_rules(), f"UPDATE wallets_transaction SET game = 'poker' WHERE id = {bet.pk}")
    assert any(f"#{bet.pk} names the game “poker”" in p for p in found), found
    found = tampered(
        *_without_the_game_rules(), f"UPDATE wallets_transaction SET game = 'caribbean' WHERE id = {poker.pk}"
    )
    assert any(f"#{poker.pk} names the game “caribbean”" in p for p in found), found
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA ignore_check_constraints = OFF")
    assert ledger_verify().ok


# --- the rows written before transactions had a game ------------------------------------


def _old_row(Txn, Leg, accounts, key, kind, table_ref=None, hand_ref=None, reverses=None):
    """A transaction as the ledger wrote it before 0011 (no game), MAC and all."""
    a, b = accounts
    legs = [(a.pk, "D", 100), (b.pk, "C", 100)] if reverses is None else [(a.pk, "C", 100), (b.pk, "D", 100)]
    at = timezone.now() - timedelta(minutes=5)
    with transaction.atomic():  # its legs with it (PostgreSQL checks the balance at COMMIT)
        return _old_insert(Txn, Leg, key, kind, at, table_ref, hand_ref, reverses, legs)


def _old_insert(Txn, Leg, key, kind, at, table_ref, hand_ref, reverses, legs) -> int:
    txn = Txn.objects.create(
        idempotency_key=key,
        fingerprint="-",
        kind=kind,
        memo=key,
        created_at=at,
        table_ref=table_ref,
        hand_ref=hand_ref,
        reverses_id=reverses,
        mac=transaction_mac(
            idempotency_key=key,
            kind=kind,
            memo=key,
            created_at=at,
            actor_id=None,
            table_ref=table_ref,
            hand_ref=hand_ref,
            reverses_id=reverses,
            legs=legs,
        ),
    )
    Leg.objects.bulk_create(
        [Leg(transaction_id=txn.pk, account_id=acc, side=side, amount=amount) for acc, side, amount in legs]
    )
    return txn.pk


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_the_old_rows_their_game_and_their_macs_still_verify(monkeypatch):
    monkeypatch.setattr(integrity, "SEAL_AFTER", timedelta(0))
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    try:
        old = executor.loader.project_state([BEFORE]).apps
        Txn, Leg, Acc = (old.get_model("wallets", name) for name in ("Transaction", "Leg", "Account"))
        accounts = [Acc.objects.create(code=f"old:{n}", kind="house", name=f"Old {n}") for n in "ab"]
        ids = {
            "bet": _old_row(Txn, Leg, accounts, "old:bet", "bet", 2, 1),
            "jackpot_reset": _old_row(Txn, Leg, accounts, "old:reset", "jackpot_reset", 2, 1),
            "poker_hand": _old_row(Txn, Leg, accounts, "old:poker", "poker_hand", 2, 1),
            "poker_buy_in": _old_row(Txn, Leg, accounts, "old:buy-in", "poker_buy_in", 2),
            "deposit": _old_row(Txn, Leg, accounts, "old:deposit", "deposit"),
        }
        ids["reversal of bet"] = _old_row(Txn, Leg, accounts, "old:undo-bet", "reversal", 2, 1, reverses=ids["bet"])
        ids["reversal of buy-in"] = _old_row(
            Txn, Leg, accounts, "old:undo-buy-in", "reversal", 2, reverses=ids["poker_buy_in"]
        )
        ids["reversal of deposit"] = _old_row(
            Txn, Leg, accounts, "old:undo-deposit", "reversal", reverses=ids["deposit"]
        )
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

    games = dict(Transaction.objects.values_list("pk", "game"))
    assert {what: games[pk] for what, pk in ids.items()} == {
        "bet": "caribbean",
        "jackpot_reset": "caribbean",
        "poker_hand": "poker",
        "poker_buy_in": "poker",
        "deposit": "",
        "reversal of bet": "caribbean",
        "reversal of buy-in": "poker",
        "reversal of deposit": "",
    }
    ledger_seal()
    report = ledger_verify()
    assert report.ok and report.transactions == report.sealed == len(ids), report.problems
    with pytest.raises(Exception, match="append-only"), transaction.atomic():  # the no-update guard is back
        Transaction.objects.filter(pk=ids["bet"]).update(memo="changed")
