"""The player's wallet page: balance (available, in play) and the statement, paginated."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.shortcuts import render

from casino.views import money
from tables.views import player_required
from wallets import selectors
from wallets.models import Transaction

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
