"""The cashier's desk as pages: find a player, deposit, withdraw, approve, reverse, report,
and complete the players' own deposit requests (from the wallet page).

Approving, reversing and completing a deposit request move money, so each has a
confirmation step: a small page (no script; the CSP allows none inline) that shows the
amount and the player's balance now and after, and posts the decision.

Thin: every form is a Django form (``wallets.forms``); a POST that fits calls one service
and comes back with a message, one that does not (or that the service refuses) shows the
page again with the error beside its field, and nothing moves. Every form carries an
idempotency key made when the page was drawn, so a double submit moves money once.

Amounts reach the templates as integer cents; the ``money`` / ``signed_money`` filters
(``casino/templatetags/casino_tags.py``) format them. Only the flash messages, which are
text by nature, format an amount here (``casino.money.money``).
"""

from __future__ import annotations

import uuid
from datetime import date

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse as url_reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from backoffice.cashier.forms import DepositCompleteForm
from casino.access import policy
from casino.access.roles import PLAYER
from casino.http.errors import ApplicationError
from casino.money import money
from wallets import selectors, services
from wallets.forms import DecisionForm, DepositRejectForm, MovementForm, PlayerSearchForm, ReportForm, ReversalForm
from wallets.holdings import player_holdings
from wallets.models import Account, CashRequest, DepositRequest, Transaction
from wallets.statement import statement_words

RECENT_MOVEMENTS = 20


DESK_PAGE = "This page is for the cashier's desk."
cashier_required = policy.allowed_for("cash.desk", message=DESK_PAGE)
approver_required = policy.allowed_for("cash.approve", message=DESK_PAGE)
report_required = policy.allowed_for("cash.report", message=DESK_PAGE)


def _player_or_404(player_id: int):
    player = get_user_model().objects.filter(pk=player_id, is_active=True, groups__name=PLAYER).first()
    if player is None:
        raise Http404("No such player.")
    return player


def _when(moment) -> str:
    """A moment as the reader writes it (``04.12.2026 17:30`` in German)."""
    return date_format(timezone.localtime(moment), "SHORT_DATETIME_FORMAT")


def _describe(request: CashRequest) -> str:
    if request.kind == CashRequest.Kind.REVERSAL:
        return gettext("Reversal of #%(transaction_id)s") % {"transaction_id": request.reverses_id}
    return request.get_kind_display()


def _pending(viewer, decision_form: DecisionForm | None = None, decision_for: int | None = None) -> list[dict]:
    """Requests waiting for a second person, each with the player's balance now."""
    rows = []
    for r in CashRequest.objects.filter(status=CashRequest.Status.PENDING).select_related("player", "requested_by")[
        :100
    ]:
        bound = decision_form if decision_for == r.pk else None
        rows.append(
            {
                "id": r.pk,
                "kind": _describe(r),
                "player": r.player,
                "available": selectors.wallet_balances(user=r.player).available,
                "amount": r.amount,
                "memo": r.memo,
                "requested_by": r.requested_by.get_username(),
                "requested_at": r.requested_at,
                "own": r.requested_by_id == viewer.pk,
                "form": bound or DecisionForm(auto_id=f"decide-{r.pk}-%s"),
            }
        )
    return rows


def _deposit_requests(reject_form: DepositRejectForm | None = None, reject_for: int | None = None) -> list[dict]:
    """Players' deposit requests not yet taken by the desk, oldest first (first come, first served)."""
    rows = []
    queue = DepositRequest.objects.filter(status=DepositRequest.Status.REQUESTED, cash_request__isnull=True)
    for d in queue.select_related("player").order_by("id")[:100]:
        rows.append(
            {
                "id": d.pk,
                "player": d.player,
                "amount": d.amount,
                "available": selectors.wallet_balances(user=d.player).available,
                "requested_at": d.requested_at,
                "form": (reject_form if reject_for == d.pk else None)
                or DepositRejectForm(auto_id=f"deposit-reject-{d.pk}-%s"),
            }
        )
    return rows


