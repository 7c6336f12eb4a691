"""REST endpoints of the auditors, mounted at /api/auditor/.

Every endpoint needs the auditor role (``casino.access.policy.Allowed("audit.read")``); anyone else gets 403
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
from rest_framework.utils.urls import remove_query_param, replace_query_param
from rest_framework.views import APIView

from backoffice import exports, reports
from backoffice.auditor import recall as caribbean_recall
from backoffice.auditor import responses, selectors
from backoffice.auditor.forms import (
    GAME_REQUIRED,
    LEDGER_FORMAT_CHOICES,
    POKER_FORMAT_CHOICES,
    TABLES,
    LedgerFilterForm,
    PlayerSearchForm,
    PokerHandFilterForm,
    PokerRakeForm,
    ReportForm,
    form_errors,
    ledger_cursors,
)
from backoffice.auditor.serializers import (
    ExportJobOutput,
    ExportJobsOutput,
    ExportManifestOutput,
    HandRecallOutput,
    IntegrityOutput,
    LedgerPageOutput,
    PlayerDetailOutput,
    PlayerRowsOutput,
    PokerHandPageOutput,
    PokerHandRecallOutput,
    PokerHandRowOutput,
    PokerRakeReportOutput,
    PokerReconciliationsOutput,
    PoolHistoryOutput,
    ReconciliationsOutput,
    ReportOutput,
    TransactionOutput,
    VerificationOutput,
)
from backoffice.models import ExportJob
from casino.access import policy
from casino.http.api import error_responses, field_code
from casino.http.errors import NotFound, ValidationError
from casino.http.idempotency import idempotent
from casino.http.pagination import CursorPagination
from casino.http.validation import StrictInput, StrictIntegerField, no_fields, request_object
from jackpot import selectors as jackpot_selectors
from poker import audit as poker_audit
from poker import selectors as poker_selectors
from poker.models import PokerHand, PokerTable
from tables.models import Table
from wallets import integrity
from wallets import selectors as wallet_selectors
from wallets.models import LedgerVerification, Transaction

FILTER_PARAMETERS = [
    OpenApiParameter("date_from", OpenApiTypes.DATE, description="First day, inclusive (site time zone)."),
    OpenApiParameter("date_to", OpenApiTypes.DATE, description="Last day, inclusive."),
    OpenApiParameter(
        "player", OpenApiTypes.STR, description="Username or id: transactions touching the player's accounts."
    ),
    OpenApiParameter(
        "game",
        OpenApiTypes.STR,
        enum=[g for g, _ in Transaction.Game.choices],
        description="Whose table and hand: required with `table` or `hand` (the two games number theirs apart; without "
        "it, 400 `game_required`).",
    ),
    OpenApiParameter("table", OpenApiTypes.INT, description="A table of the game `game`."),
    OpenApiParameter("hand", OpenApiTypes.INT, description="A hand of the game `game`."),
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


def refused(form, message: str, code: str) -> ValidationError:
    """A form's errors as the API's refusal; a table or hand without its game has a code of its own."""
    if form.has_error("game", "game_required"):
        message, code = GAME_REQUIRED, "game_required"
    return ValidationError(message, code=code, extra={"fields": form_errors(form)})


def ledger_filters(params):
    form = LedgerFilterForm(params)
    if not form.is_valid():
        raise refused(form, "The filters are not valid.", "invalid_filters")
    return form.filters()


def _page_parameters(row: str) -> list[OpenApiParameter]:
    return [
        OpenApiParameter("limit", OpenApiTypes.INT, description=f"Rows per page, 1 to {CursorPagination.max_limit}."),
        OpenApiParameter("before", OpenApiTypes.INT, description=f"The page older than this {row} (the `next` link)."),
        OpenApiParameter(
            "after", OpenApiTypes.INT, description=f"The page newer than this {row} (the `previous` link)."
        ),
    ]


LEDGER_PAGE_PARAMETERS = _page_parameters("transaction")
POKER_PAGE_PARAMETERS = _page_parameters("hand")


class LedgerApi(AuditorApi):
    @extend_schema(
        parameters=FILTER_PARAMETERS + LEDGER_PAGE_PARAMETERS,
        responses={200: LedgerPageOutput, **error_responses(400, 401, 403)},
        summary="Ledger transactions with their legs, newest first, a page at a time by cursor (before, after; an "
        "offset above 0: 400 offset_not_supported)",
    )
    def get(self, request):
        filters = ledger_filters(request.query_params)
        before, after = ledger_cursors(request.query_params)
        limit = CursorPagination().get_limit(request)
        page = wallet_selectors.ledger_page(filters=filters, limit=limit, before=before, after=after)
        url = request.build_absolute_uri()
        url = remove_query_param(remove_query_param(remove_query_param(url, "before"), "after"), "offset")
        names = selectors.transaction_table_names(page.rows)
        return Response(
            {
                "next": replace_query_param(url, "before", page.older) if page.older else None,
                "previous": replace_query_param(url, "after", page.newer) if page.newer else None,
                "results": TransactionOutput(page.rows, many=True, context={"table_names": names}).data,
                "max_limit": CursorPagination.max_limit,
                "filters": filters.describe(),
            }
        )


class LedgerExportApi(AuditorApi):
    content_negotiation_class = AnyAccept
    http_method_names = ["get", "options"]  # no HEAD: every export is recorded and streamed to the end
    fmt = ExportJob.Format.CSV

    @extend_schema(
        parameters=FILTER_PARAMETERS,
        responses={(200, "text/csv"): OpenApiTypes.BINARY},
        summary="Streamed export of the ledger, one row per leg",
    )
    def get(self, request):
        filters = ledger_filters(request.query_params)
        job = exports.export_stream_open(user=request.user, fmt=self.fmt, filters=filters)
        response = responses.streaming_response(
            request,
            exports.export_stream(job=job, filters=filters),
            content_type=exports.MEDIA_TYPES[self.fmt],
            filename=job.file_name,
        )
        manifest = request.build_absolute_uri(reverse("api-auditor-export-manifest", args=[job.pk]))
        response["X-Export-Id"] = str(job.pk)
        response["Link"] = f'<{manifest}>; rel="describedby"; type="application/json"'
        return response


class LedgerExportJsonlApi(LedgerExportApi):
    fmt = ExportJob.Format.JSONL

    @extend_schema(
        parameters=FILTER_PARAMETERS,
        responses={(200, "application/x-ndjson"): OpenApiTypes.BINARY},
        summary="Streamed export of the ledger, one JSON line per leg",
    )
    def get(self, request):
        return super().get(request)


class ExportInput(StrictInput):
    """What both file export requests share: a range of days and a table that exists.

    A JSON body and a form-encoded one are read alike: one value per field, and an empty
    text is no filter (as an empty field of a form); ``null`` is not a value here."""

    table_model: type = Table

    date_from = serializers.DateField(required=False, help_text="First day, inclusive (site time zone).")
    date_to = serializers.DateField(required=False, help_text="Last day, inclusive.")

    def to_internal_value(self, data):
        return super().to_internal_value({name: value for name, value in request_object(data).items() if value != ""})

    def validate_table(self, pk: int) -> int:
        if not self.table_model.objects.filter(pk=pk).exists():
            raise serializers.ValidationError("No such table.", code="table_not_found")
        return pk

    def validate(self, data):
        if data.get("date_from") and data.get("date_to") and data["date_from"] > data["date_to"]:
            raise serializers.ValidationError(
                {"date_to": "The last day comes before the first."}, code="dates_reversed"
            )
        return data


def export_input(serializer_class: type[ExportInput], request) -> dict:
    """The body of an export request, or ``invalid_export`` naming each refused field."""
    serializer = serializer_class(data=request.data)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as error:
        fields = {name: [str(message) for message in messages] for name, messages in error.detail.items()}
        codes = {name: field_code(name, codes) for name, codes in error.get_codes().items()}
        raise ValidationError(
            "The export request is not valid.", code="invalid_export", extra={"fields": fields, "codes": codes}
        ) from None
    return serializer.validated_data


class ExportRequestInput(ExportInput):
    """The body of a file export request (the ledger's filters and a format)."""

    format = serializers.ChoiceField(choices=LEDGER_FORMAT_CHOICES, required=False, default=ExportJob.Format.CSV)
    player = serializers.CharField(required=False, allow_blank=True, max_length=150, help_text="Username or id.")
    game = serializers.ChoiceField(
        choices=Transaction.Game.choices,
        required=False,
        help_text="Whose table and hand: required with them (field code `game_required`).",
    )
    table = StrictIntegerField(required=False, min_value=1, help_text="A table of the game `game`.")
    hand = StrictIntegerField(required=False, min_value=1, help_text="A hand of the game `game`.")
    kind = serializers.ChoiceField(choices=Transaction.Kind.choices, required=False)

    def validate_player(self, text: str):
        if not text:  # blank: every player
            return None
        player = selectors.player_find(text=text)
        if player is None:
            raise serializers.ValidationError("No player with this username or id.", code="player_not_found")
        return player

    def validate_table(self, pk: int) -> int:
        return pk  # which game's tables to look in is known in validate()

    def validate(self, data):
        data = super().validate(data)
        game, table = data.get("game"), data.get("table")
        if (table or data.get("hand")) and not game:
            raise serializers.ValidationError({"game": GAME_REQUIRED}, code="required")
        if table and not TABLES[game].objects.filter(pk=table).exists():
            raise serializers.ValidationError({"table": "No such table."}, code="table_not_found")
        return data


class ExportListApi(AuditorApi):
    @extend_schema(
        operation_id="auditor_exports_list",
        responses={200: ExportJobsOutput, **error_responses(401, 403)},
        summary="The export register (auditor-wide), newest first",
    )
    def get(self, request):
        return Response(ExportJobsOutput({"results": exports.export_list()}, context={"request": request}).data)

    @extend_schema(
        request=ExportRequestInput,
        responses={202: ExportJobOutput, **error_responses(400, 401, 403, 409)},
        summary="Start a file export (Celery) with filters and a format",
    )
    @idempotent
    def post(self, request):
        data = export_input(ExportRequestInput, request)
        filters = wallet_selectors.LedgerFilters(
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            player=data.get("player"),
            game=data.get("game"),
            table_id=data.get("table"),
            hand_id=data.get("hand"),
            kind=data.get("kind"),
        )
        job = exports.export_file_request(user=request.user, fmt=data["format"], filters=filters)
        job.refresh_from_db()
        body = ExportJobOutput(job, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["urls"]["self"]})


