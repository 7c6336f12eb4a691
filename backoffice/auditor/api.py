"""REST endpoints of the auditors, mounted at /api/auditor/.

Every endpoint needs the auditor role (``casino.policy.Allowed("audit.read")``); anyone else gets 403
with ``{"code", "message", "extra"}``. All are reads except ``POST exports/``, which
starts a file export (a row in the export register, never a ledger row) and honours an
``Idempotency-Key``. Amounts are decimal strings, percentages decimal strings too.
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice import exports, reports
from backoffice.auditor import selectors
from backoffice.auditor.forms import ExportRequestForm, LedgerFilterForm, PlayerSearchForm, ReportForm, form_errors
from backoffice.models import ExportJob
from casino import policy
from casino.api import error_responses
from casino.errors import ValidationError
from casino.idempotency import idempotent
from casino.money import format_cents
from casino.validation import Pagination
from wallets.api import Money
from jackpot import selectors as jackpot_selectors
from tables import selectors as table_selectors
from wallets import selectors as wallet_selectors
from wallets.models import Transaction

FILTER_PARAMETERS = [
    OpenApiParameter("date_from", OpenApiTypes.DATE, description="First day, inclusive (site time zone)."),
    OpenApiParameter("date_to", OpenApiTypes.DATE, description="Last day, inclusive."),
    OpenApiParameter("player", OpenApiTypes.STR, description="Username or id: transactions touching the player's accounts."),
    OpenApiParameter("table", OpenApiTypes.INT),
    OpenApiParameter("hand", OpenApiTypes.INT),
    OpenApiParameter("kind", OpenApiTypes.STR, enum=[k for k, _ in Transaction.Kind.choices]),
]


class AnyAccept(BaseContentNegotiation):
    """Downloads answer whatever the client accepts (errors still come as JSON)."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class AuditorApi(APIView):
    permission_classes = [policy.Allowed("audit.read")]


def ledger_filters(params):
    form = LedgerFilterForm(params)
    if not form.is_valid():
        raise ValidationError("The filters are not valid.", code="invalid_filters", extra={"fields": form_errors(form)})
    return form.filters()


def leg_body(leg) -> dict:
    return {
        "leg": leg.pk,
        "account": leg.account.code,
        "account_kind": leg.account.kind,
        "owner": leg.account.owner.get_username() if leg.account.owner_id else None,
        "side": leg.side,
        "amount": format_cents(leg.signed_amount),
    }


def transaction_body(txn, names: dict) -> dict:
    try:
        seal = txn.seal.seq
    except Exception:  # noqa: BLE001 - no seal yet
        seal = None
    return {
        "transaction": txn.pk,
        "at": txn.created_at,
        "kind": txn.kind,
        "memo": txn.memo,
        "table": txn.table_ref,
        "table_name": names.get(txn.table_ref),
        "hand": txn.hand_ref,
        "actor": txn.actor.get_username() if txn.actor_id else None,
        "reverses": txn.reverses_id,
        "mac": txn.mac,
        "seal": seal,
        "legs": [leg_body(leg) for leg in txn.legs.all()],
    }


class LegOutput(serializers.Serializer):
    leg = serializers.IntegerField()
    account = serializers.CharField()
    account_kind = serializers.CharField()
    owner = serializers.CharField(allow_null=True)
    side = serializers.CharField()
    amount = Money(help_text="Signed decimal string.")


class TransactionOutput(serializers.Serializer):
    transaction = serializers.IntegerField()
    at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=Transaction.Kind.choices)
    memo = serializers.CharField(allow_blank=True)
    table = serializers.IntegerField(allow_null=True)
    table_name = serializers.CharField(allow_null=True)
    hand = serializers.IntegerField(allow_null=True)
    actor = serializers.CharField(allow_null=True)
    reverses = serializers.IntegerField(allow_null=True)
    mac = serializers.CharField()
    seal = serializers.IntegerField(allow_null=True)
    legs = LegOutput(many=True)


class FilterPlayerOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class FiltersOutput(serializers.Serializer):
    date_from = serializers.DateField(allow_null=True)
    date_to = serializers.DateField(allow_null=True)
    time_zone = serializers.CharField()
    player = FilterPlayerOutput(allow_null=True)
    table = serializers.IntegerField(allow_null=True)
    hand = serializers.IntegerField(allow_null=True)
    kind = serializers.CharField(allow_null=True)


