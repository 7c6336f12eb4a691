"""The auditors' pages: ledger, exports, game recall, players, reports, jackpot, integrity.

Every page needs a signed-in auditor (anonymous: to the sign-in page; anyone else: 403).
Auditors read everything and change nothing: the one POST here starts a file export,
which writes a row in the export register and no ledger row. Views parse the input,
call one selector or service and render the selector's result; the templates show it
through the template filters (``casino_tags``, ``staff_tags``).
"""

from __future__ import annotations

from datetime import date, timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from backoffice import exports
from backoffice.auditor import recall as caribbean_recall
from backoffice.auditor import responses, selectors
from backoffice.auditor.forms import (
    ExportRequestForm,
    HandLookupForm,
    LedgerFilterForm,
    PlayerSearchForm,
    PokerExportRequestForm,
    PokerHandFilterForm,
    PokerRakeForm,
    ReportForm,
    ledger_cursors,
)
from backoffice.auditor.serializers import ExportJobOutput
from backoffice.models import ExportJob
from backoffice.reports import integrity_report, poker_rake_report, table_day_report
from casino.access import policy
from casino.http.errors import ApplicationError, Conflict, NotFound, ValidationError
from casino.keyset import page_cursors
from jackpot import selectors as jackpot_selectors
from poker import audit as poker_audit
from poker import selectors as poker_selectors
from tables.models import Hand
from tables.presentation import paytable_rows
from wallets import selectors as wallet_selectors
from wallets.integrity import ledger_verification_progress, ledger_verification_request
from wallets.models import Transaction

LEDGER_PAGE_SIZE = 50
REPORT_DEFAULT_DAYS = 30


auditor_required = policy.allowed_for("audit.read", message=gettext_lazy("This page is for auditors."))


# --- presentation helpers -----------------------------------------------------------------


def export_row(request, job: ExportJob) -> dict:
    """An export as the pages show it: the API's one presentation (``ExportJobOutput``,
    whose ``urls`` say whether there is a file to download, a manifest, a retry) and what
    only a page adds: the choices in words, the filters in a phrase, the time as a datetime
    for the ``date`` filter."""
    row = dict(ExportJobOutput(job, context={"request": request}).data)
    row.update(
        subject_label=job.get_subject_display(),
        format_label=job.get_format_display(),
        mode_label=job.get_mode_display(),
        status_label=job.get_status_display(),
        filters_text=_filters_text(job.filters),
        created=job.created_at,
    )
    return row


def _filters_text(described: dict) -> str:
    """An export's filters as a phrase in the reader's language (the job keeps them as
    plain values: ``LedgerFilters.describe``)."""
    parts = []
    if described.get("date_from") or described.get("date_to"):
        parts.append(
            gettext("%(date_from)s to %(date_to)s")
            % {"date_from": _day(described.get("date_from")), "date_to": _day(described.get("date_to"))}
        )
    if described.get("player"):
        parts.append(gettext("player %(username)s (#%(id)s)") % described["player"])
    game = described.get("game")
    game_label = Transaction.Game(game).label if game in Transaction.Game.values else game
    for key, alone, in_game in (
        ("table", gettext("table #%(id)s"), gettext("%(game)s table #%(id)s")),
        ("hand", gettext("hand #%(id)s"), gettext("%(game)s hand #%(id)s")),
    ):
        if described.get(key):
            parts.append((in_game if game else alone) % {"game": game_label, "id": described[key]})
    kind = described.get("kind")
    if kind:
        parts.append(str(Transaction.Kind(kind).label) if kind in Transaction.Kind.values else kind)
    return ", ".join(parts) or gettext("whole ledger")


def _day(iso: str | None) -> str:
    return formats.date_format(date.fromisoformat(iso), "SHORT_DATE_FORMAT") if iso else "…"


# --- dashboard ----------------------------------------------------------------------------


@auditor_required
@require_GET
def dashboard(request):
    pools = jackpot_selectors.pools()
    return render(
        request,
        "backoffice/auditor/dashboard.html",
        {
            **selectors.history_sizes(),
            "pools": pools,
            "exports": [export_row(request, j) for j in exports.export_list()[:5]],
            "hand_form": HandLookupForm(),
            "poker_hand_form": HandLookupForm(prefix=None, auto_id="poker_%s"),
            "player_form": PlayerSearchForm(),
        },
    )


# --- ledger -------------------------------------------------------------------------------


