"""The poker room's tables, seats, hands and waiting lists (SPEC Part B).

Money never lives in these rows alone: a seat's chips are the balance of its player's
``poker_stack`` ledger account at that table (``PokerSeat.account``), which the database
keeps at or above zero; ``PokerSeat.stack`` mirrors it in the same transaction (and has
its own CHECK), so a seat can be read without the ledger. A hand stores what the engine
needs to rebuild it exactly (seeds, starting seats, the ordered actions); its state is
replayed from them (``poker.services``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from casino.db import Versioned
from casino.stud.games import GAMES, MAX_SEATS
from wallets.models import Account

GAME_LABELS = {"five_stud": "Five Card Stud", "soko": "Five Card Stud SOKO", "seven_stud": "Seven Card Stud"}


class PokerTable(models.Model):
    class State(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    name = models.CharField(max_length=80, unique=True)
    game = models.CharField(max_length=12, choices=[(g, GAME_LABELS[g]) for g in GAMES])
    # "seven_stud/2-4" for a SPEC B1 standard table; empty for a manager-made one.
    preset = models.CharField(max_length=40, blank=True)
    # The table's GameConfig in the hand record's shape (casino.stud.engine.config_from_record).
    config = models.JSONField()
    max_seats = models.PositiveSmallIntegerField(default=MAX_SEATS)
    state = models.CharField(max_length=6, choices=State.choices, default=State.OPEN)
    rake_account = models.OneToOneField(Account, on_delete=models.PROTECT, related_name="+")
    next_nonce = models.PositiveBigIntegerField(default=1)
    # SPEC B3 defaults: time to act, the time bank each seat starts with, its refill and cap.
    act_seconds = models.PositiveSmallIntegerField(default=10)
    time_bank_seconds = models.PositiveSmallIntegerField(default=30)
    # When the next hand may start (the pause after a hand); the sweeper starts it.
    next_hand_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(max_seats__gte=2, max_seats__lte=MAX_SEATS), name="poker_table_seats_2_to_8"
            ),
            models.CheckConstraint(condition=Q(game__in=list(GAMES)), name="poker_table_game_known"),
            models.CheckConstraint(condition=Q(state__in=["open", "closed"]), name="poker_table_state_valid"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN


class PokerSeat(models.Model):
    table = models.ForeignKey(PokerTable, on_delete=models.PROTECT, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="poker_seats")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    stack = models.BigIntegerField(default=0)  # cents; mirrors account.balance
    client_seed = models.CharField(max_length=64)
    # Auto-ante off sits the player out (SPEC B1); a seat without chips is not dealt either.
    auto_ante = models.BooleanField(default=True)
    hands_sat_out = models.PositiveSmallIntegerField(default=0)  # in a row
    hands_dealt = models.PositiveIntegerField(default=0)  # for the time bank's refill
    time_bank_ms = models.PositiveIntegerField(default=30_000)
    always_show = models.BooleanField(default=False)
    leave_after_hand = models.BooleanField(default=False)  # asked to leave while dealt in
    # A demo regular (load_demo_poker): dealt in only beside a player who is not one, so that
    # regulars left alone at a demo table play no hands and keep their time banks.
    waits_for_company = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="poker_seat_once"),
            models.UniqueConstraint(fields=["table", "player"], name="poker_seat_one_per_player"),
            models.CheckConstraint(condition=Q(stack__gte=0), name="poker_seat_stack_not_negative"),
            models.CheckConstraint(condition=Q(number__gte=1, number__lte=MAX_SEATS), name="poker_seat_number_1_to_8"),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.number}"

    @property
    def sitting_out(self) -> bool:
        return not self.auto_ante


class PokerHand(Versioned, models.Model):
    class State(models.TextChoices):
        LIVE = "live", _("Live")
        ENDED = "ended", _("Ended")
        CANCELLED = "cancelled", _("Cancelled")

    table = models.ForeignKey(PokerTable, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveBigIntegerField()  # the nonce
    server_seed = models.CharField(max_length=64)  # secret until the hand is over
    commitment = models.CharField(max_length=64)
    client_seed = models.TextField()
    # The engine's starting seats: [{"seat", "player", "user_id", "stack", "client_seed",
    # "always_show"}] (stack in cents, before the ante). Hands dealt before the all-in
    # allowance was decided at the time-out also hold each seat's "all_in_allowance".
    seats = models.JSONField()
    actions = models.JSONField(default=list)  # [[seat, kind, to or null], ...] in order
    # The players' pre-actions ("check/fold", "call any", … ticked before their turn), by seat
    # number: {"3": {"kind", "call", "street"}} ("call": cents to call when ticked). Private to
    # each player (``poker.selectors``), played by the step that gives them the turn and
    # cleared when stale or at the hand's end (``poker.services``); never in the hand's record.
    preactions = models.JSONField(default=dict, blank=True)
    deck = models.JSONField(null=True, blank=True)  # a rigged deck (tests only); null = the seeds' deck
    state = models.CharField(max_length=10, choices=State.choices, default=State.LIVE)
    version = models.PositiveIntegerField(default=0)  # actions applied
    to_act = models.PositiveSmallIntegerField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    decision_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    record = models.JSONField(null=True, blank=True)  # the engine's hand record, once over
    pot_total = models.BigIntegerField(default=0)  # cents, the whole pot (set at the end)
    rake = models.BigIntegerField(default=0)
    cancel_reason = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)
    ended_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["table_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="poker_hand_number_once"),
            models.UniqueConstraint(fields=["table"], condition=Q(state="live"), name="poker_hand_one_live_per_table"),
            models.CheckConstraint(
                condition=Q(state__in=["live", "ended", "cancelled"]), name="poker_hand_state_valid"
            ),
            models.CheckConstraint(
                condition=Q(rake__gte=0, pot_total__gte=F("rake")), name="poker_hand_rake_within_pot"
            ),
        ]
        # The auditors' list of hands, newest first a page at a time (``poker.audit``): all
        # of them, a table's, or those of one state.
        indexes = [
            models.Index(fields=["-started_at", "-id"], name="poker_hand_newest"),
            models.Index(fields=["table", "-started_at", "-id"], name="poker_hand_table_newest"),
            models.Index(fields=["state", "-started_at", "-id"], name="poker_hand_state_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.table} hand {self.number}"

    @property
    def is_live(self) -> bool:
        return self.state == self.State.LIVE


class PokerHandPlayer(models.Model):
    """A player dealt into a settled hand, written with the hand's end and never changed:
    how a player's hands are found (the history pages, the auditor's player page) by an
    index, newest first, where a search of every hand's ``seats`` read them all."""

    # Their own indexes would repeat the first columns of the ones below.
    hand = models.ForeignKey(PokerHand, on_delete=models.PROTECT, related_name="players", db_index=False)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False)
    seat = models.PositiveSmallIntegerField()
    net = models.BigIntegerField()  # cents: the player's stack after the hand minus before its ante
    ended_at = models.DateTimeField()  # the hand's

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="poker_hand_player_seat_once"),
            models.UniqueConstraint(fields=["hand", "player"], name="poker_hand_player_once"),
        ]
        indexes = [models.Index(fields=["player", "-ended_at", "-hand"], name="poker_hand_player_newest")]