class LedgerPageOutput(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = TransactionOutput(many=True)
    max_limit = serializers.IntegerField()
    filters = FiltersOutput()


PAGE_PARAMETERS = [
    OpenApiParameter("limit", OpenApiTypes.INT, description=f"Rows per page, 1 to {Pagination.max_limit}."),
    OpenApiParameter("offset", OpenApiTypes.INT),
]


class LedgerApi(AuditorApi):
    @extend_schema(
        parameters=FILTER_PARAMETERS + PAGE_PARAMETERS,
        responses={200: LedgerPageOutput, **error_responses(400, 401, 403)},
        summary="Ledger transactions with their legs, newest first",
    )
    def get(self, request):
        filters = ledger_filters(request.query_params)
        paginator = Pagination()
        page = paginator.paginate_queryset(wallet_selectors.ledger_transactions(filters=filters), request, view=self)
        names = table_selectors.table_names(t.table_ref for t in page)
        response = paginator.get_paginated_response([transaction_body(t, names) for t in page])
        response.data["filters"] = filters.describe()
        return response


class LedgerExportApi(AuditorApi):
    content_negotiation_class = AnyAccept
    http_method_names = ["get", "options"]  # no HEAD: every export is recorded and streamed to the end
    fmt = ExportJob.Format.CSV

    @extend_schema(parameters=FILTER_PARAMETERS, responses={(200, "text/csv"): OpenApiTypes.BINARY}, summary="Streamed export of the ledger, one row per leg")
    def get(self, request):
        filters = ledger_filters(request.query_params)
        job = exports.export_stream_open(user=request.user, fmt=self.fmt, filters=filters)
        response = exports.streaming_response(
            request, exports.export_stream(job=job, filters=filters), content_type=exports.MEDIA_TYPES[self.fmt], filename=job.file_name
        )
        manifest = request.build_absolute_uri(reverse("api-auditor-export-manifest", args=[job.pk]))
        response["X-Export-Id"] = str(job.pk)
        response["Link"] = f'<{manifest}>; rel="describedby"; type="application/json"'
        return response


class LedgerExportJsonlApi(LedgerExportApi):
    fmt = ExportJob.Format.JSONL


def job_body(job: ExportJob, request) -> dict:
    base = reverse("api-auditor-export", args=[job.pk])
    done = job.status == ExportJob.Status.DONE
    return {
        "id": job.pk,
        "format": job.format,
        "mode": job.mode,
        "status": job.status,
        "filters": job.filters,
        "ledger_upto": job.ledger_upto,
        "requested_by": job.requested_by.get_username(),
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
        "rows_total": job.rows_total,
        "rows_written": job.rows_written,
        "progress_pct": job.progress_pct,
        "bytes": job.bytes_written,
        "sha256": job.sha256 or None,
        "file_name": job.file_name or None,
        "error": job.error or None,
        "urls": {
            "self": request.build_absolute_uri(base),
            "download": request.build_absolute_uri(base + "download/") if done and job.mode == ExportJob.Mode.FILE else None,
            "manifest": request.build_absolute_uri(base + "manifest/") if done else None,
            "retry": request.build_absolute_uri(base + "retry/") if job.retryable else None,
        },
        "manifest": job.manifest if done else None,
    }


class ExportRequestInput(serializers.Serializer):
    """The body of a file export request (the ledger's filters and a format)."""

    format = serializers.ChoiceField(choices=ExportJob.Format.choices, required=False, default=ExportJob.Format.CSV)
    date_from = serializers.DateField(required=False, allow_null=True, help_text="First day, inclusive (site time zone).")
    date_to = serializers.DateField(required=False, allow_null=True, help_text="Last day, inclusive.")
    player = serializers.CharField(required=False, allow_blank=True, allow_null=True, max_length=150, help_text="Username or id.")
    table = serializers.IntegerField(required=False, allow_null=True)
    hand = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    kind = serializers.ChoiceField(choices=[("", "Any kind"), *Transaction.Kind.choices], required=False, allow_blank=True, allow_null=True)


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


class ExportManifestOutput(serializers.Serializer):
    manifest_version = serializers.IntegerField()
    export = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=ExportJob.Mode.choices)
    format = serializers.ChoiceField(choices=ExportJob.Format.choices)
    media_type = serializers.CharField()
    file = serializers.CharField()
    columns = serializers.ListField(child=serializers.CharField())
    currency = serializers.CharField()
    amounts = serializers.CharField()
    order = serializers.CharField()
    filters = FiltersOutput()
    ledger_upto_transaction = serializers.IntegerField()
    generated_by = serializers.CharField()
    generated_at = serializers.CharField(help_text="UTC, ISO 8601.")
    completed_at = serializers.CharField(help_text="UTC, ISO 8601.")
    row_count = serializers.IntegerField()
    transaction_count = serializers.IntegerField()
    totals_by_kind = serializers.DictField(child=ExportKindTotalsOutput())
    totals = ExportTotalsOutput()
    bytes = serializers.IntegerField()
    sha256 = serializers.CharField()
    csv_formula_guard = serializers.CharField(required=False, help_text="CSV exports only.")


