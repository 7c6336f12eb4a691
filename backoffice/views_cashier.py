"""The cashier's desk as pages: find a player, deposit, withdraw, approve, reverse, report.

Thin: each POST calls one service and comes back with a message. Every form carries an
idempotency key made when the page was drawn, so a double submit moves money once.
"""

from __future__ import annotations

import uuid
from datetime import date

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from casino.errors import ApplicationError
from casino.money import to_cents
from casino.roles import CASHIER, MANAGER, PLAYER, has_role, pages_for
from casino.views import money
from wallets import selectors, services
from wallets.models import CashRequest, Transaction

RECENT_MOVEMENTS = 20


cashier_required = pages_for(CASHIER, message="This page is for the cashier's desk.")
approver_required = pages_for(CASHIER, MANAGER, message="This page is for the cashier's desk.")


def _player_or_404(player_id: int):
    player = get_user_model().objects.filter(pk=player_id, is_active=True, groups__name=PLAYER).first()
    if player is None:
        raise Http404("No such player.")
    return player


def _requests(status: str):
    return [
        {
            "id": r.pk,
            "kind": r.get_kind_display(),
            "player": r.player,
            "amount": money(r.amount),
            "memo": r.memo,
            "requested_by": r.requested_by.get_username(),
            "requested_at": r.requested_at,
            "own": None,
        }
        for r in CashRequest.objects.filter(status=status).select_related("player", "requested_by")[:100]
    ]


@approver_required
def desk(request):
    query = request.GET.get("q", "")
    players = [
        {"player": p, "available": money(selectors.wallet_balances(user=p).available)}
        for p in selectors.player_search(query=query)
    ]
    pending = _requests(CashRequest.Status.PENDING)
    for row in pending:
        row["own"] = row["requested_by"] == request.user.get_username()
    return render(
        request,
        "backoffice/cashier/desk.html",
        {"query": query, "players": players, "pending": pending, "is_cashier": has_role(request.user, CASHIER)},
    )


@cashier_required
def player_page(request, player_id: int):
    player = _player_or_404(player_id)
    balances = selectors.wallet_balances(user=player)
    legs = selectors.wallet_statement(user=player)[:RECENT_MOVEMENTS]
    reversed_ids = set(
        Transaction.objects.filter(reverses__in=[leg.transaction_id for leg in legs]).values_list("reverses_id", flat=True)
    )
    rows = [
        {
            "transaction": leg.transaction_id,
            "at": leg.transaction.created_at,
            "kind": leg.transaction.get_kind_display(),
            "amount": money(leg.signed_amount, signed=True),
            "memo": leg.transaction.memo,
            "reversible": leg.transaction.kind in (Transaction.Kind.DEPOSIT, Transaction.Kind.WITHDRAWAL)
            and leg.transaction_id not in reversed_ids,
            "reversed": leg.transaction_id in reversed_ids,
        }
        for leg in legs
    ]
    return render(
        request,
        "backoffice/cashier/player.html",
        {
            "player": player,
            "available": money(balances.available),
            "in_play": money(balances.in_play),
            "rows": rows,
            "key": uuid.uuid4().hex,
            "threshold": money(settings.CASHIER_APPROVAL_THRESHOLD),
        },
    )


@cashier_required
@require_POST
def move(request, player_id: int):
    player = _player_or_404(player_id)
    kind = request.POST.get("kind", "")
    try:
        cash_request = services.cash_request_create(
            cashier=request.user,
            player=player,
            kind=kind,
            amount=to_cents(request.POST.get("amount"), field="amount"),
            idempotency_key=request.POST.get("key") or uuid.uuid4().hex,
            memo=request.POST.get("memo", "")[:200],
        )
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        if cash_request.status == CashRequest.Status.EXECUTED:
            messages.success(request, f"{cash_request.get_kind_display()} of {money(cash_request.amount)} done.")
        else:
            messages.warning(
                request,
                f"{cash_request.get_kind_display()} of {money(cash_request.amount)} is above the threshold: "
                "it waits for a second staff member's approval.",
            )
    return redirect("staff-cashier-player", player_id=player.pk)


@approver_required
@require_POST
def decide(request, request_id: int):
    try:
        if request.POST.get("decision") == "approve":
            done = services.cash_request_approve(approver=request.user, request_id=request_id)
            messages.success(request, f"Approved: {done.get_kind_display()} of {money(done.amount)} for {done.player}.")
        else:
            done = services.cash_request_reject(
                approver=request.user, request_id=request_id, reason=request.POST.get("reason", "")
            )
            messages.success(request, f"Rejected: {done.get_kind_display()} of {money(done.amount)} for {done.player}.")
    except ApplicationError as error:
        messages.error(request, error.message)
    return redirect("staff-cashier")


@cashier_required
@require_POST
def reverse(request, player_id: int):
    player = _player_or_404(player_id)
    try:
        txn = services.cashier_reverse(
            cashier=request.user,
            transaction_id=int(request.POST.get("transaction", "0") or 0),
            reason=request.POST.get("reason", ""),
            idempotency_key=request.POST.get("key") or uuid.uuid4().hex,
        )
    except (ApplicationError, ValueError) as error:
        messages.error(request, getattr(error, "message", "That transaction cannot be reversed."))
    else:
        messages.success(request, f"Transaction #{txn.reverses_id} reversed by #{txn.pk}.")
    return redirect("staff-cashier-player", player_id=player.pk)


@approver_required
def report(request):
    raw = request.GET.get("date")
    try:
        day = date.fromisoformat(raw) if raw else date.today()
    except ValueError:
        messages.error(request, "The date is YYYY-MM-DD.")
        day = date.today()
    rows = [
        {
            "cashier": r.cashier,
            "opening": money(r.opening),
            "deposits": money(r.deposits),
            "withdrawals": money(r.withdrawals),
            "reversals": money(r.reversals, signed=True),
            "closing": money(r.closing),
        }
        for r in selectors.cash_report(day=day)
    ]
    return render(request, "backoffice/cashier/report.html", {"day": day, "rows": rows})
