"""What the auditors' API answers, as DRF output serializers that read the selectors'
typed results and the models directly (so that ``/api/schema/`` describes exactly what is
sent): a transaction and its legs, a hand's recall (``backoffice.auditor.recall.HandRecall``), a
player, a report row (``backoffice.reports.ReportRow``), a pool's reconciliation and
history, the integrity report, and the export register. Amounts and percentages leave as
decimal strings (``backoffice.serializers``)."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from backoffice.models import ExportJob
from backoffice.serializers import BlankAsNull, Cents, Percent
from poker.models import PokerHand
from wallets.api import Money
from wallets.models import Transaction


class LegOutput(serializers.Serializer):
    """A ``wallets.models.Leg``."""

    leg = serializers.IntegerField(source="pk")
    account = serializers.CharField(source="account.code")
    account_kind = serializers.CharField(source="account.kind")
    owner = serializers.CharField(source="account.owner.username", allow_null=True)
    side = serializers.CharField()
    amount = Cents(source="signed_amount", help_text="Signed decimal string.")


class TransactionOutput(serializers.Serializer):
    """A ``wallets.models.Transaction`` with its legs; its table's name from the context's
    ``table_names``, by transaction id (``backoffice.auditor.selectors.transaction_table_names``),
    else null."""

    transaction = serializers.IntegerField(source="pk")
    at = serializers.DateTimeField(source="created_at")
    kind = serializers.ChoiceField(choices=Transaction.Kind.choices)
    memo = serializers.CharField(allow_blank=True)
    game = BlankAsNull(allow_null=True, help_text="caribbean or poker: whose table and hand these are; null when none.")
    table = serializers.IntegerField(source="table_ref", allow_null=True)
    table_name = serializers.SerializerMethodField()
    hand = serializers.IntegerField(source="hand_ref", allow_null=True)
    actor = serializers.CharField(source="actor.username", allow_null=True)
    reverses = serializers.IntegerField(source="reverses_id", allow_null=True)
    mac = serializers.CharField()
    seal = serializers.IntegerField(source="seal.seq", allow_null=True, help_text="null: not sealed yet.")
    legs = LegOutput(many=True, source="legs.all")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_table_name(self, txn) -> str | None:
        return (self.context.get("table_names") or {}).get(txn.pk)


class FilterPlayerOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class FiltersOutput(serializers.Serializer):
    date_from = serializers.DateField(allow_null=True)
    date_to = serializers.DateField(allow_null=True)
    time_zone = serializers.CharField()
    player = FilterPlayerOutput(allow_null=True)
    game = serializers.CharField(allow_null=True, required=False)
    table = serializers.IntegerField(allow_null=True)
    hand = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField(allow_null=True)


class LedgerPageOutput(serializers.Serializer):
    """A page of the ledger, newest first. Pages are read by cursor, not counted: ``next``
    (older rows, ``before=``) and ``previous`` (newer rows, ``after=``) are null at either end."""

    next = serializers.URLField(allow_null=True, help_text="The older page (before= the last row), or null.")
    previous = serializers.URLField(allow_null=True, help_text="The newer page (after= the first row), or null.")
    results = TransactionOutput(many=True)
    max_limit = serializers.IntegerField()
    filters = FiltersOutput()


class ExportUrlsOutput(serializers.Serializer):
    self = serializers.URLField()
    download = serializers.URLField(allow_null=True, help_text="A finished file export only.")
    manifest = serializers.URLField(allow_null=True, help_text="A finished export only.")
    retry = serializers.URLField(allow_null=True, help_text="A failed file export only.")


class ExportKindTotalsOutput(serializers.Serializer):
    transactions = serializers.IntegerField()
    legs = serializers.IntegerField()
    debits = Money()
    credits = Money()
    net = Money()


class ExportTotalsOutput(serializers.Serializer):
    debits = Money()
    credits = Money()
    net = Money()


class PokerExportTotalsOutput(serializers.Serializer):
    hands = serializers.IntegerField()
    pots = Money()
    rake = Money()


class ExportManifestOutput(serializers.Serializer):
    """The manifest of a finished export: the ledger's (``subject`` "ledger") or the poker
    room's hand records' ("poker_hands"); the fields of one subject only are marked so."""

    manifest_version = serializers.IntegerField()
    export = serializers.IntegerField()
    subject = serializers.ChoiceField(
        choices=ExportJob.Subject.choices, required=False, help_text="Absent: the ledger."
    )
    mode = serializers.ChoiceField(choices=ExportJob.Mode.choices)
    format = serializers.ChoiceField(choices=ExportJob.Format.choices)
    media_type = serializers.CharField()
    file = serializers.CharField()
    columns = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="The ledger's, and poker JSON Lines rows' keys."
    )
    currency = serializers.CharField()
    amounts = serializers.CharField()
    order = serializers.CharField()
    filters = FiltersOutput()
    ledger_upto_transaction = serializers.IntegerField()
    generated_by = serializers.CharField()
    generated_at = serializers.CharField(help_text="UTC, ISO 8601.")
    completed_at = serializers.CharField(help_text="UTC, ISO 8601.")
    row_count = serializers.IntegerField()
    transaction_count = serializers.IntegerField(required=False, help_text="Ledger exports only.")
    totals_by_kind = serializers.DictField(
        child=ExportKindTotalsOutput(), required=False, help_text="Ledger exports only."
    )
    totals = ExportTotalsOutput(required=False, help_text="Ledger exports only.")
    hands_ended_upto = serializers.CharField(
        required=False, help_text="Poker hands only: the snapshot (UTC, ISO 8601)."
    )
    record_format = serializers.CharField(required=False, help_text="Poker hands only.")
    hand_totals = PokerExportTotalsOutput(required=False, help_text="Poker hands only.")
    by_table = serializers.DictField(
        child=PokerExportTotalsOutput(), required=False, help_text="Poker hands only: per table name."
    )
    bytes = serializers.IntegerField()
    sha256 = serializers.CharField()
    csv_formula_guard = serializers.CharField(required=False, help_text="CSV exports only.")


class ExportJobOutput(serializers.Serializer):
    """A ``backoffice.models.ExportJob`` (pass ``context={"request": request}`` for its URLs)."""

    id = serializers.IntegerField(source="pk")
    subject = serializers.ChoiceField(choices=ExportJob.Subject.choices)
    format = serializers.ChoiceField(choices=ExportJob.Format.choices)
    mode = serializers.ChoiceField(choices=ExportJob.Mode.choices)
    status = serializers.ChoiceField(choices=ExportJob.Status.choices)
    filters = FiltersOutput()
    ledger_upto = serializers.IntegerField(help_text="Highest transaction id in the snapshot.")
    requested_by = serializers.CharField(source="requested_by.username")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    rows_total = serializers.IntegerField(allow_null=True)
    rows_written = serializers.IntegerField()
    progress_pct = serializers.IntegerField(allow_null=True)
    bytes = serializers.IntegerField(source="bytes_written")
    sha256 = BlankAsNull(allow_null=True)
    file_name = BlankAsNull(allow_null=True)
    error = BlankAsNull(allow_null=True)
    urls = serializers.SerializerMethodField()
    manifest = serializers.SerializerMethodField()

    @extend_schema_field(ExportUrlsOutput())
    def get_urls(self, job: ExportJob) -> dict:
        request = self.context["request"]
        base = reverse("api-auditor-export", args=[job.pk])
        done = job.status == ExportJob.Status.DONE
        return {
            "self": request.build_absolute_uri(base),
            "download": request.build_absolute_uri(base + "download/")
            if done and job.mode == ExportJob.Mode.FILE
            else None,
            "manifest": request.build_absolute_uri(base + "manifest/") if done else None,
            "retry": request.build_absolute_uri(base + "retry/") if job.retryable else None,
        }

    @extend_schema_field(ExportManifestOutput(allow_null=True, help_text="A finished export only."))
    def get_manifest(self, job: ExportJob) -> dict | None:
        """The manifest as stored and delivered, every key of it."""
        return job.manifest if job.status == ExportJob.Status.DONE else None


class ExportJobsOutput(serializers.Serializer):
    results = ExportJobOutput(many=True)


class RecallTableOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class RecallPaytableOutput(serializers.Serializer):
    name = serializers.CharField(source="paytable_name")
    qualified = serializers.DictField(
        source="paytable_data.qualified",
        child=serializers.IntegerField(),
        help_text="Raise odds N to 1 per category, dealer qualified.",
    )
    not_qualified = serializers.DictField(
        source="paytable_data.not_qualified",
        child=serializers.IntegerField(),
        help_text="Raise odds N to 1 per category, dealer not qualified.",
    )


class RecallDealerOutput(serializers.Serializer):
    """The dealer's part of a ``backoffice.auditor.recall.HandRecall``."""

    cards = serializers.ListField(
        source="dealer_cards",
        child=serializers.CharField(),
        allow_null=True,
        help_text="Withheld (null) while the hand is in play.",
    )
    up_card = serializers.CharField(source="dealer_up_card", allow_null=True)
    category = serializers.CharField(source="dealer_category", allow_null=True, allow_blank=True)
    qualified = serializers.BooleanField(source="dealer_qualified", allow_null=True)