class ExportJobOutput(serializers.Serializer):
    id = serializers.IntegerField()
    format = serializers.ChoiceField(choices=ExportJob.Format.choices)
    mode = serializers.ChoiceField(choices=ExportJob.Mode.choices)
    status = serializers.ChoiceField(choices=ExportJob.Status.choices)
    filters = FiltersOutput()
    ledger_upto = serializers.IntegerField(help_text="Highest transaction id in the snapshot.")
    requested_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    rows_total = serializers.IntegerField(allow_null=True)
    rows_written = serializers.IntegerField()
    progress_pct = serializers.IntegerField(allow_null=True)
    bytes = serializers.IntegerField()
    sha256 = serializers.CharField(allow_null=True)
    file_name = serializers.CharField(allow_null=True)
    error = serializers.CharField(allow_null=True)
    urls = ExportUrlsOutput()
    manifest = ExportManifestOutput(allow_null=True, help_text="A finished export only.")


class ExportJobsOutput(serializers.Serializer):
    results = ExportJobOutput(many=True)


class ExportListApi(AuditorApi):
    @extend_schema(operation_id="auditor_exports_list", responses={200: ExportJobsOutput, **error_responses(401, 403)}, summary="The export register (auditor-wide), newest first")
    def get(self, request):
        return Response({"results": [job_body(j, request) for j in exports.export_list()]})

    @extend_schema(request=ExportRequestInput, responses={202: ExportJobOutput, **error_responses(400, 401, 403, 409)}, summary="Start a file export (Celery) with filters and a format")
    @idempotent
    def post(self, request):
        form = ExportRequestForm(request.data)
        if not form.is_valid():
            raise ValidationError("The export request is not valid.", code="invalid_export", extra={"fields": form_errors(form)})
        job = exports.export_file_request(user=request.user, fmt=form.cleaned_data["format"], filters=form.filters())
        job.refresh_from_db()
        body = job_body(job, request)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["urls"]["self"]})


class ExportDetailApi(AuditorApi):
    @extend_schema(responses={200: ExportJobOutput, **error_responses(401, 403, 404)}, summary="One export: status, progress (rows written / total), manifest when done")
    def get(self, request, job_id: int):
        return Response(job_body(exports.export_get(job_id=job_id), request))


class ExportRetryApi(AuditorApi):
    @extend_schema(request=None, responses={202: ExportJobOutput, **error_responses(400, 401, 403, 404, 409)}, summary="Run a failed file export again (same filters and snapshot)")
    @idempotent
    def post(self, request, job_id: int):
        body = job_body(exports.export_file_retry(job_id=job_id), request)
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["urls"]["self"]})


class ExportDownloadApi(AuditorApi):
    content_negotiation_class = AnyAccept

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY}, summary="The file of a finished file export")
    def get(self, request, job_id: int):
        return exports.file_download_response(request, exports.export_get(job_id=job_id))