def _desk(request, *, decision_form: DecisionForm | None = None, decision_for: int | None = None, **deposit):
    search = PlayerSearchForm(request.GET or None, auto_id="%s")
    players = []
    query = ""
    if search.is_valid():
        query = search.cleaned_data["q"]
        players = [
            {"player": p, "available": selectors.wallet_balances(user=p).available}
            for p in selectors.player_search(query=query)
        ]
    return render(
        request,
        "backoffice/cashier/desk.html",
        {
            "search": search,
            "query": query,
            "players": players,
            "pending": _pending(request.user, decision_form, decision_for),
            "deposit_requests": _deposit_requests(deposit.get("reject_form"), deposit.get("reject_for")),
            "is_cashier": policy.allowed(request.user, "cash.desk"),
        },
    )


@approver_required
def desk(request):
    return _desk(request)


def _player_page(request, player, **forms):
    balances = selectors.wallet_balances(user=player)
    holdings = player_holdings(user=player)
    legs = selectors.wallet_statement(user=player)[:RECENT_MOVEMENTS]
    ids = [leg.transaction_id for leg in legs]
    reversed_ids = set(Transaction.objects.filter(reverses__in=ids).values_list("reverses_id", flat=True))
    waiting_ids = set(
        CashRequest.objects.filter(reverses__in=ids, status=CashRequest.Status.PENDING).values_list(
            "reverses_id", flat=True
        )
    )
    reversal_form, reversal_for = forms.get("reversal_form"), forms.get("reversal_for")
    words = statement_words([leg.transaction for leg in legs], user=player)  # as the player's statement says them
    rows = []
    for leg in legs:
        txn_id = leg.transaction_id
        reversible = (
            leg.transaction.kind in services.DESK_KINDS and txn_id not in reversed_ids and txn_id not in waiting_ids
        )
        rows.append(
            {
                "transaction": txn_id,
                "at": leg.transaction.created_at,
                "kind": words[txn_id][0],
                "amount": leg.signed_amount,
                "memo": words[txn_id][1],
                "reversible": reversible,
                "reversed": txn_id in reversed_ids,
                "waiting": txn_id in waiting_ids,
                "form": (reversal_form if reversal_for == txn_id else None)
                or ReversalForm(initial={"transaction": txn_id, "key": f"r-{txn_id}"}, auto_id=f"reverse-{txn_id}-%s"),
            }
        )
    key = uuid.uuid4().hex
    return render(
        request,
        "backoffice/cashier/player.html",
        {
            "player": player,
            "available": balances.available,
            "in_play": balances.in_play,
            "holdings": holdings,
            "held": sum(holding.amount for holding in holdings),
            "desk_held": selectors.desk_held(user=player),
            "waiting": list(
                CashRequest.objects.filter(player=player, status=CashRequest.Status.PENDING).select_related(
                    "requested_by"
                )[:RECENT_MOVEMENTS]
            ),
            "rows": rows,
            "deposit_form": forms.get("deposit_form")
            or MovementForm(initial={"kind": CashRequest.Kind.DEPOSIT, "key": f"d-{key}"}, auto_id="deposit-%s"),
            "withdrawal_form": forms.get("withdrawal_form")
            or MovementForm(initial={"kind": CashRequest.Kind.WITHDRAWAL, "key": f"w-{key}"}, auto_id="withdrawal-%s"),
            "threshold": settings.CASHIER_APPROVAL_THRESHOLD,
            "open_deposits": [
                {"id": d.pk, "amount": d.amount, "requested_at": d.requested_at}
                for d in DepositRequest.objects.filter(
                    player=player, status=DepositRequest.Status.REQUESTED, cash_request__isnull=True
                ).order_by("id")
            ],
        },
    )


@cashier_required
def player_page(request, player_id: int):
    return _player_page(request, _player_or_404(player_id))


def _waits_message(what: str) -> str:
    return gettext(
        "%(what)s takes the player's desk total for today above %(threshold)s: it waits for a second staff member's "
        "approval."
    ) % {"what": what, "threshold": money(settings.CASHIER_APPROVAL_THRESHOLD)}


