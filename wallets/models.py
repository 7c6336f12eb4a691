"""Players' money: accounts, the double-entry ledger, limit tiers.

The ledger is append-only. A ``Transaction`` is one movement; its ``Leg`` rows each
debit or credit one account by a positive amount, and the credits equal the debits. An
account's ``balance`` is the sum of its legs (credits minus debits), kept by a database
trigger on every leg insert, so no code path can move money without a leg. The
database also refuses a negative balance where one is not allowed, any update or delete
of a leg or transaction, and (on PostgreSQL, at COMMIT) a transaction that does not
balance. See ``wallets/migrations/0002_ledger_triggers.py``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from casino.models import IDEMPOTENCY_KEY_MAX

# The key a page's form draws for a cashier movement or a deposit request (its services
# prefix it into the ledger's keys, which hold IDEMPOTENCY_KEY_MAX).
FORM_KEY_MAX = 100


class LimitTier(models.Model):
    """A limit tier bounds the ante of its tables (inclusive, in cents)."""

    name = models.CharField(max_length=60, unique=True)
    min_ante = models.BigIntegerField()
    max_ante = models.BigIntegerField()

    class Meta:
        ordering = ["min_ante", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(min_ante__gt=0), name="tier_min_ante_positive"),
            models.CheckConstraint(condition=Q(max_ante__gte=F("min_ante")), name="tier_max_not_below_min"),
        ]

    def __str__(self) -> str:
        return self.name


class Account(models.Model):
    class Kind(models.TextChoices):
        PLAYER_WALLET = "player_wallet", _("Player wallet")
        PLAYER_IN_PLAY = "player_in_play", _("Player money in play")
        HOUSE = "house", _("House bankroll")
        CASHIER_CASH = "cashier_cash", _("Cashier cash")
        JACKPOT_METER = "jackpot_meter", _("Jackpot meter")
        JACKPOT_RESERVE = "jackpot_reserve", _("Jackpot reset reserve")
        POKER_STACK = "poker_stack", _("Player's chips at a poker table")
        # What a desk movement waiting for approval takes out of the wallet (a withdrawal,
        # or the reversal of a deposit): still the player's, no longer to be played.
        DESK_HELD = "desk_held", _("Held at the cashier's desk, awaiting approval")

    # Kinds whose balance the database keeps at or above zero. The house may run a
    # deficit (it pays prizes); a cashier's cash account is an asset, so its credit-normal
    # balance is the negative of the cash in the drawer.
    FLOORED_KINDS = (
        Kind.PLAYER_WALLET,
        Kind.PLAYER_IN_PLAY,
        Kind.JACKPOT_METER,
        Kind.JACKPOT_RESERVE,
        Kind.POKER_STACK,
        Kind.DESK_HELD,
    )

    code = models.CharField(max_length=80, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=120)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="accounts"
    )
    currency = models.CharField(max_length=3, default="EUR")
    balance = models.BigIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(balance__gte=0)
                | ~Q(
                    kind__in=[
                        "player_wallet",
                        "player_in_play",
                        "jackpot_meter",
                        "jackpot_reserve",
                        "poker_stack",
                        "desk_held",
                    ]
                ),
                name="account_floored_balance_not_negative",
            ),
            models.UniqueConstraint(
                # A player has one wallet and one money-in-play account, but a poker stack per table.
                fields=["owner", "kind"],
                condition=Q(owner__isnull=False) & ~Q(kind="poker_stack"),
                name="account_one_per_owner_and_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.code} ({self.kind})"

    def save(self, *args, **kwargs):
        # The balance belongs to the ledger trigger: saving a stale copy must never
        # overwrite it, so an update writes every field but the balance.
        if not self._state.adding and "update_fields" not in kwargs:
            kwargs["update_fields"] = [f.name for f in self._meta.concrete_fields if f.name not in ("id", "balance")]
        super().save(*args, **kwargs)


_REFS_SET = Q(table_ref__isnull=False) | Q(hand_ref__isnull=False)
POKER_KINDS = ["poker_buy_in", "poker_cash_out", "poker_hand"]
CARIBBEAN_KINDS = [
    "bet",
    "hold_release",
    "refund",
    "settlement",
    "jackpot_contribution",
    "jackpot_prize",
    "jackpot_reset",
]

# What a transaction's ``game`` must agree with, checked by the database and again by
# ``wallets.integrity.ledger_verify``: a game exactly when there is a table or hand; a
# poker kind is poker's, and only a poker kind (or a reversal of one) is; only a
# Caribbean kind (or a reversal of one) is Caribbean's. Kinds of neither game (deposits,
# bankroll, jackpot funding) therefore carry no table or hand.
GAME_RULES = {
    "transaction_game_iff_refs": Q(game="", table_ref__isnull=True, hand_ref__isnull=True)
    | (Q(game__in=["caribbean", "poker"]) & _REFS_SET),
    "transaction_game_poker_kinds": Q(kind="reversal")
    | (Q(kind__in=POKER_KINDS) & Q(game="poker"))
    | (~Q(kind__in=POKER_KINDS) & ~Q(game="poker")),
    "transaction_game_caribbean_kinds": ~Q(game="caribbean") | Q(kind__in=[*CARIBBEAN_KINDS, "reversal"]),
}


class Transaction(models.Model):
    class Kind(models.TextChoices):
        DEPOSIT = "deposit", _("Deposit")
        WITHDRAWAL = "withdrawal", _("Withdrawal")
        REVERSAL = "reversal", _("Reversal")
        BET = "bet", _("Bet placed, raise held")  # the memo says whether a jackpot chip was in it
        HOLD_RELEASE = "hold_release", _("Raise hold released")
        REFUND = "refund", _("Stakes returned (hand cancelled)")
        SETTLEMENT = "settlement", _("Ante and raise settled")
        JACKPOT_CONTRIBUTION = "jackpot_contribution", _("Jackpot bets taken")
        JACKPOT_PRIZE = "jackpot_prize", _("Jackpot prize paid")
        JACKPOT_RESET = "jackpot_reset", _("Jackpot meter reset to seed")
        JACKPOT_FUNDING = "jackpot_funding", _("Jackpot funded by the house")
        BANKROLL = "bankroll", _("House bankroll movement")
        POKER_BUY_IN = "poker_buy_in", _("Poker buy-in or top-up")
        POKER_CASH_OUT = "poker_cash_out", _("Poker stack cashed out")
        POKER_HAND = "poker_hand", _("Poker hand settled (pots and rake)")
        DESK_HOLD = "desk_hold", _("Held at the cashier's desk for approval")
        DESK_RELEASE = "desk_release", _("Released by the cashier's desk")

    class Game(models.TextChoices):
        CARIBBEAN = "caribbean", _("Caribbean Stud")
        POKER = "poker", _("Poker")

    # The game whose table and hand ``table_ref`` and ``hand_ref`` are (Caribbean tables
    # and poker tables have ids of their own, which overlap). See ``GAME_RULES``.

    idempotency_key = models.CharField(max_length=IDEMPOTENCY_KEY_MAX, unique=True)
    fingerprint = models.CharField(max_length=64)
    kind = models.CharField(max_length=24, choices=Kind.choices)
    memo = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    # HMAC of the row and its legs, computed by ledger_post (wallets.integrity): an edited
    # or forged row no longer matches it.
    mac = models.CharField(max_length=64, default="")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Plain ids, so that the ledger depends on no other app; indexed for the auditors.
    table_ref = models.BigIntegerField(null=True, blank=True, db_index=True)
    hand_ref = models.BigIntegerField(null=True, blank=True, db_index=True)
    # Empty when the transaction names no table or hand (deposits, bankroll, jackpot
    # funding...). Not in the MAC: it follows from the kind and the refs (a reversal's from
    # the row it reverses), which are, and ``ledger_verify`` checks that it does.
    game = models.CharField(max_length=10, choices=Game.choices, blank=True, default="")
    reverses = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by")

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["kind", "created_at"]),
            # The auditors' ledger pages, newest first by id, a page at a time (keyset):
            # by kind, and by a game's table.
            models.Index(fields=["kind", "id"], name="transaction_kind_newest"),
            models.Index(fields=["game", "table_ref", "id"], name="transaction_table_newest"),
        ]
        constraints = [models.CheckConstraint(condition=rule, name=name) for name, rule in GAME_RULES.items()]

    def __str__(self) -> str:
        return f"#{self.pk} {self.kind} {self.idempotency_key}"


class Leg(models.Model):
    class Side(models.TextChoices):
        DEBIT = "D", _("Debit")
        CREDIT = "C", _("Credit")

    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="legs")
    # Found by the (account, id) index below: an index of the account alone would be one
    # more entry to write with every leg, at every bet, and serve no read the pair does not.
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="legs", db_index=False)
    side = models.CharField(max_length=1, choices=Side.choices)
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="leg_amount_positive"),
            models.CheckConstraint(condition=Q(side__in=["D", "C"]), name="leg_side_valid"),
        ]
        indexes = [
            models.Index(fields=["account", "id"]),
            # A player's transactions, newest first, a page at a time (the auditors' ledger
            # filtered by a player): without it, a page read every leg the player has.
            models.Index(fields=["account", "transaction"], name="leg_account_transaction"),
        ]

    @property
    def signed_amount(self) -> int:
        """Effect on the account's credit-normal balance."""
        return self.amount if self.side == self.Side.CREDIT else -self.amount