class ExportManifestApi(AuditorApi):
    content_negotiation_class = AnyAccept

    @extend_schema(responses={200: ExportManifestOutput, **error_responses(401, 403, 404, 409)}, summary="The manifest of a finished export, as delivered")
    def get(self, request, job_id: int):
        return exports.manifest_response(exports.export_get(job_id=job_id))


def recall_body(recall: dict) -> dict:
    hand = recall["hand"]
    over = recall["over"]
    names = {hand.table_id: hand.table.name}
    return {
        "hand": hand.pk,
        "table": {"id": hand.table_id, "name": hand.table.name},
        "nonce": hand.nonce,
        "state": hand.state,
        "opened_at": hand.opened_at,
        "dealt_at": hand.dealt_at,
        "settled_at": hand.settled_at,
        "paytable": {"name": hand.paytable_name, **hand.paytable_data},
        "min_ante": format_cents(hand.min_ante),
        "max_ante": format_cents(hand.max_ante),
        "jackpot_bet_amount": format_cents(hand.jackpot_bet_amount),
        "commitment": hand.commitment,
        "server_seed": hand.server_seed if over else None,
        "client_seed": hand.client_seed or None,
        "dealer": {
            "cards": list(hand.dealer_cards) if over else None,
            "up_card": hand.dealer_up_card if over else None,
            "category": hand.dealer_category if over else None,
            "qualified": hand.dealer_qualified if over else None,
        },
        "seats": [
            {
                "seat": hs.seat_number,
                "player": {"id": hs.player_id, "username": hs.player.get_username()},
                "client_seed": hs.client_seed,
                "ante": format_cents(hs.ante),
                "jackpot_bet": format_cents(hs.jackpot_bet),
                "raise": format_cents(hs.raise_amount),
                "decision": hs.decision or None,
                "decided_by_timeout": hs.decided_by_timeout,
                "extension_used": hs.extension_used,
                "cards": list(hs.cards) if over else None,
                "category": hs.category if over and hs.category else None,
                "outcome": hs.outcome or None,
                "paytable_line": hs.paytable_line or None,
                "paytable_line_text": recall["paytable_lines"].get(hs.seat_number) or None,
                "ante_return": format_cents(hs.ante_return),
                "raise_return": format_cents(hs.raise_return),
                "jackpot_win": format_cents(hs.jackpot_win),
                "net": format_cents(hs.net) if hs.net is not None else None,
            }
            for hs in recall["seats"]
        ],
        "settlement_order": [hs.seat_number for hs in recall["settlement_order"]],
        "deal": recall["steps"],
        "verification": {
            "verified": recall["verified"],
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in recall["checks"]],
        },
        "jackpot": {
            "transactions": [transaction_body(t, names) for t in recall["jackpot_transactions"]],
            "hits": [
                {
                    "seat": hit.seat_number,
                    "player": hit.player.get_username(),
                    "category": hit.category,
                    "kind": hit.kind,
                    "amount": format_cents(hit.amount),
                    "meter_before": format_cents(hit.meter_before),
                    "meter_after": format_cents(hit.meter_after),
                    "transaction": hit.prize_transaction_id,
                }
                for hit in recall["jackpot_hits"]
            ],
        },
        "transactions": [transaction_body(t, names) for t in recall["transactions"]],
    }


class RecallTableOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class RecallPaytableOutput(serializers.Serializer):
    name = serializers.CharField()
    qualified = serializers.DictField(child=serializers.IntegerField(), help_text="Raise odds N to 1 per category, dealer qualified.")
    not_qualified = serializers.DictField(child=serializers.IntegerField(), help_text="Raise odds N to 1 per category, dealer not qualified.")


class RecallDealerOutput(serializers.Serializer):
    cards = serializers.ListField(child=serializers.CharField(), allow_null=True, help_text="Withheld (null) while the hand is in play.")
    up_card = serializers.CharField(allow_null=True)
    category = serializers.CharField(allow_null=True, allow_blank=True)
    qualified = serializers.BooleanField(allow_null=True)


class RecallSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    player = FilterPlayerOutput()
    client_seed = serializers.CharField(allow_blank=True)
    ante = Money()
    jackpot_bet = Money()
    # "raise" is a Python keyword: declared below.
    decision = serializers.CharField(allow_null=True)
    decided_by_timeout = serializers.BooleanField()
    extension_used = serializers.BooleanField()
    cards = serializers.ListField(child=serializers.CharField(), allow_null=True, help_text="Withheld (null) while the hand is in play.")
    category = serializers.CharField(allow_null=True)
    outcome = serializers.CharField(allow_null=True)
    paytable_line = serializers.CharField(allow_null=True)
    paytable_line_text = serializers.CharField(allow_null=True)
    ante_return = Money()
    raise_return = Money()
    jackpot_win = Money()
    net = Money(allow_null=True)


RecallSeatOutput._declared_fields["raise"] = Money()


class RecallDealStepOutput(serializers.Serializer):
    position = serializers.IntegerField(help_text="0-based, the order the card left the deck.")
    round = serializers.IntegerField()
    to = serializers.ChoiceField(choices=[("seat", "seat"), ("dealer", "dealer")])
    seat = serializers.IntegerField(allow_null=True)
    player = serializers.CharField(allow_null=True)
    card = serializers.CharField()
    face_up = serializers.BooleanField()


class RecallCheckOutput(serializers.Serializer):
    name = serializers.CharField()
    ok = serializers.BooleanField(allow_null=True, help_text="null: cannot be checked yet.")
    detail = serializers.CharField(allow_blank=True)


class RecallVerificationOutput(serializers.Serializer):
    verified = serializers.BooleanField()
    checks = RecallCheckOutput(many=True)


class RecallJackpotHitOutput(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True)
    player = serializers.CharField()
    category = serializers.CharField()
    kind = serializers.CharField()
    amount = Money()
    meter_before = Money()
    meter_after = Money()
    transaction = serializers.IntegerField(allow_null=True)


class RecallJackpotOutput(serializers.Serializer):
    transactions = TransactionOutput(many=True)
    hits = RecallJackpotHitOutput(many=True)


class HandRecallOutput(serializers.Serializer):
    hand = serializers.IntegerField()
    table = RecallTableOutput()
    nonce = serializers.IntegerField()
    state = serializers.CharField()
    opened_at = serializers.DateTimeField()
    dealt_at = serializers.DateTimeField(allow_null=True)
    settled_at = serializers.DateTimeField(allow_null=True)
    paytable = RecallPaytableOutput()
    min_ante = Money()
    max_ante = Money()
    jackpot_bet_amount = Money()
    commitment = serializers.CharField()
    server_seed = serializers.CharField(allow_null=True, help_text="Revealed once the hand is over.")
    client_seed = serializers.CharField(allow_null=True)
    dealer = RecallDealerOutput()
    seats = RecallSeatOutput(many=True)
    settlement_order = serializers.ListField(child=serializers.IntegerField())
    deal = RecallDealStepOutput(many=True)
    verification = RecallVerificationOutput()
    jackpot = RecallJackpotOutput()
    transactions = TransactionOutput(many=True)


class HandRecallApi(AuditorApi):
    @extend_schema(responses={200: HandRecallOutput, **error_responses(401, 403, 404)}, summary="A hand replayed: deal order, bets, decisions, results, jackpot effects, server-side verification")
    def get(self, request, hand_id: int):
        return Response(recall_body(table_selectors.hand_recall(hand_id=hand_id)))


class PlayerRowOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_active = serializers.BooleanField()


class PlayerRowsOutput(serializers.Serializer):
    results = PlayerRowOutput(many=True)


class PlayerAccountOutput(serializers.Serializer):
    code = serializers.CharField()
    kind = serializers.CharField()
    balance = Money()


class PlayerHandOutput(serializers.Serializer):
    hand = serializers.IntegerField()
    table = serializers.CharField(help_text="The table's name.")
    state = serializers.CharField()
    seat = serializers.IntegerField()
    ante = Money()
    jackpot_bet = Money()
    decision = serializers.CharField(allow_null=True)
    outcome = serializers.CharField(allow_null=True)
    net = Money(allow_null=True)
    recall = serializers.CharField(help_text="The hand's recall (GET).")


class PlayerDetailOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    available = Money()
    in_play = Money()
    accounts = PlayerAccountOutput(many=True)
    hands_played = serializers.IntegerField()
    net = Money()
    jackpot_wins = Money()
    recent_hands = PlayerHandOutput(many=True)