@cashier_required
@require_POST
def move(request, player_id: int):
    player = _player_or_404(player_id)
    kind = request.POST.get("kind")
    kind = kind if kind in (CashRequest.Kind.DEPOSIT, CashRequest.Kind.WITHDRAWAL) else CashRequest.Kind.DEPOSIT
    form = MovementForm(request.POST, auto_id=f"{kind}-%s")
    if form.is_valid():
        data = form.cleaned_data
        try:
            cash_request = services.cash_request_create(
                cashier=request.user,
                player=player,
                kind=data["kind"],
                amount=data["amount"],
                idempotency_key=data["key"] or uuid.uuid4().hex,
                memo=data["memo"],
            )
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            what = gettext("%(kind)s of %(amount)s") % {
                "kind": cash_request.get_kind_display(),
                "amount": money(cash_request.amount),
            }
            if cash_request.status == CashRequest.Status.EXECUTED:
                messages.success(request, gettext("%(what)s done.") % {"what": what})
            else:
                messages.warning(request, _waits_message(what))
            return redirect("staff-cashier-player", player_id=player.pk)
    messages.error(
        request,
        (
            gettext("The deposit was not made: see the form.")
            if kind == CashRequest.Kind.DEPOSIT
            else gettext("The withdrawal was not made: see the form.")
        ),
    )
    return _player_page(request, player, **{f"{kind}_form": form})


@approver_required
@require_POST
def decide(request, request_id: int):
    form = DecisionForm(request.POST, auto_id=f"decide-{request_id}-%s")
    if form.is_valid():
        try:
            if form.cleaned_data["decision"] == "approve":
                done = services.cash_request_approve(approver=request.user, request_id=request_id)
                verb = gettext("Approved")
            else:
                done = services.cash_request_reject(
                    approver=request.user, request_id=request_id, reason=form.cleaned_data["reason"]
                )
                verb = gettext("Rejected")
        except ApplicationError as error:
            form.add_service_error(error)
            # Said here too: the request may have no form on the desk (the asker's own).
            messages.error(
                request,
                gettext("Request #%(request_id)s was not decided: %(reason)s")
                % {"request_id": request_id, "reason": error.message},
            )
            return _desk(request, decision_form=form, decision_for=request_id)
        else:
            messages.success(
                request,
                gettext("%(verb)s: %(done)s of %(amount)s for %(player)s.")
                % {"verb": verb, "done": _describe(done), "amount": money(done.amount), "player": done.player},
            )
            return redirect("staff-cashier")
    messages.error(
        request, gettext("Request #%(request_id)s was not decided: see the form.") % {"request_id": request_id}
    )
    return _desk(request, decision_form=form, decision_for=request_id)


@cashier_required
@require_POST
def reverse(request, player_id: int):
    player = _player_or_404(player_id)
    raw = request.POST.get("transaction", "")
    form = ReversalForm(request.POST, auto_id=f"reverse-{raw}-%s")
    if form.is_valid():
        data = form.cleaned_data
        try:
            cash_request = services.cashier_reverse(
                cashier=request.user,
                transaction_id=data["transaction"],
                reason=data["reason"],
                idempotency_key=data["key"] or uuid.uuid4().hex,
            )
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            if cash_request.status == CashRequest.Status.EXECUTED:
                messages.success(
                    request,
                    gettext("Transaction #%(reverses_id)s reversed by #%(transaction_id)s.")
                    % {"reverses_id": cash_request.reverses_id, "transaction_id": cash_request.transaction_id},
                )
            else:
                messages.warning(
                    request,
                    _waits_message(
                        gettext("The reversal of #%(transaction_id)s") % {"transaction_id": cash_request.reverses_id}
                    ),
                )
            return redirect("staff-cashier-player", player_id=player.pk)
    messages.error(
        request,
        gettext("Nothing was reversed: %(errors)s")
        % {"errors": " ".join(e for errors in form.errors.values() for e in errors)},
    )
    reversal_for = form.cleaned_data.get("transaction") if hasattr(form, "cleaned_data") else None
    original = _player_transaction(player, reversal_for) if reversal_for else None
    if original is not None:
        return _reverse_confirm_page(request, player, original, form, status=400)
    return _player_page(request, player, reversal_form=form, reversal_for=reversal_for)


# --- confirmation steps ------------------------------------------------------------------


