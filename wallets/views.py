"""The player's money pages: the wallet (balance, deposit requests, statement) and responsible gaming."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from casino.access.policy import player_required
from casino.http.errors import ApplicationError, ValidationError
from casino.keyset import page_cursors
from casino.money import money
from wallets import responsible, selectors, services
from wallets.forms import RESPONSIBLE_FORMS, DepositRequestForm
from wallets.holdings import player_holdings
from wallets.models import CashRequest, DepositRequest, GamingLimit, PlayerProtection
from wallets.statement import statement_words

STATEMENT_PAGE_SIZE = 25


DEPOSIT_REQUESTS_SHOWN = 10


def _deposit_status(deposit: DepositRequest) -> str:
    """The status as the player reads it."""
    if deposit.status == DepositRequest.Status.REQUESTED and deposit.cash_request_id is not None:
        if deposit.cash_request.status == CashRequest.Status.PENDING:
            return "Received by the cashier, waiting for a second approval"
    return deposit.get_status_display()


def _deposit_rows(player) -> list[dict]:
    return [
        {
            "id": d.pk,
            "amount": money(d.amount),
            "status": d.status,
            "status_text": _deposit_status(d),
            "requested_at": d.requested_at,
            "decided_at": d.decided_at,
            "reason": d.reason,
            "cancellable": d.status == DepositRequest.Status.REQUESTED and d.cash_request_id is None,
        }
        for d in DepositRequest.objects.filter(player=player).select_related("cash_request")[:DEPOSIT_REQUESTS_SHOWN]
    ]


@player_required
def wallet_page(request):
    return _wallet(request)


def _wallet(request, deposit_form: DepositRequestForm | None = None):
    """The wallet page; its statement newest first, a page at a time by cursor (``before=``,
    ``after=``: ``casino.keyset``): a page number of the old links reads the newest page, a
    bad cursor is a 400 page with its error beside the statement."""
    balances = selectors.wallet_balances(user=request.user)
    holdings = player_holdings(user=request.user)
    held = sum(holding.amount for holding in holdings)
    at_the_desk = selectors.desk_held(user=request.user)
    page, error = None, None
    try:
        before, after = page_cursors(request.GET)
        page = selectors.wallet_statement_page(user=request.user, limit=STATEMENT_PAGE_SIZE, before=before, after=after)
    except ValidationError as refused:
        error = refused
    deposits = _deposit_rows(request.user)
    legs = page.rows if page else []
    words = statement_words([leg.transaction for leg in legs], user=request.user)
    rows = [
        {
            "at": leg.transaction.created_at,
            **dict(zip(("kind", "memo"), words[leg.transaction.pk])),
            "amount": money(leg.signed_amount, signed=True),
            "sign": (leg.signed_amount > 0) - (leg.signed_amount < 0),
            "hand": leg.transaction.hand_ref,
            "table": leg.transaction.table_ref,
        }
        for leg in legs
    ]
    return render(
        request,
        "wallets/wallet.html",
        {
            "available": money(balances.available),
            "in_play": money(balances.in_play),
            "held": money(held),
            "holdings": [{"label": h.label, "amount": money(h.amount), "url": h.url} for h in holdings],
            "desk_held": money(at_the_desk) if at_the_desk else None,
            "total": money(balances.total + held + at_the_desk),
            "page": page,
            "rows": rows,
            "error": error,
            "empty": balances.available == 0,
            "deposit_form": deposit_form or DepositRequestForm(initial={"key": uuid.uuid4().hex}, auto_id="deposit-%s"),
            "deposits": deposits,
            "waiting": any(d["status"] == DepositRequest.Status.REQUESTED for d in deposits),
        },
        status=400 if error else 200,
    )


@player_required
@require_POST
def deposit_request(request):
    """The wallet page's "Request a deposit": one call to ``deposit_request_create``."""
    form = DepositRequestForm(request.POST, auto_id="deposit-%s")
    if form.is_valid():
        try:
            deposit = services.deposit_request_create(
                player=request.user, amount=form.cleaned_data["amount"], idempotency_key=form.cleaned_data["key"]
            )
        except ApplicationError as error:
            form.add_service_error(error)
        else:
            messages.success(
                request,
                gettext(
                    "Your deposit request of %(amount)s is with the cashier. "
                    "Its status is below; the money is in your wallet once it is completed."
                )
                % {"amount": money(deposit.amount)},
            )
            return redirect("wallet")
    messages.error(request, gettext("No deposit was requested: see the form."))
    return _wallet(request, deposit_form=form)