class PlayerSearchApi(AuditorApi):
    @extend_schema(
        operation_id="auditor_players_list",
        parameters=[OpenApiParameter("q", OpenApiTypes.STR)],
        responses={200: PlayerRowsOutput, **error_responses(400, 401, 403)},
        summary="Find players by username or id",
    )
    def get(self, request):
        form = PlayerSearchForm(request.query_params)
        if not form.is_valid():
            raise ValidationError("The search is not valid.", code="invalid_search", extra={"fields": form_errors(form)})
        players = selectors.player_search(query=form.cleaned_data["q"])
        return Response({"results": [{"id": p.pk, "username": p.get_username(), "is_active": p.is_active} for p in players]})


class PlayerDetailApi(AuditorApi):
    @extend_schema(responses={200: PlayerDetailOutput, **error_responses(401, 403, 404)}, summary="A player's money, accounts and last ten hands")
    def get(self, request, user_id: int):
        summary = selectors.player_summary(player=selectors.player_get(user_id=user_id))
        player = summary["player"]
        return Response(
            {
                "id": player.pk,
                "username": player.get_username(),
                "available": format_cents(summary["available"]),
                "in_play": format_cents(summary["in_play"]),
                "accounts": [{"code": a.code, "kind": a.kind, "balance": format_cents(a.balance)} for a in summary["accounts"]],
                "hands_played": summary["hands_played"],
                "net": format_cents(summary["net"]),
                "jackpot_wins": format_cents(summary["jackpot_wins"]),
                "recent_hands": [
                    {
                        "hand": hs.hand_id,
                        "table": hs.hand.table.name,
                        "state": hs.hand.state,
                        "seat": hs.seat_number,
                        "ante": format_cents(hs.ante),
                        "jackpot_bet": format_cents(hs.jackpot_bet),
                        "decision": hs.decision or None,
                        "outcome": hs.outcome or None,
                        "net": format_cents(hs.net) if hs.net is not None else None,
                        "recall": reverse("api-auditor-hand", args=[hs.hand_id]),
                    }
                    for hs in summary["recent"]
                ],
            }
        )


def report_row_body(row: reports.ReportRow) -> dict:
    def text(value):
        return None if value is None else str(value)

    return {
        "day": row.day,
        "table": row.table_id,
        "table_name": row.table,
        "paytable": row.paytable,
        "hands": row.hands,
        "seats": row.seats,
        "antes": format_cents(row.antes),
        "raises": format_cents(row.raises),
        "jackpot_bets": format_cents(row.jackpot_bets),
        "wagered": format_cents(row.wagered),
        "ante_raise_returns": format_cents(row.main_paid),
        "jackpot_prizes": format_cents(row.jackpot_wins),
        "paid": format_cents(row.paid),
        "ggr": format_cents(row.ggr),
        "hold_pct": text(row.hold_pct),
        "actual_return_pct": text(row.actual_return_pct),
        "theoretical_return_pct": (row.theoretical or {}).get("return_pct"),
        "jackpot_return_pct": text(row.jackpot_return_pct),
        "raise_rate_pct": text(row.raise_rate_pct),
        "ledger_house_settlements": format_cents(row.ledger_house) if row.ledger_house is not None else None,
        "ledger_ok": row.ledger_ok,
    }


class ReportRowOutput(serializers.Serializer):
    day = serializers.DateField(allow_null=True, help_text="null in the per-table and total rows.")
    table = serializers.IntegerField(allow_null=True)
    table_name = serializers.CharField(allow_blank=True)
    paytable = serializers.CharField(allow_blank=True)
    hands = serializers.IntegerField()
    seats = serializers.IntegerField()
    antes = Money()
    raises = Money()
    jackpot_bets = Money()
    wagered = Money()
    ante_raise_returns = Money()
    jackpot_prizes = Money()
    paid = Money()
    ggr = Money()
    hold_pct = serializers.CharField(allow_null=True, help_text="A decimal string; null when nothing was wagered.")
    actual_return_pct = serializers.CharField(allow_null=True)
    theoretical_return_pct = serializers.CharField(allow_null=True)
    jackpot_return_pct = serializers.CharField(allow_null=True)
    raise_rate_pct = serializers.CharField(allow_null=True)
    ledger_house_settlements = Money(allow_null=True)
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
        child=TheoreticalReturnOutput(allow_null=True), help_text="Per pay table name; null when it changed within the range."
    )
    definitions = ReportDefinitionsOutput()


