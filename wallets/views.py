"""The player's money pages: the wallet (balance and statement) and responsible gaming."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render

from casino.errors import ApplicationError, ValidationError
from casino.money import to_cents
from casino.views import money
from tables.views import player_required
from wallets import responsible, selectors
from wallets.models import GamingLimit, PlayerProtection, Transaction

STATEMENT_PAGE_SIZE = 25


@player_required
def wallet_page(request):
    balances = selectors.wallet_balances(user=request.user)
    page = Paginator(selectors.wallet_statement(user=request.user), STATEMENT_PAGE_SIZE).get_page(request.GET.get("page"))
    kinds = dict(Transaction.Kind.choices)
    rows = [
        {
            "at": leg.transaction.created_at,
            "kind": kinds.get(leg.transaction.kind, leg.transaction.kind),
            "memo": leg.transaction.memo,
            "amount": money(leg.signed_amount, signed=True),
            "sign": (leg.signed_amount > 0) - (leg.signed_amount < 0),
            "hand": leg.transaction.hand_ref,
            "table": leg.transaction.table_ref,
        }
        for leg in page
    ]
    return render(
        request,
        "wallets/wallet.html",
        {
            "available": money(balances.available),
            "in_play": money(balances.in_play),
            "total": money(balances.total),
            "page": page,
            "rows": rows,
        },
    )


LIMIT_CHOICES = [(k, label) for k, label in GamingLimit.Kind.choices]
PERIOD_CHOICES = [(p, label) for p, label in GamingLimit.Period.choices]


@player_required
def responsible_gaming_page(request):
    """Limits, reality check and self-exclusion: each form posts one action to one service."""
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "limit":
                raw = request.POST.get("amount", "").strip()
                responsible.limit_set(
                    player=request.user,
                    kind=request.POST.get("kind", ""),
                    period=request.POST.get("period", ""),
                    amount=to_cents(raw, field="amount", allow_zero=True) if raw else None,
                )
                messages.success(request, "Your limit is saved. A lower limit applies at once; a higher one after 24 hours.")
            elif action == "reality":
                raw = request.POST.get("minutes", "")
                responsible.reality_check_set(player=request.user, minutes=int(raw) if raw.isdigit() else None)
                messages.success(request, "Your reality check is saved.")
            elif action == "exclude":
                if request.POST.get("confirm") != "yes":
                    raise ValidationError("Tick the box to confirm; a self-exclusion cannot be undone.", code="confirmation_required")
                months = request.POST.get("months", "")
                responsible.self_exclude(player=request.user, months=int(months) if months.isdigit() else 0)
                messages.success(request, "You are excluded from play. Withdrawals stay possible at the cashier.")
            else:
                raise ValidationError("Unknown action.", code="action_invalid")
        except ApplicationError as error:
            messages.error(request, error.message)
        return redirect("responsible-gaming")
    protection = PlayerProtection.objects.filter(player=request.user).first()
    statuses = [
        {
            "kind": GamingLimit.Kind(s.kind).label,
            "period": GamingLimit.Period(s.period).label,
            "amount": money(s.amount) if s.amount is not None else "No limit",
            "used": money(s.used),
            "remaining": money(s.remaining) if s.remaining is not None else "—",
            "pending": money(s.pending_amount) if s.pending_amount is not None else ("No limit" if s.pending_from else None),
            "pending_from": s.pending_from,
        }
        for s in responsible.limits_status(player=request.user)
    ]
    return render(
        request,
        "wallets/responsible.html",
        {
            "statuses": statuses,
            "kinds": LIMIT_CHOICES,
            "periods": PERIOD_CHOICES,
            "reality_minutes": responsible.REALITY_CHECK_MINUTES,
            "reality_current": protection.reality_check_minutes if protection else None,
            "excluded_until": responsible.excluded_until(player=request.user),
            "min_months": responsible.MIN_EXCLUSION_MONTHS,
        },
    )