class RecallPlayerOutput(serializers.Serializer):
    id = serializers.IntegerField(source="player_id")
    username = serializers.CharField(source="player")


class RecallSeatOutput(serializers.Serializer):
    """A ``backoffice.auditor.recall.RecallSeat``."""

    seat = serializers.IntegerField()
    player = RecallPlayerOutput(source="*")
    client_seed = serializers.CharField(allow_blank=True)
    ante = Cents()
    jackpot_bet = Cents()
    # "raise" is a Python keyword: declared below.
    decision = serializers.CharField(allow_null=True)
    decided_by_timeout = serializers.BooleanField()
    extension_used = serializers.BooleanField()
    cards = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="Withheld (null) while the hand is in play."
    )
    category = serializers.CharField(allow_null=True)
    outcome = serializers.CharField(allow_null=True)
    paytable_line = serializers.CharField(allow_null=True)
    paytable_line_text = serializers.CharField(allow_null=True)
    ante_return = Cents()
    raise_return = Cents()
    jackpot_win = Cents()
    net = Cents(allow_null=True)


RecallSeatOutput._declared_fields["raise"] = Cents(source="raise_amount")


class RecallDealStepOutput(serializers.Serializer):
    position = serializers.IntegerField(help_text="0-based, the order the card left the deck.")
    round = serializers.IntegerField()
    to = serializers.ChoiceField(choices=[("seat", "seat"), ("dealer", "dealer")])
    seat = serializers.IntegerField(allow_null=True)
    player = serializers.CharField(allow_null=True)
    card = serializers.CharField()
    face_up = serializers.BooleanField()