class ExportDetailApi(AuditorApi):
    @extend_schema(
        responses={200: ExportJobOutput, **error_responses(401, 403, 404)},
        summary="One export: status, progress (rows written / total), manifest when done",
    )
    def get(self, request, job_id: int):
        return Response(ExportJobOutput(exports.export_get(job_id=job_id), context={"request": request}).data)


class ExportRetryApi(AuditorApi):
    @extend_schema(
        request=None,
        responses={202: ExportJobOutput, **error_responses(400, 401, 403, 404, 409)},
        summary="Run a failed file export again (same filters and snapshot)",
    )
    @idempotent
    def post(self, request, job_id: int):
        no_fields(request.data)
        body = ExportJobOutput(exports.export_file_retry(job_id=job_id), context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["urls"]["self"]})


class ExportDownloadApi(AuditorApi):
    content_negotiation_class = AnyAccept

    @extend_schema(
        # The file in its export's format.
        responses={(200, media.split(";")[0]): OpenApiTypes.BINARY for media in exports.MEDIA_TYPES.values()},
        summary="The file of a finished file export",
    )
    def get(self, request, job_id: int):
        return responses.file_download_response(request, exports.export_get(job_id=job_id))


class ExportManifestApi(AuditorApi):
    content_negotiation_class = AnyAccept

    @extend_schema(
        responses={200: ExportManifestOutput, **error_responses(401, 403, 404, 409)},
        summary="The manifest of a finished export, as delivered",
    )
    def get(self, request, job_id: int):
        return responses.manifest_response(exports.export_get(job_id=job_id))