class LedgerSeal(models.Model):
    """The hash chain over the ledger: seal ``seq`` holds the hash of seal ``seq - 1``.

    Written by ``wallets.integrity.ledger_seal`` shortly after transactions commit (off
    the hot path, so tables never wait on one global row); append-only like the ledger.
    A deleted transaction breaks its seal, a deleted or inserted seal breaks the chain.
    """

    seq = models.BigIntegerField(primary_key=True)
    transaction = models.OneToOneField(Transaction, on_delete=models.PROTECT, related_name="seal")
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    sealed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]


class CashRequest(models.Model):
    """A movement at the cashier's desk: a deposit, a withdrawal, or the reversal of one.

    Every desk movement is one row, executed at once or waiting for a second staff
    member (the threshold rule is ``wallets.services.cash_request_create``'s).
    """

    # The idempotency key of the transaction that releases a request's hold: this, then the
    # request's id (the release names its request by nothing else).
    RELEASE_KEY = "desk-release:"

    class Kind(models.TextChoices):
        DEPOSIT = "deposit", _("Deposit")
        WITHDRAWAL = "withdrawal", _("Withdrawal")
        REVERSAL = "reversal", _("Reversal")

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for approval")
        EXECUTED = "executed", _("Approved and executed")
        REJECTED = "rejected", _("Rejected")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="cash_requests")
    amount = models.BigIntegerField()
    memo = models.CharField(max_length=200, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    idempotency_key = models.CharField(max_length=IDEMPOTENCY_KEY_MAX)
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=200, blank=True)
    transaction = models.OneToOneField(
        Transaction, null=True, blank=True, on_delete=models.PROTECT, related_name="cash_request"
    )
    reverses = models.ForeignKey(
        Transaction,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reversal_requests",
        help_text=_("For a reversal: the deposit or withdrawal it undoes."),
    )
    # A waiting movement that takes money out of the wallet holds it first (``desk_hold``),
    # so that it cannot be played away before a second staff member decides.
    hold = models.OneToOneField(Transaction, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="cash_request_amount_positive"),
            models.CheckConstraint(
                condition=Q(kind="reversal", reverses__isnull=False) | (~Q(kind="reversal") & Q(reverses__isnull=True)),
                name="cash_request_reversal_names_its_transaction",
            ),
            models.UniqueConstraint(fields=["requested_by", "idempotency_key"], name="cash_request_key_once"),
            models.CheckConstraint(
                condition=~Q(decided_by=F("requested_by")), name="cash_request_second_person_decides"
            ),
        ]