class RecallCheckOutput(serializers.Serializer):
    """A ``backoffice.auditor.recall.Check``."""

    name = serializers.CharField()
    ok = serializers.BooleanField(allow_null=True, help_text="null: cannot be checked yet.")
    detail = serializers.CharField(allow_blank=True)


class RecallVerificationOutput(serializers.Serializer):
    verified = serializers.BooleanField()
    checks = RecallCheckOutput(many=True)


class RecallJackpotHitOutput(serializers.Serializer):
    """A ``jackpot.models.JackpotHit``."""

    seat = serializers.IntegerField(source="seat_number", allow_null=True)
    player = serializers.CharField(source="player.username")
    category = serializers.CharField()
    kind = serializers.CharField()
    amount = Cents()
    meter_before = Cents()
    meter_after = Cents()
    transaction = serializers.IntegerField(source="prize_transaction_id", allow_null=True)


class RecallJackpotOutput(serializers.Serializer):
    transactions = TransactionOutput(many=True, source="jackpot_transactions")
    hits = RecallJackpotHitOutput(many=True, source="jackpot_hits")


class HandRecallOutput(serializers.Serializer):
    """A ``backoffice.auditor.recall.HandRecall`` (pass ``context={"table_names": recall.table_names}``)."""

    hand = serializers.IntegerField(source="hand.pk")
    table = RecallTableOutput(source="hand.table")
    nonce = serializers.IntegerField(source="hand.nonce")
    state = serializers.CharField(source="hand.state")
    opened_at = serializers.DateTimeField(source="hand.opened_at")
    dealt_at = serializers.DateTimeField(source="hand.dealt_at", allow_null=True)
    settled_at = serializers.DateTimeField(source="hand.settled_at", allow_null=True)
    paytable = RecallPaytableOutput(source="hand")
    min_ante = Cents(source="hand.min_ante")
    max_ante = Cents(source="hand.max_ante")
    jackpot_bet_amount = Cents(source="hand.jackpot_bet_amount")
    commitment = serializers.CharField(source="hand.commitment")
    server_seed = serializers.CharField(allow_null=True, help_text="Revealed once the hand is over.")
    client_seed = serializers.CharField(allow_null=True)
    dealer = RecallDealerOutput(source="*")
    seats = RecallSeatOutput(many=True)
    settlement_order = serializers.SerializerMethodField()
    deal = RecallDealStepOutput(many=True, source="steps")
    verification = RecallVerificationOutput(source="*")
    jackpot = RecallJackpotOutput(source="*")
    transactions = TransactionOutput(many=True)

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_settlement_order(self, recall) -> list[int]:
        return [seat.seat for seat in recall.settlement_order]


class PlayerRowOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_active = serializers.BooleanField()


class PlayerRowsOutput(serializers.Serializer):
    results = PlayerRowOutput(many=True)


class PlayerAccountOutput(serializers.Serializer):
    """A ``wallets.models.Account``."""

    code = serializers.CharField()
    kind = serializers.CharField()
    balance = Cents()


class PlayerHandOutput(serializers.Serializer):
    """A ``tables.models.HandSeat``, the player's part in one hand."""

    hand = serializers.IntegerField(source="hand_id")
    table = serializers.CharField(source="hand.table.name", help_text="The table's name.")
    state = serializers.CharField(source="hand.state")
    seat = serializers.IntegerField(source="seat_number")
    ante = Cents()
    jackpot_bet = Cents()
    decision = BlankAsNull(allow_null=True)
    outcome = BlankAsNull(allow_null=True)
    net = Cents(allow_null=True)
    recall = serializers.SerializerMethodField(help_text="The hand's recall (GET).")

    def get_recall(self, seat) -> str:
        return reverse("api-auditor-hand", args=[seat.hand_id])


class PlayerPokerHandOutput(serializers.Serializer):
    """A row of ``backoffice.auditor.selectors.player_poker_hands``: the player in one poker hand."""

    hand = serializers.IntegerField(source="hand.pk")
    table = serializers.CharField(source="hand.table.name", help_text="The poker table's name.")
    game = serializers.CharField(source="hand.table.game")
    ended_at = serializers.DateTimeField(source="hand.ended_at")
    seat = serializers.IntegerField()
    pot = Cents(source="hand.pot_total")
    net = Cents(help_text="What the hand won or lost the player, after the rake.")
    recall = serializers.SerializerMethodField(help_text="The poker hand's recall (GET).")

    def get_recall(self, row) -> str:
        return reverse("api-auditor-poker-hand", args=[row["hand"].pk])


class PlayerDetailOutput(serializers.Serializer):
    """A ``backoffice.auditor.selectors.player_summary``."""

    id = serializers.IntegerField(source="player.pk")
    username = serializers.CharField(source="player.username")
    available = Cents()
    in_play = Cents()
    at_poker = Cents(help_text="The chips the player holds at poker tables.")
    accounts = PlayerAccountOutput(many=True)
    hands_played = serializers.IntegerField(help_text="Caribbean hands settled.")
    net = Cents(help_text="Net from Caribbean play.")
    jackpot_wins = Cents()
    recent_hands = PlayerHandOutput(many=True, source="recent")
    recent_poker_hands = PlayerPokerHandOutput(many=True, source="poker_recent")


class ReportRowOutput(serializers.Serializer):
    """A ``backoffice.reports.ReportRow``."""

    day = serializers.DateField(allow_null=True, help_text="null in the per-table and total rows.")
    table = serializers.IntegerField(source="table_id", allow_null=True)
    table_name = serializers.CharField(source="table", allow_blank=True)
    paytable = serializers.CharField(allow_blank=True)
    hands = serializers.IntegerField()
    seats = serializers.IntegerField()
    antes = Cents()
    raises = Cents()
    jackpot_bets = Cents()
    wagered = Cents()
    ante_raise_returns = Cents(source="main_paid")
    jackpot_prizes = Cents(source="jackpot_wins")
    paid = Cents()
    ggr = Cents()
    hold_pct = Percent(allow_null=True, help_text="A decimal string; null when nothing was wagered.")
    actual_return_pct = Percent(allow_null=True)
    theoretical_return_pct = serializers.CharField(source="theoretical.return_pct", allow_null=True)
    jackpot_return_pct = Percent(allow_null=True)
    raise_rate_pct = Percent(allow_null=True)
    ledger_house_settlements = Cents(source="ledger_house", allow_null=True)
    ledger_ok = serializers.BooleanField(allow_null=True)


