"""Progressive jackpot pools shared by many tables.

A pool owns two ledger accounts: the meter (what the royal flush wins, shown live) and
the reset reserve. The money itself lives only in the ledger; this model holds the
pool's rules. ``JackpotHit`` records each prize for the players' and auditors' view.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from wallets.models import Account

# A pool's rules by default (SPEC A6), and the whole of a jackpot bet in basis points.
BASIS_POINTS = 10_000
DEFAULT_SEED_AMOUNT = 1_000_000
DEFAULT_BET_AMOUNT = 50
DEFAULT_METER_SHARE_BP = 7000
DEFAULT_RESERVE_SHARE_BP = 1000


class JackpotPool(models.Model):
    name = models.CharField(max_length=80, unique=True)
    seed_amount = models.BigIntegerField(
        default=DEFAULT_SEED_AMOUNT, help_text=_("Meter value after a reset, in cents.")
    )
    bet_amount = models.BigIntegerField(default=DEFAULT_BET_AMOUNT, help_text=_("The jackpot chip, in cents."))
    meter_share_bp = models.PositiveIntegerField(
        default=DEFAULT_METER_SHARE_BP, help_text=_("Share of each bet to the meter, basis points.")
    )
    reserve_share_bp = models.PositiveIntegerField(
        default=DEFAULT_RESERVE_SHARE_BP, help_text=_("Share of each bet to the reset reserve, basis points.")
    )
    schedule = models.JSONField(help_text=_("Payout schedule: percent prizes and fixed prizes in cents."))
    meter_account = models.OneToOneField(Account, on_delete=models.PROTECT, related_name="+")
    reserve_account = models.OneToOneField(Account, on_delete=models.PROTECT, related_name="+")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(seed_amount__gt=0), name="pool_seed_positive"),
            models.CheckConstraint(condition=Q(bet_amount__gt=0), name="pool_bet_positive"),
            models.CheckConstraint(
                condition=Q(meter_share_bp__lte=BASIS_POINTS - F("reserve_share_bp")), name="pool_shares_at_most_whole"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class JackpotHit(models.Model):
    class Kind(models.TextChoices):
        PERCENT = "percent", _("Share of the meter")
        FIXED = "fixed", _("Fixed prize")

    pool = models.ForeignKey(JackpotPool, on_delete=models.PROTECT, related_name="hits")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="jackpot_hits")
    category = models.CharField(max_length=20)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    amount = models.BigIntegerField()
    meter_before = models.BigIntegerField()
    meter_after = models.BigIntegerField()
    table_ref = models.BigIntegerField(null=True, blank=True)
    hand_ref = models.BigIntegerField(null=True, blank=True, db_index=True)
    seat_number = models.PositiveSmallIntegerField(null=True, blank=True)
    prize_transaction = models.OneToOneField("wallets.Transaction", on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="hit_amount_positive")]