def _ledger_form(request) -> LedgerFilterForm:
    form = LedgerFilterForm(request.GET or {})
    form.is_valid()
    return form


@auditor_required
@require_GET
def ledger(request):
    form = _ledger_form(request)
    page, rows, names, query, ok = None, [], {}, "", form.is_valid()
    if ok:
        try:
            before, after = ledger_cursors(request.GET)
        except ValidationError as error:
            form.add_error(None, error.message)
            ok = False
    if ok:
        page = wallet_selectors.ledger_page(filters=form.filters(), limit=LEDGER_PAGE_SIZE, before=before, after=after)
        rows = page.rows
        names = selectors.transaction_table_names(rows)
        query = form.query_string()
    return render(
        request,
        "backoffice/auditor/ledger.html",
        {"form": form, "page": page, "rows": rows, "names": names, "query": query},
        status=200 if ok else 400,
    )


@auditor_required
@require_GET
def ledger_export(request, fmt: str):
    """A streamed export of the ledger with the page's filters (its manifest comes after)."""
    form = _ledger_form(request)
    if not form.is_valid():
        return render(
            request, "backoffice/auditor/ledger.html", {"form": form, "page": None, "rows": [], "query": ""}, status=400
        )
    job = exports.export_stream_open(user=request.user, fmt=fmt, filters=form.filters())
    response = responses.streaming_response(
        request,
        exports.export_stream(job=job, filters=form.filters()),
        content_type=exports.MEDIA_TYPES[fmt],
        filename=job.file_name,
    )
    manifest_url = reverse("staff-auditor-export-manifest", args=[job.pk])
    response["X-Export-Id"] = str(job.pk)
    response["Link"] = f'<{manifest_url}>; rel="describedby"; type="application/json"'
    return response


# --- exports ------------------------------------------------------------------------------


@auditor_required
@require_http_methods(["GET", "POST"])
def export_list(request):
    if request.method == "POST":
        form = ExportRequestForm(request.POST)
        if form.is_valid():
            job = exports.export_file_request(
                user=request.user, fmt=form.cleaned_data["format"], filters=form.filters()
            )
            messages.success(request, gettext("Export #%(job_id)s started.") % {"job_id": job.pk})
            return redirect("staff-auditor-export", job_id=job.pk)
        status = 400
    else:
        form = ExportRequestForm(initial=request.GET.dict())
        status = 200
    return render(
        request,
        "backoffice/auditor/exports.html",
        {"form": form, "jobs": [export_row(request, j) for j in exports.export_list()]},
        status=status,
    )


def _job_or_404(job_id: int) -> ExportJob:
    try:
        return exports.export_get(job_id=job_id)
    except NotFound:
        raise Http404("No such export.") from None


@auditor_required
@require_GET
def export_detail(request, job_id: int):
    job = _job_or_404(job_id)
    return render(
        request,
        "backoffice/auditor/export_detail.html",
        {
            "job": export_row(request, job),
            "manifest": job.manifest,
            "api_url": reverse("api-auditor-export", args=[job.pk]),
            "running": not job.is_finished,
        },
    )


@auditor_required
@require_POST
def export_retry(request, job_id: int):
    """Run a failed file export again (its worker died, or it failed): same filters, same snapshot."""
    try:
        job = exports.export_file_retry(job_id=job_id)
    except NotFound:
        raise Http404("No such export.") from None
    except Conflict as refused:
        messages.error(request, refused.message)
        return redirect("staff-auditor-export", job_id=job_id)
    messages.success(request, gettext("Export #%(job_id)s started again.") % {"job_id": job.pk})
    return redirect("staff-auditor-export", job_id=job.pk)


@auditor_required
@require_GET
def export_download(request, job_id: int):
    job = _job_or_404(job_id)
    try:
        return responses.file_download_response(request, job)
    except NotFound as error:
        raise Http404(error.message) from None
    except ApplicationError as error:
        messages.error(request, error.message)
        return redirect("staff-auditor-export", job_id=job.pk)


@auditor_required
@require_GET
def export_manifest(request, job_id: int):
    job = _job_or_404(job_id)
    try:
        return responses.manifest_response(job)
    except NotFound as error:
        raise Http404(error.message) from None
    except ApplicationError as error:
        messages.error(request, error.message)
        return redirect("staff-auditor-export", job_id=job.pk)


# --- game recall --------------------------------------------------------------------------