class TheoreticalReturnOutput(serializers.Serializer):
    method = serializers.CharField()
    hands = serializers.IntegerField()
    seed = serializers.IntegerField()
    strategy = serializers.CharField()
    return_pct = serializers.CharField()
    house_edge_pct = serializers.CharField()
    ci95_pct = serializers.ListField(child=serializers.CharField(), min_length=2, max_length=2)
    raise_rate_pct = serializers.CharField()


class ReportDefinitionsOutput(serializers.Serializer):
    wagered = serializers.CharField()
    paid = serializers.CharField()
    ggr = serializers.CharField()
    hold_pct = serializers.CharField()
    actual_return_pct = serializers.CharField()
    theoretical_return_pct = serializers.CharField()


class ReportOutput(serializers.Serializer):
    rows = ReportRowOutput(many=True)
    by_table = ReportRowOutput(many=True)
    total = ReportRowOutput()
    theoretical = serializers.DictField(
        child=TheoreticalReturnOutput(allow_null=True),
        help_text="Per pay table name; null when it changed within the range.",
    )
    definitions = ReportDefinitionsOutput()


class PoolAccountOutput(serializers.Serializer):
    """A ``jackpot.selectors.AccountReconciliation``."""

    code = serializers.CharField()
    balance = Cents()
    from_ledger = Cents()
    inflows = serializers.DictField(child=Cents())
    outflows = serializers.DictField(child=Cents())
    ok = serializers.BooleanField()


class ReconciliationOutput(serializers.Serializer):
    """A ``jackpot.selectors.PoolReconciliation``."""

    pool = serializers.IntegerField(source="pool.pk")
    name = serializers.CharField(source="pool.name")
    ok = serializers.BooleanField()
    problems = serializers.ListField(child=serializers.CharField())
    meter = PoolAccountOutput()
    reserve = PoolAccountOutput()


class ReconciliationsOutput(serializers.Serializer):
    results = ReconciliationOutput(many=True)


class LedgerCheckOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    transactions = serializers.IntegerField(
        help_text="Transactions verified: those written since the checkpoint (all of them without one)."
    )
    sealed = serializers.IntegerField(help_text="Seals verified since the checkpoint.")
    pending = serializers.IntegerField()
    problems = serializers.ListField(child=serializers.CharField())


class AccountMismatchOutput(serializers.Serializer):
    account = serializers.CharField()
    balance = Cents()
    from_legs = Cents()


class CheckpointOutput(serializers.Serializer):
    """A ``wallets.models.LedgerCheckpoint``: the point a routine check starts from."""

    seq = serializers.IntegerField(help_text="The last seal verified.")
    transactions = serializers.IntegerField(help_text="Transactions sealed up to it.")
    full = serializers.BooleanField(help_text="Written by a full verification (else by a routine check).")
    created_at = serializers.DateTimeField()