class ReportApi(AuditorApi):
    @extend_schema(
        parameters=[OpenApiParameter("date_from", OpenApiTypes.DATE), OpenApiParameter("date_to", OpenApiTypes.DATE), OpenApiParameter("table", OpenApiTypes.INT)],
        responses={200: ReportOutput, **error_responses(400, 401, 403)},
        summary="Wagered, paid, GGR, hold and return per table and per day",
    )
    def get(self, request):
        form = ReportForm(request.query_params)
        if not form.is_valid():
            raise ValidationError("The report range is not valid.", code="invalid_report", extra={"fields": form_errors(form)})
        data = form.cleaned_data
        report = reports.table_day_report(
            date_from=data.get("date_from"), date_to=data.get("date_to"), table_id=data["table"].pk if data.get("table") else None
        )
        return Response(
            {
                "rows": [report_row_body(r) for r in report["rows"]],
                "by_table": [report_row_body(r) for r in report["by_table"]],
                "total": report_row_body(report["total"]),
                "theoretical": report["theoretical"],
                "definitions": {
                    "wagered": "ante + raise + jackpot bets of settled hands",
                    "paid": "ante and raise returns (stake included) + jackpot prizes",
                    "ggr": "wagered - paid",
                    "hold_pct": "ggr / wagered",
                    "actual_return_pct": "ante and raise returns / (ante + raise)",
                    "theoretical_return_pct": "the pay table's return on ante + raise under the Wizard of Odds strategy, simulated with a fixed seed",
                },
            }
        )


def reconciliation_body(rec) -> dict:
    def account(acc):
        return {
            "code": acc.code,
            "balance": format_cents(acc.balance),
            "from_ledger": format_cents(acc.from_ledger),
            "inflows": {k: format_cents(v) for k, v in acc.inflows.items()},
            "outflows": {k: format_cents(v) for k, v in acc.outflows.items()},
            "ok": acc.ok,
        }

    return {"pool": rec.pool.pk, "name": rec.pool.name, "ok": rec.ok, "problems": rec.problems, "meter": account(rec.meter), "reserve": account(rec.reserve)}


class PoolAccountOutput(serializers.Serializer):
    code = serializers.CharField()
    balance = Money()
    from_ledger = Money()
    inflows = serializers.DictField(child=Money())
    outflows = serializers.DictField(child=Money())
    ok = serializers.BooleanField()


class ReconciliationOutput(serializers.Serializer):
    pool = serializers.IntegerField()
    name = serializers.CharField()
    ok = serializers.BooleanField()
    problems = serializers.ListField(child=serializers.CharField())
    meter = PoolAccountOutput()
    reserve = PoolAccountOutput()


class ReconciliationsOutput(serializers.Serializer):
    results = ReconciliationOutput(many=True)


class LedgerCheckOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    transactions = serializers.IntegerField()
    sealed = serializers.IntegerField()
    pending = serializers.IntegerField()
    problems = serializers.ListField(child=serializers.CharField())


class AccountMismatchOutput(serializers.Serializer):
    account = serializers.CharField()
    balance = Money()
    from_legs = Money()


class IntegrityOutput(serializers.Serializer):
    ok = serializers.BooleanField()
    ledger = LedgerCheckOutput()
    ledger_sum = Money()
    accounts = serializers.IntegerField()
    account_mismatches = AccountMismatchOutput(many=True)
    pools = ReconciliationOutput(many=True)


class PoolListApi(AuditorApi):
    @extend_schema(operation_id="auditor_jackpot_pools_list", responses={200: ReconciliationsOutput, **error_responses(401, 403)}, summary="Jackpot pools with their reconciliation")
    def get(self, request):
        return Response({"results": [reconciliation_body(jackpot_selectors.pool_reconcile(pool=p)) for p in jackpot_selectors.pools()]})