@auditor_required
@require_GET
def hand_recall(request, hand_id: int):
    try:
        recall = caribbean_recall.hand_recall(hand_id=hand_id)
    except NotFound:
        raise Http404("No such hand.") from None
    return render(
        request,
        "backoffice/auditor/hand.html",
        {
            "recall": recall,
            "paytable_rows": paytable_rows(recall.hand.paytable_data),
            "names": recall.table_names,
        },
    )


@auditor_required
@require_GET
def hand_lookup(request):
    form = HandLookupForm(request.GET)
    if form.is_valid() and Hand.objects.filter(pk=form.cleaned_data["hand"]).exists():
        return redirect("staff-auditor-hand", hand_id=form.cleaned_data["hand"])
    messages.error(request, gettext("No hand with this number."))
    return redirect("staff-auditor")


# --- players ------------------------------------------------------------------------------


@auditor_required
@require_GET
def players(request):
    form = PlayerSearchForm(request.GET or None)
    results = None
    if form.is_bound and form.is_valid():
        results = [
            {"id": p.pk, "username": p.get_username(), "joined": p.date_joined, "active": p.is_active}
            for p in selectors.player_search(query=form.cleaned_data["q"])
        ]
    return render(request, "backoffice/auditor/players.html", {"form": form, "results": results})


@auditor_required
@require_GET
def player_detail(request, user_id: int):
    try:
        player = selectors.player_get(user_id=user_id)
    except NotFound:
        raise Http404("No such player.") from None
    summary = selectors.player_summary(player=player)
    return render(
        request,
        "backoffice/auditor/player.html",
        {
            "player": player,
            "summary": summary,
            "total": summary["available"] + summary["in_play"] + summary["at_poker"],
            "ledger_query": f"player={player.pk}",
        },
    )


# --- reports ------------------------------------------------------------------------------


@auditor_required
@require_GET
def reports(request):
    if request.GET:
        form = ReportForm(request.GET)
    else:
        today = timezone.localdate()
        form = ReportForm(
            {"date_from": (today - timedelta(days=REPORT_DEFAULT_DAYS - 1)).isoformat(), "date_to": today.isoformat()}
        )
    report = None
    if form.is_valid():
        data = form.cleaned_data
        result = table_day_report(
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            table_id=data["table"].pk if data.get("table") else None,
        )
        report = {
            **result,
            "theoretical": [{"paytable": name, **(value or {})} for name, value in result["theoretical"].items()],
        }
    return render(
        request,
        "backoffice/auditor/reports.html",
        {"form": form, "report": report},
        status=200 if form.is_valid() else 400,
    )


# --- jackpot and integrity ----------------------------------------------------------------


@auditor_required
@require_GET
def jackpot(request):
    pools = [(pool, jackpot_selectors.pool_reconcile(pool=pool)) for pool in jackpot_selectors.pools()]
    return render(request, "backoffice/auditor/jackpot.html", {"pools": pools})


@auditor_required
@require_GET
def jackpot_pool(request, pool_id: int):
    try:
        pool = jackpot_selectors.pool_get(pool_id=pool_id)
    except NotFound:
        raise Http404("No such pool.") from None
    history = jackpot_selectors.pool_history(pool=pool)
    return render(
        request,
        "backoffice/auditor/pool.html",
        {"pool": pool, "history": history, "names": selectors.transaction_table_names(history["events"])},
    )


@auditor_required
@require_GET
def integrity(request):
    report = integrity_report()
    done = ledger_verification_progress(job=report.verification) if report.verification else None
    return render(
        request, "backoffice/auditor/integrity.html", {"report": report, "checked_at": timezone.now(), "verified": done}
    )


@auditor_required
@require_POST
def integrity_verify(request):
    """Start a full verification of the ledger in the background."""
    job = ledger_verification_request(user=request.user)
    messages.success(
        request, gettext("Full verification #%(number)s started: this page shows its progress.") % {"number": job.pk}
    )
    return redirect("staff-auditor-integrity")


# --- the poker room -----------------------------------------------------------------------

POKER_PAGE_SIZE = 50


def _poker_filter_form(request) -> PokerHandFilterForm:
    form = PokerHandFilterForm(request.GET or {})
    form.is_valid()
    return form