class PokerWaiting(models.Model):
    """A player waiting for a seat at a full table, first come first served."""

    table = models.ForeignKey(PokerTable, on_delete=models.CASCADE, related_name="waiting")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["table", "player"], name="poker_waiting_once")]


class PokerAllowance(models.Model):
    """When a player last spent the time-out all-in allowance (SPEC B3: one per 24 hours,
    B4: one per player across every table). A player's row exists from their first hand
    dealt on; a time-out spends the allowance under its lock (``poker.locks``)."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    used_at = models.DateTimeField(null=True, blank=True)  # null: never spent


class PokerNote(models.Model):
    """A player's private note and colour tag on another player (an opponent met at a table).

    Read by its author alone: every read filters by ``author`` (``poker.notes``)."""

    class Colour(models.TextChoices):
        RED = "red", _("Red")
        ORANGE = "orange", _("Orange")
        YELLOW = "yellow", _("Yellow")
        GREEN = "green", _("Green")
        BLUE = "blue", _("Blue")
        PURPLE = "purple", _("Purple")

    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    subject = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(max_length=2000, blank=True)
    colour = models.CharField(max_length=6, choices=Colour.choices, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["author", "subject"], name="poker_note_once"),
            models.CheckConstraint(condition=~Q(author=F("subject")), name="poker_note_not_on_self"),
            models.CheckConstraint(
                condition=Q(colour__in=["", "red", "orange", "yellow", "green", "blue", "purple"]),
                name="poker_note_colour_known",
            ),
        ]
        # The author's notes, the newest first a page at a time (``poker.notes``).
        indexes = [models.Index(fields=["author", "id"], name="poker_note_author_newest")]
