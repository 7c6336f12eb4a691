"""Tables, seats and hands: the dealer's state, persisted.

A hand moves betting -> decisions -> settled (or cancelled, every stake returned). It
records all that is needed to replay and audit it: the committed seed and its reveal,
the client seed and nonce, every seat's bets, cards, decision and result, the dealer's
cards and the pay table in force.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from casino.db import Versioned
from casino.game.rules import (
    BET_SECONDS,
    DEALER_UP_CARD_INDEX,
    DECISION_SECONDS,
    EXTENSION_SECONDS,
    MAX_SEATS,
    SIT_OUT_LIMIT,
)
from jackpot.models import JackpotPool
from wallets.models import Account, LimitTier

# The states of a hand in play (at most one per table: ``hand_one_live_per_table``).
LIVE_STATES = ("betting", "decisions")


class PayTable(models.Model):
    """A pay table as data (``casino.game.paytables.PayTable.to_dict``)."""

    name = models.CharField(max_length=40, unique=True)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Table(models.Model):
    name = models.CharField(max_length=80, unique=True)
    tier = models.ForeignKey(LimitTier, on_delete=models.PROTECT, related_name="tables")
    paytable = models.ForeignKey(PayTable, on_delete=models.PROTECT, related_name="tables")
    pool = models.ForeignKey(JackpotPool, on_delete=models.PROTECT, related_name="tables")
    house_account = models.OneToOneField(Account, on_delete=models.PROTECT, related_name="+")
    is_open = models.BooleanField(default=True)
    next_nonce = models.PositiveBigIntegerField(default=1)
    # Time bank (SPEC A4 defaults) and the sit-out rule, configurable per table.
    bet_seconds = models.PositiveSmallIntegerField(
        default=BET_SECONDS, help_text=_("Betting window after the first ante.")
    )
    decision_seconds = models.PositiveSmallIntegerField(default=DECISION_SECONDS, help_text=_("Time to fold or raise."))
    extension_seconds = models.PositiveSmallIntegerField(
        default=EXTENSION_SECONDS, help_text=_("One extension for a pair or better, on timeout or disconnect.")
    )
    pair_timeout_action = models.CharField(
        max_length=5,
        choices=[("fold", _("Fold")), ("raise", _("Raise"))],
        default="fold",
        help_text=_("What happens to a pair or better when the extension also runs out."),
    )
    sit_out_limit = models.PositiveSmallIntegerField(
        default=SIT_OUT_LIMIT, help_text=_("Rounds sat out in a row before standing up.")
    )
    created_at = models.DateTimeField(auto_now_add=True)

    # The table's seats as the step that locked the table read them (``tables.locks``), by
    # number; ``None`` on a table not read that way. Not a column.
    seats_read: list | None = None

    class Meta:
        ordering = ["tier__min_ante", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(bet_seconds__gte=1, decision_seconds__gte=1, sit_out_limit__gte=1),
                name="table_timers_positive",
            )
        ]

    def __str__(self) -> str:
        return self.name


class Seat(models.Model):
    """A player sitting at a table. The row goes when the player leaves."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    client_seed = models.CharField(max_length=64)
    rounds_sat_out = models.PositiveSmallIntegerField(default=0)
    sat_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_number_taken_once"),
            models.UniqueConstraint(fields=["table", "player"], name="seat_one_per_player_per_table"),
            models.CheckConstraint(condition=Q(number__gte=1, number__lte=MAX_SEATS), name="seat_number_in_range"),
        ]


class HandQuerySet(models.QuerySet):
    """The one home of "the hands in play" (``live``); a table's one live hand is read by
    ``tables.selectors.table_live_hand``, whose compiled query every plan finds by index."""

    def live(self) -> HandQuerySet:
        return self.filter(state__in=LIVE_STATES)

    def over(self) -> HandQuerySet:
        return self.exclude(state__in=LIVE_STATES)

    def with_jackpot_chips(self) -> HandQuerySet:
        """Hands where at least one seat placed a jackpot chip (each hand once)."""
        return self.filter(hand_seats__jackpot_bet__gt=0).distinct()