def _confirm(request, *, step: str, facts: list[tuple[str, object, str]], action: str, submit: str, back: str, **extra):
    """The confirmation page of ``step`` ("approve", "reverse", "deposit"): its question and
    note are the template's; ``facts`` are (label, value, how): ``how`` "money" or
    "signed" for cents the template formats, "" for text."""
    status = extra.pop("status", 200)
    context = {"step": step, "facts": facts, "action": action, "submit": submit, "back": back, **extra}
    return render(request, "backoffice/cashier/confirm.html", context, status=status)


@approver_required
def approve_confirm(request, request_id: int):
    """Step one of "Approve": what the request moves, and the player's balance now and after."""
    cash_request = CashRequest.objects.select_related("player", "requested_by").filter(pk=request_id).first()
    if cash_request is None or cash_request.status != CashRequest.Status.PENDING:
        messages.error(request, gettext("This request no longer waits for approval."))
        return redirect("staff-cashier")
    if cash_request.requested_by_id == request.user.pk:
        messages.error(request, gettext("You asked for this movement: another staff member must approve it."))
        return redirect("staff-cashier")
    available = selectors.wallet_balances(user=cash_request.player).available
    change = -cash_request.amount if cash_request.kind == CashRequest.Kind.WITHDRAWAL else cash_request.amount
    if cash_request.kind == CashRequest.Kind.REVERSAL:  # the mirror image of what the original did to the wallet
        leg = cash_request.reverses.legs.filter(
            account__owner=cash_request.player, account__kind=Account.Kind.PLAYER_WALLET
        ).first()
        change = -leg.signed_amount if leg is not None else 0
    held = []
    if cash_request.hold_id is not None:  # it took its money out of the wallet when it was asked for
        change = 0
        held = [(gettext("Held for approval"), cash_request.amount, "money")]
    return _confirm(
        request,
        step="approve",
        what=_describe(cash_request),
        amount=cash_request.amount,
        player=cash_request.player,
        facts=[
            (gettext("What"), _describe(cash_request), ""),
            (gettext("Player"), str(cash_request.player), ""),
            (gettext("Amount"), cash_request.amount, "money"),
            (gettext("Player's available balance now"), available, "money"),
            *held,
            (gettext("After approval"), available + change, "money"),
            (
                gettext("Asked by"),
                gettext("%(who)s on %(when)s")
                % {"who": cash_request.requested_by, "when": _when(cash_request.requested_at)},
                "",
            ),
            (gettext("Note"), cash_request.memo or "—", ""),
        ],
        action=url_reverse("staff-cashier-decide", args=[cash_request.pk]),
        hidden={"decision": "approve"},
        submit=gettext("Yes, approve"),
        back=url_reverse("staff-cashier"),
    )


def _player_transaction(player, transaction_id: int) -> Transaction | None:
    return (
        Transaction.objects.filter(
            pk=transaction_id, legs__account__owner=player, legs__account__kind=Account.Kind.PLAYER_WALLET
        )
        .distinct()
        .first()
    )


def _reverse_confirm_page(request, player, original: Transaction, form: ReversalForm, status: int = 200):
    leg = original.legs.get(account__owner=player, account__kind=Account.Kind.PLAYER_WALLET)
    available = selectors.wallet_balances(user=player).available
    return _confirm(
        request,
        step="reverse",
        what=original.get_kind_display(),
        transaction=original.pk,
        amount=leg.amount,
        player=player,
        facts=[
            (
                gettext("Transaction"),
                gettext("#%(id)s %(kind)s on %(when)s")
                % {"id": original.pk, "kind": original.get_kind_display(), "when": _when(original.created_at)},
                "",
            ),
            (gettext("Player"), str(player), ""),
            (gettext("Amount"), leg.signed_amount, "signed"),
            (gettext("Player's available balance now"), available, "money"),
            (gettext("After the reversal"), available - leg.signed_amount, "money"),
        ],
        action=url_reverse("staff-cashier-reverse", args=[player.pk]),
        form=form,
        submit=gettext("Yes, reverse"),
        back=url_reverse("staff-cashier-player", args=[player.pk]),
        status=status,
    )