class VerificationOutput(serializers.Serializer):
    """A full verification of the ledger in the background (``wallets.models.LedgerVerification``)."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    requested_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    done = serializers.SerializerMethodField(help_text="Transactions verified so far.")
    total = serializers.IntegerField(help_text="Transactions to verify (when it started).")
    ok = serializers.BooleanField(allow_null=True, help_text="Null until it is done.")
    problems = serializers.ListField(child=serializers.CharField())

    def get_done(self, job) -> int:
        from wallets.integrity import ledger_verification_progress

        return ledger_verification_progress(job=job)


class IntegrityOutput(serializers.Serializer):
    """A ``backoffice.reports.IntegrityReport``: the routine check from the latest
    checkpoint, and the latest full verification (started with POST
    ``integrity/verifications/``)."""

    checkpoint = CheckpointOutput(allow_null=True, help_text="Where the check started; null: it read the whole ledger.")
    verification = VerificationOutput(allow_null=True, help_text="The latest full verification, if any.")

    ok = serializers.BooleanField()
    ledger = LedgerCheckOutput()
    ledger_sum = Cents()
    accounts = serializers.IntegerField()
    account_mismatches = AccountMismatchOutput(many=True)
    pools = ReconciliationOutput(many=True)


class PoolDayOutput(serializers.Serializer):
    """A ``jackpot.selectors.PoolDay``."""

    day = serializers.DateField()
    contributions_meter = Cents()
    contributions_reserve = Cents()
    prizes_from_meter = Cents(source="prizes")
    fixed_prizes_by_house = Cents(source="fixed_prizes")
    resets_from_reserve = Cents()
    resets_from_house = Cents()
    fundings = Cents()
    reversals = Cents()
    meter_end = Cents()
    reserve_end = Cents()
    hits = serializers.IntegerField()


class PoolHitOutput(serializers.Serializer):
    """A ``jackpot.models.JackpotHit``."""

    at = serializers.DateTimeField(source="created_at")
    player = serializers.CharField(source="player.username")
    category = serializers.CharField()
    kind = serializers.CharField()
    amount = Cents()
    meter_before = Cents()
    meter_after = Cents()
    table = serializers.IntegerField(source="table_ref", allow_null=True)
    hand = serializers.IntegerField(source="hand_ref", allow_null=True)
    transaction = serializers.IntegerField(source="prize_transaction_id", allow_null=True)


class PoolHistoryOutput(serializers.Serializer):
    """A ``jackpot.selectors.pool_history``."""

    pool = serializers.IntegerField(source="pool.pk")
    name = serializers.CharField(source="pool.name")
    seed = Cents(source="pool.seed_amount")
    meter = Cents()
    reserve = Cents()
    days = PoolDayOutput(many=True)
    hits = PoolHitOutput(many=True, help_text="The newest 200 hits.")
    hits_total = serializers.IntegerField(help_text="Every hit of the pool.")
    events = TransactionOutput(
        many=True, help_text="The newest 200 prizes, resets, fundings and reversals on the pool."
    )
    reconciliation = ReconciliationOutput()


# --- the poker room --------------------------------------------------------------------


class PokerCardOutput(serializers.Serializer):
    """A ``poker.audit.RecallCard``."""

    card = serializers.CharField(
        source="code", allow_null=True, help_text="null: face down, withheld while the hand is live."
    )
    up = serializers.BooleanField()
    street = serializers.IntegerField()


class PokerRecallSeatOutput(serializers.Serializer):
    """A ``poker.audit.RecallSeat``."""

    seat = serializers.IntegerField()
    player = serializers.CharField()
    user_id = serializers.IntegerField()
    stack = Cents(help_text="Before the ante.")
    client_seed = serializers.CharField()
    cards = PokerCardOutput(many=True)
    folded_on = serializers.IntegerField(allow_null=True, help_text="The street of the fold.")
    showdown = serializers.ChoiceField(
        choices=[("shown", "shown"), ("mucked", "mucked"), ("", "not at showdown")], allow_blank=True
    )
    category = serializers.CharField(allow_blank=True)
    hand_name = serializers.CharField(allow_blank=True)
    best_five = serializers.ListField(child=serializers.CharField())
    won = Cents()
    net = Cents(allow_null=True)


class PokerActionOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    action = serializers.CharField()
    amount = Cents(help_text="Chips the action added.")
    to = Cents(help_text="The seat's total this street after it.")


class PokerDealOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    cards = PokerCardOutput(many=True)


class PokerStreetOutput(serializers.Serializer):
    """A ``poker.audit.RecallStreet``."""

    number = serializers.IntegerField()
    title = serializers.CharField()
    burns = serializers.ListField(child=serializers.CharField(allow_null=True))
    deals = PokerDealOutput(many=True)
    actions = PokerActionOutput(many=True)
    notes = serializers.ListField(child=serializers.CharField())


class PokerShareOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = serializers.CharField()
    amount = Cents()


class PokerPotOutput(serializers.Serializer):
    index = serializers.IntegerField(help_text="0: the main pot.")
    label = serializers.CharField()
    amount = Cents(help_text="Before the rake.")
    rake = Cents()
    eligible = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    shares = PokerShareOutput(many=True)


class PokerAwardOutput(serializers.Serializer):
    pot = serializers.IntegerField()
    seat = serializers.IntegerField()
    player = serializers.CharField()
    amount = Cents()


class PokerCheckOutput(serializers.Serializer):
    """A ``poker.audit.PokerCheck``."""

    name = serializers.CharField()
    label = serializers.CharField()
    ok = serializers.BooleanField(allow_null=True, help_text="null: cannot be checked yet.")
    detail = serializers.CharField(allow_blank=True)


class PokerTableRefOutput(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    game = serializers.CharField()


class PokerHandRecallOutput(serializers.Serializer):
    """A ``poker.audit.PokerRecall`` (pass ``context={"table_names": …}`` for the transactions:
    ``transaction_table_names``)."""

    hand = serializers.IntegerField(source="hand.pk")
    table = PokerTableRefOutput()
    number = serializers.IntegerField(source="hand.number")
    game_label = serializers.CharField()
    state = serializers.ChoiceField(source="hand.state", choices=PokerHand.State.choices)
    started_at = serializers.DateTimeField(source="hand.started_at")
    ended_at = serializers.DateTimeField(source="hand.ended_at", allow_null=True)
    cancel_reason = serializers.CharField(source="hand.cancel_reason", allow_blank=True)
    commitment = serializers.CharField(source="hand.commitment")
    server_seed = serializers.CharField(allow_null=True, help_text="Revealed once the hand is over.")
    client_seed = serializers.CharField()
    seats = PokerRecallSeatOutput(many=True)
    streets = PokerStreetOutput(many=True)
    showdown_order = serializers.ListField(child=serializers.IntegerField())
    community = serializers.CharField(allow_null=True)
    pots = PokerPotOutput(many=True)
    awards = PokerAwardOutput(many=True)
    pot_total = Cents()
    rake = Cents()
    verified = serializers.BooleanField()
    checks = PokerCheckOutput(many=True)
    transactions = TransactionOutput(many=True)
    record = serializers.JSONField(
        allow_null=True, help_text="The stored hand record (docs/stud-hand-record.md), once over."
    )


class PokerHandRowOutput(serializers.Serializer):
    """A ``poker.models.PokerHand`` in the auditor's list."""

    hand = serializers.IntegerField(source="pk")
    table = PokerTableRefOutput()
    number = serializers.IntegerField()
    state = serializers.ChoiceField(choices=PokerHand.State.choices)
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    players = serializers.SerializerMethodField()
    pot_total = Cents()
    rake = Cents()

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_players(self, hand) -> list[str]:
        return [s["player"] for s in hand.seats]