@player_required
@require_POST
def deposit_request_cancel(request, request_id: int):
    try:
        deposit = services.deposit_request_cancel(player=request.user, request_id=request_id)
    except ApplicationError as error:
        messages.error(request, gettext("Nothing was cancelled: %(message)s") % {"message": error.message})
    else:
        messages.success(
            request, gettext("Your deposit request of %(amount)s is cancelled.") % {"amount": money(deposit.amount)}
        )
    return redirect("wallet")


@player_required
def responsible_gaming_page(request):
    """Limits, reality check and self-exclusion: each form posts one action to one service.

    Every form is a Django form (``wallets.forms``): what does not fit gets an error beside
    its field and changes nothing; a valid form calls its service and comes back here.
    """
    forms_by_action = {action: form_class(auto_id=f"{action}-%s") for action, form_class in RESPONSIBLE_FORMS.items()}
    if request.method == "POST":
        action = request.POST.get("action")
        form_class = RESPONSIBLE_FORMS.get(action)
        if form_class is None:
            messages.error(request, gettext("Unknown action."))
            return redirect("responsible-gaming")
        form = form_class(request.POST, auto_id=f"{action}-%s")
        forms_by_action[action] = form
        if form.is_valid():
            try:
                messages.success(request, _RESPONSIBLE_ACTIONS[action](request.user, form.cleaned_data))
            except ApplicationError as error:
                form.add_service_error(error)
            else:
                return redirect("responsible-gaming")
        messages.error(request, gettext("Nothing was changed: see the form below."))
    return render(request, "wallets/responsible.html", _responsible_context(request, forms_by_action))


def _set_limit(player, data) -> str:
    responsible.limit_set(player=player, kind=data["kind"], period=data["period"], amount=data["amount"])
    return gettext("Your limit is saved. A lower limit applies at once; a higher one after 24 hours.")


def _set_reality_check(player, data) -> str:
    responsible.reality_check_set(player=player, minutes=data["minutes"])
    return gettext("Your reality check is saved.")


def _exclude(player, data) -> str:
    responsible.self_exclude(player=player, months=data["months"])
    return gettext("You are excluded from play. Withdrawals stay possible at the cashier.")


_RESPONSIBLE_ACTIONS = {"limit": _set_limit, "reality": _set_reality_check, "exclude": _exclude}


def _responsible_context(request, forms_by_action: dict) -> dict:
    protection = PlayerProtection.objects.filter(player=request.user).first()
    reality = forms_by_action["reality"]
    if not reality.is_bound and protection is not None and protection.reality_check_minutes:
        reality.initial["minutes"] = str(protection.reality_check_minutes)
    statuses = [
        {
            "kind": GamingLimit.Kind(s.kind).label,
            "period": GamingLimit.Period(s.period).label,
            "amount": money(s.amount) if s.amount is not None else gettext("No limit"),
            "used": money(s.used),
            "remaining": money(s.remaining) if s.remaining is not None else "—",
            "pending": money(s.pending_amount)
            if s.pending_amount is not None
            else (gettext("No limit") if s.pending_from else None),
            "pending_from": s.pending_from,
        }
        for s in responsible.limits_status(player=request.user)
    ]
    return {
        "statuses": statuses,
        "limit_form": forms_by_action["limit"],
        "reality_form": reality,
        "exclude_form": forms_by_action["exclude"],
        "excluded_until": responsible.excluded_until(player=request.user),
        "min_months": responsible.MIN_EXCLUSION_MONTHS,
    }