@cashier_required
def reverse_confirm(request, player_id: int, transaction_id: int):
    """Step one of "Reverse": the transaction, the balance now and after, and the reason."""
    player = _player_or_404(player_id)
    original = _player_transaction(player, transaction_id)
    if original is None:
        raise Http404("No such transaction of this player.")
    form = ReversalForm(initial={"transaction": original.pk, "key": f"r-{original.pk}"}, auto_id="reverse-%s")
    return _reverse_confirm_page(request, player, original, form)


# --- the players' deposit requests ---------------------------------------------------------


@cashier_required
def deposit_complete(request, deposit_id: int):
    """GET: confirm what arrives and the balance it makes; POST: ``deposit_request_complete``."""
    deposit = DepositRequest.objects.select_related("player").filter(pk=deposit_id).first()
    if deposit is None:
        raise Http404("No such deposit request.")
    if request.method == "POST":
        form = DepositCompleteForm(request.POST)
        if not form.is_valid():
            messages.error(
                request,
                gettext("The deposit was not made: %(reference)s") % {"reference": " ".join(form.errors["reference"])},
            )
            return redirect("staff-cashier")
        try:
            deposit = services.deposit_request_complete(
                request_id=deposit.pk, completed_by=request.user, reference=form.cleaned_data["reference"]
            )
        except ApplicationError as error:
            messages.error(request, gettext("The deposit was not made: %(message)s") % {"message": error.message})
        else:
            what = gettext("Deposit of %(amount)s for %(player)s") % {
                "amount": money(deposit.amount),
                "player": deposit.player,
            }
            if deposit.status == DepositRequest.Status.COMPLETED:
                messages.success(
                    request, gettext("%(what)s done; the player’s request shows “Completed”.") % {"what": what}
                )
            else:
                messages.warning(request, _waits_message(what))
        return redirect("staff-cashier")
    if deposit.status != DepositRequest.Status.REQUESTED or deposit.cash_request_id is not None:
        messages.error(request, gettext("This deposit request is no longer open."))
        return redirect("staff-cashier")
    available = selectors.wallet_balances(user=deposit.player).available
    return _confirm(
        request,
        step="deposit",
        amount=deposit.amount,
        player=deposit.player,
        facts=[
            (gettext("Player"), str(deposit.player), ""),
            (gettext("Requested"), _when(deposit.requested_at), ""),
            (gettext("Amount received"), deposit.amount, "money"),
            (gettext("Player's available balance now"), available, "money"),
            (gettext("After the deposit"), available + deposit.amount, "money"),
        ],
        action=url_reverse("staff-cashier-deposit-complete", args=[deposit.pk]),
        form=DepositCompleteForm(auto_id="deposit-%s"),
        submit=gettext("Yes, the money is received"),
        back=url_reverse("staff-cashier"),
        threshold=settings.CASHIER_APPROVAL_THRESHOLD,
        waits=services.desk_total_today(player=deposit.player) + deposit.amount > settings.CASHIER_APPROVAL_THRESHOLD,
    )


@cashier_required
@require_POST
def deposit_reject(request, deposit_id: int):
    form = DepositRejectForm(request.POST, auto_id=f"deposit-reject-{deposit_id}-%s")
    if form.is_valid():
        try:
            deposit = services.deposit_request_reject(
                request_id=deposit_id, rejected_by=request.user, reason=form.cleaned_data["reason"]
            )
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            messages.success(
                request,
                gettext("Rejected: the deposit request of %(amount)s from %(player)s.")
                % {"amount": money(deposit.amount), "player": deposit.player},
            )
            return redirect("staff-cashier")
    messages.error(request, gettext("The deposit request was not rejected: see the form."))
    response = _desk(request, reject_form=form, reject_for=deposit_id)
    response.status_code = 400
    return response


@report_required
def report(request):
    form = ReportForm(request.GET or None, initial={"date": date.today()}, auto_id="report-%s")
    day = date.today()
    if form.is_bound:
        if form.is_valid():
            day = form.cleaned_data["date"] or day
        else:
            messages.error(request, gettext("The date is YYYY-MM-DD."))
    return render(
        request, "backoffice/cashier/report.html", {"form": form, "day": day, "rows": selectors.cash_report(day=day)}
    )