class HandRecallApi(AuditorApi):
    @extend_schema(
        responses={200: HandRecallOutput, **error_responses(401, 403, 404)},
        summary="A hand replayed: deal order, bets, decisions, results, jackpot effects, server-side verification",
    )
    def get(self, request, hand_id: int):
        recall = caribbean_recall.hand_recall(hand_id=hand_id)
        return Response(HandRecallOutput(recall, context={"table_names": recall.table_names}).data)


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
            raise ValidationError(
                "The search is not valid.", code="invalid_search", extra={"fields": form_errors(form)}
            )
        players = selectors.player_search(query=form.cleaned_data["q"])
        return Response(PlayerRowsOutput({"results": players}).data)


class PlayerDetailApi(AuditorApi):
    @extend_schema(
        responses={200: PlayerDetailOutput, **error_responses(401, 403, 404)},
        summary="A player's money, accounts and last ten Caribbean and poker hands",
    )
    def get(self, request, user_id: int):
        summary = selectors.player_summary(player=selectors.player_get(user_id=user_id))
        return Response(PlayerDetailOutput(summary).data)


class ReportApi(AuditorApi):
    @extend_schema(
        parameters=[
            OpenApiParameter("date_from", OpenApiTypes.DATE),
            OpenApiParameter("date_to", OpenApiTypes.DATE),
            OpenApiParameter("table", OpenApiTypes.INT),
        ],
        responses={200: ReportOutput, **error_responses(400, 401, 403)},
        summary="Wagered, paid, GGR, hold and return per table and per day",
    )
    def get(self, request):
        form = ReportForm(request.query_params)
        if not form.is_valid():
            raise ValidationError(
                "The report range is not valid.", code="invalid_report", extra={"fields": form_errors(form)}
            )
        data = form.cleaned_data
        report = reports.table_day_report(
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            table_id=data["table"].pk if data.get("table") else None,
        )
        return Response(ReportOutput({**report, "definitions": reports.DEFINITIONS}).data)