class PokerHandPageOutput(serializers.Serializer):
    """A page of the poker hands, newest first, read by cursor, not counted: ``next`` (older
    hands, ``before=``) and ``previous`` (newer hands, ``after=``) are null at either end."""

    results = PokerHandRowOutput(many=True)
    next = serializers.URLField(allow_null=True, help_text="The older page (before= the last hand), or null.")
    previous = serializers.URLField(allow_null=True, help_text="The newer page (after= the first hand), or null.")
    max_limit = serializers.IntegerField()


class PokerRakeRowOutput(serializers.Serializer):
    """A ``poker.audit.RakeRow``."""

    day = serializers.DateField(allow_null=True)
    table_id = serializers.IntegerField(allow_null=True)
    table = serializers.CharField()
    hands = serializers.IntegerField()
    pots = Cents()
    rake = Cents(help_text="From the ledger: the legs on the table's rake account.")
    record_rake = Cents(help_text="What the hands' records say.")
    ok = serializers.BooleanField(help_text="The ledger's rake equals the records'.")


class PokerRakeTableOutput(serializers.Serializer):
    row = PokerRakeRowOutput()
    balance = Cents(help_text="The rake account's balance now.")
    balance_ok = serializers.BooleanField(allow_null=True, help_text="null: a date range was given.")


class PokerRakeReportOutput(serializers.Serializer):
    rows = PokerRakeRowOutput(many=True)
    by_table = PokerRakeTableOutput(many=True)
    total = PokerRakeRowOutput()
    balance = Cents(help_text="The rake accounts' balances, summed.")
    whole_ledger = serializers.BooleanField()


class PokerReconciliationOutput(serializers.Serializer):
    """A row of ``poker.selectors.poker_reconciliation``."""

    table = serializers.CharField()
    bought_in = Cents()
    cashed_out = Cents()
    in_play = Cents()
    rake = Cents()
    hands = serializers.IntegerField()
    ok = serializers.SerializerMethodField()
    problems = serializers.ListField(child=serializers.CharField())

    def get_ok(self, row) -> bool:
        return not row["problems"]


class PokerReconciliationsOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    results = PokerReconciliationOutput(many=True)