class Hand(Versioned, models.Model):
    class State(models.TextChoices):
        BETTING = "betting", _("Taking bets")
        DECISIONS = "decisions", _("Dealt; players decide")
        SETTLED = "settled", _("Settled")
        CANCELLED = "cancelled", _("Cancelled, stakes returned")

    objects = HandQuerySet.as_manager()

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands")
    nonce = models.PositiveBigIntegerField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.BETTING)
    version = models.PositiveIntegerField(default=0)
    server_seed = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64)
    client_seed = models.TextField(blank=True)
    # Rules in force for this hand, copied when it opens: the audit replays from these.
    paytable_name = models.CharField(max_length=40)
    paytable_data = models.JSONField()
    min_ante = models.BigIntegerField()
    max_ante = models.BigIntegerField()
    jackpot_bet_amount = models.BigIntegerField()
    # The pool's split and payout schedule (``jackpot.services.PoolRules``); null only for
    # hands settled before the copy existed. The seed stays the pool's present state.
    jackpot_rules = models.JSONField(null=True, blank=True)
    dealer_cards = models.JSONField(default=list, blank=True)
    dealer_strength = models.BigIntegerField(null=True, blank=True)
    dealer_category = models.CharField(max_length=20, blank=True)
    dealer_qualified = models.BooleanField(null=True, blank=True)
    opened_at = models.DateTimeField(auto_now_add=True)
    betting_deadline = models.DateTimeField(null=True, blank=True)
    dealt_at = models.DateTimeField(null=True, blank=True)
    decision_deadline = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "nonce"], name="hand_nonce_unique_per_table"),
            models.UniqueConstraint(
                fields=["table"], condition=Q(state__in=list(LIVE_STATES)), name="hand_one_live_per_table"
            ),
        ]
        # The reports' open day (the hands settled since the last closed day), read live.
        indexes = [models.Index(fields=["settled_at"], name="hand_settled_at", condition=Q(settled_at__isnull=False))]

    @property
    def is_over(self) -> bool:
        return self.state in (self.State.SETTLED, self.State.CANCELLED)

    @property
    def dealer_up_card(self) -> str | None:
        return self.dealer_cards[DEALER_UP_CARD_INDEX] if self.dealer_cards else None


class HandSeat(models.Model):
    """One player's part in one hand."""

    class Decision(models.TextChoices):
        NONE = "", _("Not yet")
        FOLD = "fold", _("Fold")
        RAISE = "raise", _("Raise")

    # Found by the unique (hand, seat number) index: an index of the hand alone would be
    # one more entry to write with every bet.
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="hand_seats", db_index=False)
    seat_number = models.PositiveSmallIntegerField()
    # Found by the (player, newest) index below, which pages a player's history.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hand_seats", db_index=False
    )
    client_seed = models.CharField(max_length=64)
    ante = models.BigIntegerField()
    jackpot_bet = models.BigIntegerField(default=0)
    raise_amount = models.BigIntegerField(default=0)
    decision = models.CharField(max_length=5, choices=Decision.choices, blank=True, default=Decision.NONE)
    decided_by_timeout = models.BooleanField(default=False)
    decision_deadline = models.DateTimeField(null=True, blank=True)
    extension_used = models.BooleanField(default=False)
    cards = models.JSONField(default=list, blank=True)
    strength = models.BigIntegerField(null=True, blank=True)
    category = models.CharField(max_length=20, blank=True)
    outcome = models.CharField(max_length=24, blank=True)
    paytable_line = models.CharField(max_length=60, blank=True)
    ante_return = models.BigIntegerField(default=0)
    raise_return = models.BigIntegerField(default=0)
    jackpot_win = models.BigIntegerField(default=0)
    net = models.BigIntegerField(null=True, blank=True)
    bet_at = models.DateTimeField(auto_now_add=True)
    # When the player's history shows this hand: its opening, then its end (settled or
    # cancelled), written by the steps with the hand's; what the history is ordered by.
    history_at = models.DateTimeField()

    class Meta:
        ordering = ["hand_id", "seat_number"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat_number"], name="handseat_seat_once"),
            models.UniqueConstraint(fields=["hand", "player"], name="handseat_player_once"),
            models.CheckConstraint(condition=Q(ante__gt=0), name="handseat_ante_positive"),
            models.CheckConstraint(condition=Q(jackpot_bet__gte=0), name="handseat_jackpot_not_negative"),
            models.CheckConstraint(condition=Q(raise_amount__gte=0), name="handseat_raise_not_negative"),
        ]
        indexes = [models.Index(fields=["player", "-history_at", "-hand"], name="handseat_player_newest")]