class PoolListApi(AuditorApi):
    @extend_schema(
        operation_id="auditor_jackpot_pools_list",
        responses={200: ReconciliationsOutput, **error_responses(401, 403)},
        summary="Jackpot pools with their reconciliation",
    )
    def get(self, request):
        return Response(
            ReconciliationsOutput(
                {"results": [jackpot_selectors.pool_reconcile(pool=p) for p in jackpot_selectors.pools()]}
            ).data
        )


class PoolHistoryApi(AuditorApi):
    @extend_schema(
        responses={200: PoolHistoryOutput, **error_responses(401, 403, 404)},
        summary="A pool over time: contributions, hits, resets, fundings per day; reconciliation",
    )
    def get(self, request, pool_id: int):
        return Response(
            PoolHistoryOutput(jackpot_selectors.pool_history(pool=jackpot_selectors.pool_get(pool_id=pool_id))).data
        )


class IntegrityApi(AuditorApi):
    @extend_schema(
        responses={200: IntegrityOutput, **error_responses(401, 403)},
        summary="Ledger verification from the latest checkpoint (MACs, hash chain, balances from legs), pool "
        "reconciliation, the latest full verification",
    )
    def get(self, request):
        return Response(IntegrityOutput(reports.integrity_report()).data)


class VerificationListApi(AuditorApi):
    @extend_schema(
        operation_id="auditor_integrity_verifications_create",
        request=None,
        responses={202: VerificationOutput, **error_responses(401, 403)},
        summary="Start a full verification of the ledger in the background (every MAC, the whole chain, every balance)",
    )
    @idempotent
    def post(self, request):
        no_fields(request.data)
        job = integrity.ledger_verification_request(user=request.user)
        job.refresh_from_db()
        location = reverse("api-auditor-verification", args=[job.pk])
        return Response(VerificationOutput(job).data, status=status.HTTP_202_ACCEPTED, headers={"Location": location})


class VerificationDetailApi(AuditorApi):
    @extend_schema(
        responses={200: VerificationOutput, **error_responses(401, 403, 404)},
        summary="A full verification: status, progress, what it found",
    )
    def get(self, request, verification_id: int):
        job = LedgerVerification.objects.filter(pk=verification_id).first()
        if job is None:
            raise NotFound("No such verification.", code="verification_not_found")
        return Response(VerificationOutput(job).data)


# --- the poker room -----------------------------------------------------------------------

POKER_FILTER_PARAMETERS = [
    OpenApiParameter("date_from", OpenApiTypes.DATE, description="First day, inclusive (site time zone)."),
    OpenApiParameter("date_to", OpenApiTypes.DATE, description="Last day, inclusive."),
    OpenApiParameter("table", OpenApiTypes.INT, description="A poker table's id."),
]


def poker_filters(params, form_class=PokerHandFilterForm):
    form = form_class(params)
    if not form.is_valid():
        raise ValidationError("The filters are not valid.", code="invalid_filters", extra={"fields": form_errors(form)})
    return form


class PokerHandListApi(AuditorApi):
    @extend_schema(
        operation_id="auditor_poker_hands_list",
        parameters=POKER_FILTER_PARAMETERS
        + [OpenApiParameter("state", OpenApiTypes.STR, enum=[s for s, _ in PokerHand.State.choices])]
        + POKER_PAGE_PARAMETERS,
        responses={200: PokerHandPageOutput, **error_responses(400, 401, 403)},
        summary="Poker hands, newest first, by table and the day they started, a page at a time by cursor (before, "
        "after; an offset above 0: 400 offset_not_supported)",
    )
    def get(self, request):
        form = poker_filters(request.query_params)
        filters, state = form.filters(), form.cleaned_data.get("state") or None
        paginator = CursorPagination()
        hands = paginator.page_of(
            request, lambda **cursor: poker_audit.poker_hands_page(filters=filters, state=state, **cursor)
        )
        return paginator.get_paginated_response(PokerHandRowOutput(hands, many=True).data)