class GamingLimit(models.Model):
    """A responsible-gaming limit a player set: deposits or losses per day, week or month.

    Lowering takes effect at once; raising waits ``RAISE_DELAY`` (the new value sits in
    ``pending_amount`` until ``pending_from``). The rules live in wallets.responsible.
    """

    class Kind(models.TextChoices):
        DEPOSIT = "deposit", _("Deposits")
        LOSS = "loss", _("Losses")

    class Period(models.TextChoices):
        DAY = "day", _("per day")
        WEEK = "week", _("per week")
        MONTH = "month", _("per month")

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="gaming_limits")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    period = models.CharField(max_length=5, choices=Period.choices)
    amount = models.BigIntegerField(null=True, blank=True, help_text=_("In force; empty means no limit."))
    pending_amount = models.BigIntegerField(null=True, blank=True)
    pending_from = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "kind", "period"], name="gaming_limit_once"),
            models.CheckConstraint(
                condition=Q(amount__isnull=True) | Q(amount__gte=0), name="gaming_limit_not_negative"
            ),
        ]


class PlayerProtection(models.Model):
    """Self-exclusion and the reality-check interval of one player."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="protection")
    excluded_until = models.DateTimeField(null=True, blank=True)
    reality_check_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)


class DepositRequest(models.Model):
    """A player's request for money: made on the wallet page, funded by the cashier's desk.

    ``wallets.services.deposit_request_complete`` funds it through the desk's own path (a
    ``CashRequest`` deposit, the approval threshold and four eyes included), the place a
    payment provider's callback would fund it too. The player sees its status.
    """

    class Status(models.TextChoices):
        REQUESTED = "requested", _("Requested")
        COMPLETED = "completed", _("Completed")
        REJECTED = "rejected", _("Rejected")
        CANCELLED = "cancelled", _("Cancelled")

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="deposit_requests")
    amount = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.REQUESTED)
    idempotency_key = models.CharField(max_length=FORM_KEY_MAX)
    requested_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.CharField(max_length=200, blank=True)
    reference = models.CharField(
        max_length=100, blank=True, help_text=_("The payment provider's or the desk's reference.")
    )
    cash_request = models.OneToOneField(
        CashRequest, null=True, blank=True, on_delete=models.PROTECT, related_name="deposit_request"
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="deposit_request_amount_positive"),
            models.UniqueConstraint(fields=["player", "idempotency_key"], name="deposit_request_key_once"),
        ]
        indexes = [models.Index(fields=["status", "id"])]

    def __str__(self) -> str:
        return f"Deposit request #{self.pk}"


class LedgerDay(models.Model):
    """A day (site time zone) whose flows on the house's accounts are rolled up in
    ``AccountDay``: written once the day has closed (``wallets.rollups.ledger_days_close``,
    periodic), never by a step that moves money. The staff's pages read closed days here
    and only the open day from the ledger."""

    day = models.DateField(primary_key=True)
    closed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["day"]


# The accounts whose daily flows are rolled up: the house's side of the games (tables'
# house accounts and poker rake accounts are HOUSE), and the jackpot pools.
ROLLED_UP_KINDS = ("house", "jackpot_meter", "jackpot_reserve")


class AccountDay(models.Model):
    """What the legs of one closed day moved on one account of the house, by transaction
    kind and side (a sum of the day's legs; ``wallets.rollups.ledger_days_check``
    compares every row with the ledger)."""

    day = models.DateField()
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+", db_index=False)
    kind = models.CharField(max_length=24)
    side = models.CharField(max_length=1)
    total = models.BigIntegerField()
    legs = models.BigIntegerField()

    class Meta:
        ordering = ["day", "account", "kind", "side"]
        constraints = [models.UniqueConstraint(fields=["account", "day", "kind", "side"], name="account_day_once")]


class LedgerCheckpoint(models.Model):
    """A point up to which the ledger has been verified: the chain up to seal ``seq`` (whose
    hash is ``hash``) and every MAC of the transactions sealed up to it. A routine check
    (``wallets.integrity.ledger_check``) starts from the latest checkpoint and reads only
    what was written after it; the full verification reads everything again.

    ``sums`` holds, per account id, the credits minus debits of the legs of the
    transactions sealed up to ``seq``, so that every balance is checked against its legs
    without summing the history; ``floor``: every transaction with an id up to it was
    sealed by then (the unsealed ones are looked for above it)."""

    seq = models.BigIntegerField()
    hash = models.CharField(max_length=64)
    floor = models.BigIntegerField()
    transactions = models.BigIntegerField()
    sums = models.JSONField(default=dict)
    full = models.BooleanField(default=False, help_text="Written by a full verification (else by a routine check).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]


class LedgerVerification(models.Model):
    """A full verification of the ledger run in the background (Celery): who asked, its
    status, its progress (transactions read of the total, kept in the cache while it runs,
    here when it ends) and what it found."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    total = models.BigIntegerField(default=0)
    done = models.BigIntegerField(default=0)
    ok = models.BooleanField(null=True)
    problems = models.JSONField(default=list)

    class Meta:
        ordering = ["-id"]