class PoolDayOutput(serializers.Serializer):
    day = serializers.DateField()
    contributions_meter = Money()
    contributions_reserve = Money()
    prizes_from_meter = Money()
    fixed_prizes_by_house = Money()
    resets_from_reserve = Money()
    resets_from_house = Money()
    fundings = Money()
    reversals = Money()
    meter_end = Money()
    reserve_end = Money()
    hits = serializers.IntegerField()


class PoolHitOutput(serializers.Serializer):
    at = serializers.DateTimeField()
    player = serializers.CharField()
    category = serializers.CharField()
    kind = serializers.CharField()
    amount = Money()
    meter_before = Money()
    meter_after = Money()
    table = serializers.IntegerField(allow_null=True)
    hand = serializers.IntegerField(allow_null=True)
    transaction = serializers.IntegerField(allow_null=True)


class PoolHistoryOutput(serializers.Serializer):
    pool = serializers.IntegerField()
    name = serializers.CharField()
    seed = Money()
    meter = Money()
    reserve = Money()
    days = PoolDayOutput(many=True)
    hits = PoolHitOutput(many=True)
    events = TransactionOutput(many=True)
    reconciliation = ReconciliationOutput()


class PoolHistoryApi(AuditorApi):
    @extend_schema(responses={200: PoolHistoryOutput, **error_responses(401, 403, 404)}, summary="A pool over time: contributions, hits, resets, fundings per day; reconciliation")
    def get(self, request, pool_id: int):
        history = jackpot_selectors.pool_history(pool=jackpot_selectors.pool_get(pool_id=pool_id))
        pool = history["pool"]
        return Response(
            {
                "pool": pool.pk,
                "name": pool.name,
                "seed": format_cents(pool.seed_amount),
                "meter": format_cents(history["meter"]),
                "reserve": format_cents(history["reserve"]),
                "days": [
                    {
                        "day": d.day,
                        "contributions_meter": format_cents(d.contributions_meter),
                        "contributions_reserve": format_cents(d.contributions_reserve),
                        "prizes_from_meter": format_cents(d.prizes),
                        "fixed_prizes_by_house": format_cents(d.fixed_prizes),
                        "resets_from_reserve": format_cents(d.resets_from_reserve),
                        "resets_from_house": format_cents(d.resets_from_house),
                        "fundings": format_cents(d.fundings),
                        "reversals": format_cents(d.reversals_meter + d.reversals_reserve),
                        "meter_end": format_cents(d.meter_end),
                        "reserve_end": format_cents(d.reserve_end),
                        "hits": d.hits,
                    }
                    for d in history["days"]
                ],
                "hits": [
                    {
                        "at": h.created_at,
                        "player": h.player.get_username(),
                        "category": h.category,
                        "kind": h.kind,
                        "amount": format_cents(h.amount),
                        "meter_before": format_cents(h.meter_before),
                        "meter_after": format_cents(h.meter_after),
                        "table": h.table_ref,
                        "hand": h.hand_ref,
                        "transaction": h.prize_transaction_id,
                    }
                    for h in history["hits"]
                ],
                "events": [transaction_body(t, {}) for t in history["events"]],
                "reconciliation": reconciliation_body(history["reconciliation"]),
            }
        )


class IntegrityApi(AuditorApi):
    @extend_schema(responses={200: IntegrityOutput, **error_responses(401, 403)}, summary="Ledger verification (MACs, hash chain), balances from legs, pool reconciliation")
    def get(self, request):
        report = reports.integrity_report()
        return Response(
            {
                "ok": report.ok,
                "ledger": {
                    "ok": report.ledger.ok,
                    "transactions": report.ledger.transactions,
                    "sealed": report.ledger.sealed,
                    "pending": report.ledger.pending,
                    "problems": report.ledger.problems,
                },
                "ledger_sum": format_cents(report.ledger_sum),
                "accounts": report.accounts,
                "account_mismatches": [
                    {**m, "balance": format_cents(m["balance"]), "from_legs": format_cents(m["from_legs"])} for m in report.account_mismatches
                ],
                "pools": [reconciliation_body(p) for p in report.pools],
            }
        )