@auditor_required
@require_GET
def poker_hands(request):
    """Every poker hand, newest first, by table and the day it started, a page at a time by
    cursor (``before=``, ``after=``: ``casino.keyset``, the filters kept in the links; a page
    number of the old links reads the newest page); recall and exports."""
    form = _poker_filter_form(request)
    page, query, ok = None, "", form.is_valid()
    if ok:
        try:
            before, after = page_cursors(request.GET)
            page = poker_audit.poker_hands_page(
                filters=form.filters(),
                state=form.cleaned_data.get("state") or None,
                limit=POKER_PAGE_SIZE,
                before=before,
                after=after,
            )
        except ValidationError as error:
            form.add_error(None, error.message)
            ok = False
    if ok:
        query = form.query_string()
        if form.cleaned_data.get("state"):
            query = "&".join(filter(None, [query, urlencode({"state": form.cleaned_data["state"]})]))
    return render(
        request,
        "backoffice/auditor/poker_hands.html",
        {
            "form": form,
            "page": page,
            "rows": page.rows if page else [],
            "query": query,
            "export_query": form.query_string() if form.is_valid() else "",
            "export_form": PokerExportRequestForm(initial=form.cleaned_data if form.is_valid() else None),
        },
        status=200 if ok else 400,
    )


@auditor_required
@require_GET
def poker_hand(request, hand_id: int):
    try:
        recall = poker_audit.poker_hand_recall(hand_id=hand_id)
    except NotFound:
        raise Http404("No such poker hand.") from None
    return render(
        request,
        "backoffice/auditor/poker_hand.html",
        {"recall": recall, "names": selectors.transaction_table_names(recall.transactions)},
    )


@auditor_required
@require_GET
def poker_hand_lookup(request):
    form = HandLookupForm(request.GET)
    if form.is_valid() and poker_audit.poker_hand_exists(hand_id=form.cleaned_data["hand"]):
        return redirect("staff-auditor-poker-hand", hand_id=form.cleaned_data["hand"])
    messages.error(request, gettext("No poker hand with this number."))
    return redirect("staff-auditor")


@auditor_required
@require_GET
def poker_hand_text(request, hand_id: int):
    """One ended hand in PokerStars text, every down card shown."""
    hand = poker_audit.poker_hand_ended(hand_id=hand_id)
    if hand is None:
        raise Http404("No ended poker hand with this number.")
    response = HttpResponse(
        poker_audit.poker_hand_text(hand), content_type=exports.MEDIA_TYPES[ExportJob.Format.POKERSTARS]
    )
    response["Content-Disposition"] = f'attachment; filename="poker-hand-{hand.pk}-audit.txt"'
    return response


@auditor_required
@require_GET
def poker_export(request, fmt: str):
    """A streamed export of the hand records with the list's filters (manifest after the last byte)."""
    form = _poker_filter_form(request)
    if not form.is_valid():
        return render(
            request, "backoffice/auditor/poker_hands.html", {"form": form, "page": None, "query": ""}, status=400
        )
    job = exports.poker_export_open(user=request.user, fmt=fmt, filters=form.filters())
    response = responses.streaming_response(
        request, exports.poker_export_stream(job=job), content_type=exports.MEDIA_TYPES[fmt], filename=job.file_name
    )
    response["X-Export-Id"] = str(job.pk)
    response["Link"] = (
        f'<{reverse("staff-auditor-export-manifest", args=[job.pk])}>; rel="describedby"; type="application/json"'
    )
    return response


@auditor_required
@require_POST
def poker_export_request(request):
    """Start a file export of the hand records in the background (Celery); its page shows the progress."""
    form = PokerExportRequestForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            gettext("The export request is not valid: %(errors)s")
            % {"errors": "; ".join(e for errs in form.errors.values() for e in errs)},
        )
        return redirect("staff-auditor-poker-hands")
    job = exports.poker_export_request(user=request.user, fmt=form.cleaned_data["format"], filters=form.filters())
    messages.success(request, gettext("Export #%(job_id)s started.") % {"job_id": job.pk})
    return redirect("staff-auditor-export", job_id=job.pk)


@auditor_required
@require_GET
def poker_rake(request):
    form = PokerRakeForm(request.GET or {})
    report = None
    if form.is_valid():
        filters = form.filters()
        report = poker_rake_report(date_from=filters.date_from, date_to=filters.date_to, table_id=filters.table_id)
    return render(
        request,
        "backoffice/auditor/poker_rake.html",
        {"form": form, "report": report},
        status=200 if form.is_valid() else 400,
    )


@auditor_required
@require_GET
def poker_reconciliation(request):
    rows = poker_selectors.poker_reconciliation()
    return render(
        request,
        "backoffice/auditor/poker_reconciliation.html",
        {"rows": rows, "ok": all(not r["problems"] for r in rows), "checked_at": timezone.now()},
    )