class PokerHandRecallApi(AuditorApi):
    @extend_schema(
        responses={200: PokerHandRecallOutput, **error_responses(401, 403, 404)},
        summary="A poker hand recalled: every card street by street (mucked hands included), actions, pots, awards, "
        "rake, checks",
    )
    def get(self, request, hand_id: int):
        recall = poker_audit.poker_hand_recall(hand_id=hand_id)
        return Response(
            PokerHandRecallOutput(
                recall, context={"table_names": selectors.transaction_table_names(recall.transactions)}
            ).data
        )


class PokerExportApi(AuditorApi):
    content_negotiation_class = AnyAccept
    http_method_names = ["get", "options"]  # no HEAD: every export is recorded and streamed to the end
    fmt = ExportJob.Format.JSONL

    @extend_schema(
        parameters=POKER_FILTER_PARAMETERS,
        responses={(200, "application/x-ndjson"): OpenApiTypes.BINARY, **error_responses(400, 401, 403)},
        summary="Streamed export of the ended poker hands' records, one hand per line (manifest after the last byte)",
    )
    def get(self, request):
        filters = poker_filters(request.query_params).filters()
        job = exports.poker_export_open(user=request.user, fmt=self.fmt, filters=filters)
        response = responses.streaming_response(
            request,
            exports.poker_export_stream(job=job),
            content_type=exports.MEDIA_TYPES[self.fmt],
            filename=job.file_name,
        )
        manifest = request.build_absolute_uri(reverse("api-auditor-export-manifest", args=[job.pk]))
        response["X-Export-Id"] = str(job.pk)
        response["Link"] = f'<{manifest}>; rel="describedby"; type="application/json"'
        return response


class PokerExportTextApi(PokerExportApi):
    fmt = ExportJob.Format.POKERSTARS

    @extend_schema(
        parameters=POKER_FILTER_PARAMETERS,
        responses={(200, "text/plain"): OpenApiTypes.BINARY, **error_responses(400, 401, 403)},
        summary="Streamed export of the ended poker hands in PokerStars text, every down card shown",
    )
    def get(self, request):
        return super().get(request)


class PokerExportRequestInput(ExportInput):
    """The body of a file export of poker hand records (the hands list's filters and a format)."""

    table_model = PokerTable

    date_from = serializers.DateField(
        required=False, help_text="First day the hands ended, inclusive (site time zone)."
    )
    format = serializers.ChoiceField(choices=POKER_FORMAT_CHOICES, required=False, default=ExportJob.Format.JSONL)
    table = StrictIntegerField(required=False, min_value=1, help_text="A poker table's id.")


class PokerExportRequestApi(AuditorApi):
    @extend_schema(
        request=PokerExportRequestInput,
        responses={202: ExportJobOutput, **error_responses(400, 401, 403, 409)},
        summary="Start a file export (Celery) of the ended poker hands' records: JSON Lines or PokerStars text",
    )
    @idempotent
    def post(self, request):
        data = export_input(PokerExportRequestInput, request)
        filters = poker_audit.PokerHandFilters(
            table_id=data.get("table"), date_from=data.get("date_from"), date_to=data.get("date_to")
        )
        job = exports.poker_export_request(user=request.user, fmt=data["format"], filters=filters)
        job.refresh_from_db()
        body = ExportJobOutput(job, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["urls"]["self"]})


class PokerRakeApi(AuditorApi):
    @extend_schema(
        parameters=POKER_FILTER_PARAMETERS,
        responses={200: PokerRakeReportOutput, **error_responses(400, 401, 403)},
        summary="Poker rake per table and day from the ledger, beside the hands' records and the rake accounts' "
        "balances",
    )
    def get(self, request):
        filters = poker_filters(request.query_params, PokerRakeForm).filters()
        report = reports.poker_rake_report(
            date_from=filters.date_from, date_to=filters.date_to, table_id=filters.table_id
        )
        return Response(PokerRakeReportOutput(report).data)


class PokerReconciliationApi(AuditorApi):
    @extend_schema(
        responses={200: PokerReconciliationsOutput, **error_responses(401, 403)},
        summary="Each poker table reconciled to the cent (chips in play + cashed out + rake = bought in), with its "
        "problems",
    )
    def get(self, request):
        rows = poker_selectors.poker_reconciliation()
        return Response(PokerReconciliationsOutput({"ok": all(not r["problems"] for r in rows), "results": rows}).data)
