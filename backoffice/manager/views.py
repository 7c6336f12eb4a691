"""The manager's pages: limit tiers, tables, pay tables, jackpot pools, the audit log.

Managers read and change; auditors read the same pages with every field disabled and
no buttons (a change they post anyway is refused with 403); everyone else gets 403.
Thin: a form checks the shape, one service makes the change (validated and audited in
one transaction), and its refusal is shown beside the field it names.
"""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from backoffice.manager.forms import AuditFilterForm, PayTableForm, PoolForm, TableForm, TierForm, TopUpForm
from backoffice.manager.selectors import audit_page, live_hand_of, live_hands_of
from casino.access import policy
from casino.audit import AUDIT_ACTIONS, OBJECT_WORDS, audit_action_words, audit_entry_words
from casino.http.errors import ApplicationError, ValidationError
from casino.keyset import page_cursors
from casino.models import AuditEntry
from casino.money import money
from jackpot import services as jackpot_services
from jackpot.models import DEFAULT_METER_SHARE_BP, DEFAULT_RESERVE_SHARE_BP, JackpotPool
from tables import selectors as table_selectors
from tables.models import PayTable, Table
from tables.services import config as table_config
from wallets.models import LimitTier
from wallets.tiers import tier_create, tier_update

AUDIT_PAGE_SIZE = 50


# Signed in (else the sign-in page); reading for managers and auditors; changing for managers.
manager_page = policy.allowed_for(
    "config.read",
    message=gettext_lazy("The management pages are for managers and auditors."),
    unsafe="config.change",
    unsafe_message=gettext_lazy("Only managers change the configuration; auditors may read it."),
)


def _can_change(request) -> bool:
    return policy.allowed(request.user, "config.change")


def _save(request, form, save, *, success: str):
    """Run ``save()`` for a valid form; a refusal goes into the form. Returns the HTTP status."""
    if not form.is_valid():
        return 400
    if form.initial and not form.has_changed():
        messages.info(request, gettext("Nothing changed."))
        return 0
    try:
        save()
    except ApplicationError as error:
        form.add_service_error(error)
        return error.status
    messages.success(request, success)
    return 0


def audit_changes(entry: AuditEntry) -> list[tuple[str, object, object]]:
    """The fields an entry changed, as (field, before, after); every field of a creation."""
    before, after = entry.before or {}, entry.after or {}
    if not isinstance(before, dict) or not isinstance(after, dict):
        return [("value", entry.before, entry.after)]
    fields = sorted(set(before) | set(after))
    return [(f, before.get(f), after.get(f)) for f in fields if before.get(f) != after.get(f)]


def _with_changes(entries):
    entries = list(entries)
    for entry in entries:
        entry.changes = audit_changes(entry)
        entry.words = audit_entry_words(entry)  # what the page shows: euros, tables, names
    return entries


# --- overview ---------------------------------------------------------------------------


@manager_page
def overview(request):
    tables = Table.objects.select_related("tier", "paytable", "pool").annotate(seated=Count("seats")).order_by("pk")
    hands = live_hands_of(tables)
    rows = [(table, hands[table.pk]) for table in tables]
    pools = JackpotPool.objects.select_related("meter_account", "reserve_account").order_by("pk")
    context = {
        "can_change": _can_change(request),
        "tiers": LimitTier.objects.annotate(table_count=Count("tables")).order_by("min_ante", "pk"),
        "tables": rows,
        "paytables": PayTable.objects.annotate(table_count=Count("tables")).order_by("pk"),
        "pools": pools,
        "recent": _with_changes(AuditEntry.objects.select_related("actor").order_by("-id")[:10]),
    }
    return render(request, "backoffice/manager/overview.html", context)


# --- limit tiers ------------------------------------------------------------------------


@manager_page
def tier_edit(request, tier_id: int | None = None):
    tier = get_object_or_404(LimitTier, pk=tier_id) if tier_id is not None else None
    initial = {"name": tier.name, "min_ante": tier.min_ante, "max_ante": tier.max_ante} if tier else {}
    status = 200
    if request.method == "POST":
        form = TierForm(request.POST, initial=initial)

        def save():
            nonlocal tier
            if tier is None:
                tier = tier_create(actor=request.user, **form.cleaned_data)
            else:
                tier_update(actor=request.user, tier_id=tier.pk, changes=form.cleaned_data)

        status = _save(request, form, save, success=gettext("Limit tier saved."))
        if status == 0:
            return redirect("staff-manager-tier", tier_id=tier.pk)
    else:
        form = TierForm(initial=initial, readonly=not _can_change(request))
    context = {
        "form": form,
        "object": tier,
        "title": gettext("Limit tier %(name)s") % {"name": tier.name} if tier else gettext("New limit tier"),
        "can_change": _can_change(request),
        "audit_type": "wallets.LimitTier",
        "note": gettext("A new ante range applies to each table's next hand (and at once where nobody has bet yet)."),
    }
    return render(request, "backoffice/manager/form.html", context, status=status)


# --- tables -----------------------------------------------------------------------------


def _table_initial(table: Table) -> dict:
    fields = ("name", "bet_seconds", "decision_seconds", "extension_seconds", "pair_timeout_action", "sit_out_limit")
    return {field: getattr(table, field) for field in fields} | {
        "tier": table.tier_id,
        "paytable": table.paytable_id,
        "pool": table.pool_id,
    }


@manager_page
def table_edit(request, table_id: int | None = None):
    table = (
        get_object_or_404(Table.objects.select_related("tier", "paytable", "pool"), pk=table_id) if table_id else None
    )
    initial = (
        _table_initial(table)
        if table
        else {
            "bet_seconds": 15,
            "decision_seconds": 20,
            "extension_seconds": 60,
            "pair_timeout_action": "fold",
            "sit_out_limit": 3,
        }
    )
    status = 200
    if request.method == "POST":
        form = TableForm(request.POST, initial=initial if table else {})

        def save():
            nonlocal table
            changes = form.changes()
            if table is None:
                core = {k: changes.pop(k) for k in ("name", "tier", "paytable", "pool")}
                table = table_config.table_add(
                    actor=request.user,
                    name=core["name"],
                    tier_id=core["tier"],
                    paytable_id=core["paytable"],
                    pool_id=core["pool"],
                    timebank=changes,
                )
            else:
                changed = {k: v for k, v in changes.items() if k in form.changed_data}
                table_config.table_update(actor=request.user, table_id=table.pk, changes=changed)

        status = _save(request, form, save, success=gettext("Table saved."))
        if status == 0:
            return redirect("staff-manager-table", table_id=table.pk)
    else:
        form = TableForm(initial=initial, readonly=not _can_change(request))
    hand = live_hand_of(table) if table else None
    context = {
        "form": form,
        "object": table,
        "table": table,
        "hand": hand,
        "title": gettext("Table %(name)s") % {"name": table.name} if table else gettext("New table"),
        "can_change": _can_change(request),
        "note": gettext(
            "Tier, pay table, pool and the timeout rule cannot change while a hand with bets is in play; "
            "timers apply from the next deadline."
        ),
    }
    return render(request, "backoffice/manager/table_form.html", context, status=status)


@manager_page
@require_POST
def table_open(request, table_id: int):
    try:
        table = table_config.table_open(actor=request.user, table_id=table_id)
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, gettext("%(name)s is open.") % {"name": table.name})
    return redirect("staff-manager-table", table_id=table_id)


@manager_page
@require_POST
def table_close(request, table_id: int):
    try:
        table = table_config.table_close(actor=request.user, table_id=table_id)
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        if table.hand_in_progress:
            messages.success(
                request,
                gettext(
                    "%(name)s is closed: hand %(hand)s is played to its end, then no new hand opens. "
                    "Close again afterwards to stand up anyone still seated."
                )
                % {"name": table.name, "hand": table.hand_in_progress},
            )
        else:
            messages.success(request, gettext("%(name)s is closed.") % {"name": table.name})
    return redirect("staff-manager-table", table_id=table_id)


# --- pay tables -------------------------------------------------------------------------


@manager_page
def paytable_edit(request, paytable_id: int | None = None):
    paytable = get_object_or_404(PayTable, pk=paytable_id) if paytable_id is not None else None
    initial = PayTableForm.initial_for(paytable) if paytable else {}
    status = 200
    if request.method == "POST":
        form = PayTableForm(request.POST, initial=initial)

        def save():
            nonlocal paytable
            changes = form.changes()
            if paytable is None:
                paytable = table_config.paytable_create(actor=request.user, **changes)
            else:
                table_config.paytable_update(actor=request.user, paytable_id=paytable.pk, changes=changes)

        status = _save(request, form, save, success=gettext("Pay table saved."))
        if status == 0:
            return redirect("staff-manager-paytable", paytable_id=paytable.pk)
    else:
        form = PayTableForm(initial=initial, readonly=not _can_change(request))
    context = {
        "form": form,
        "object": paytable,
        "title": gettext("Pay table %(name)s") % {"name": paytable.name} if paytable else gettext("New pay table"),
        "can_change": _can_change(request),
        "tables": paytable.tables.order_by("name") if paytable else [],
    }
    return render(request, "backoffice/manager/paytable_form.html", context, status=status)


# --- jackpot pools ----------------------------------------------------------------------


def _pool_rules_note(previous: list[dict]) -> str:
    """What a manager reads after changing a pool's rules: from when, and which hands not yet."""
    note = gettext("The new rules apply at each of the pool's tables from its next hand.")
    if previous:
        hands = ", ".join(gettext("hand #%(hand)s at %(table_name)s") % h for h in previous)
        note += " " + gettext("Still on the previous rules until settled: %(hands)s.") % {"hands": hands}
    return note


@manager_page
def pool_edit(request, pool_id: int | None = None):
    pool = (
        get_object_or_404(JackpotPool.objects.select_related("meter_account", "reserve_account"), pk=pool_id)
        if pool_id is not None
        else None
    )
    initial = (
        PoolForm.initial_for(pool)
        if pool
        else {"meter_share_bp": DEFAULT_METER_SHARE_BP, "reserve_share_bp": DEFAULT_RESERVE_SHARE_BP}
    )
    status = 200
    if request.method == "POST":
        form = PoolForm(request.POST, initial=initial if pool else {})
        note = None

        def save():
            nonlocal pool, note
            changes = form.changes()
            if pool is None:
                pool = jackpot_services.pool_add(actor=request.user, **changes)
            else:
                updated = jackpot_services.pool_update(actor=request.user, pool_id=pool.pk, changes=changes)
                if jackpot_services.POOL_RULE_FIELDS & set(changes):
                    note = _pool_rules_note(table_selectors.pool_hands_on_previous_rules(pool=updated))

        status = _save(request, form, save, success=gettext("Jackpot pool saved."))
        if status == 0:
            if note:
                messages.info(request, note)
            return redirect("staff-manager-pool", pool_id=pool.pk)
    else:
        form = PoolForm(initial=initial, readonly=not _can_change(request))
    context = {
        "form": form,
        "object": pool,
        "title": gettext("Jackpot pool %(name)s") % {"name": pool.name} if pool else gettext("New jackpot pool"),
        "can_change": _can_change(request),
        "top_up": TopUpForm() if pool and _can_change(request) else None,
        "tables": pool.tables.order_by("name") if pool else [],
        "previous_rules": table_selectors.pool_hands_on_previous_rules(pool=pool) if pool else [],
    }
    return render(request, "backoffice/manager/pool_form.html", context, status=status)


@manager_page
@require_POST
def pool_top_up(request, pool_id: int):
    pool = get_object_or_404(JackpotPool, pk=pool_id)
    form = TopUpForm(request.POST)
    if form.is_valid():
        try:
            txn = jackpot_services.pool_manual_top_up(
                actor=request.user,
                pool_id=pool.pk,
                amount=form.cleaned_data["amount"],
                idempotency_key=form.cleaned_data["key"],
            )
        except ApplicationError as error:
            messages.error(request, error.message)
        else:
            if txn.replayed:
                messages.info(
                    request,
                    gettext("This top-up was already made (transaction %(txn_id)s); nothing was added twice.")
                    % {"txn_id": txn.pk},
                )
            else:
                messages.success(
                    request,
                    gettext("Topped up by %(amount)s (transaction %(txn_id)s).")
                    % {"amount": money(form.cleaned_data["amount"]), "txn_id": txn.pk},
                )
    else:
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
    return redirect("staff-manager-pool", pool_id=pool.pk)


# --- audit log --------------------------------------------------------------------------


@manager_page
def audit_log(request):
    """The audit trail, newest first, a page at a time by cursor (``before=``, ``after=``:
    ``casino.keyset``, the filters kept in the links; a page number of the old links reads
    the newest page, a bad cursor is a 400 page with its error). The filters offer the
    actions and object types the code records (``casino.audit``), not a read of the trail."""
    form = AuditFilterForm(request.GET)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(
                request,
                gettext("The filter %(field)s is left out: %(errors)s")
                % {"field": field.replace("_", " "), "errors": " ".join(errors)},
            )
    filters = form.filters()
    page, error = None, None
    try:
        before, after = page_cursors(request.GET)
        page = audit_page(limit=AUDIT_PAGE_SIZE, before=before, after=after, **filters)
    except ValidationError as refused:
        error = refused
    object_types = sorted(OBJECT_WORDS)
    actions = sorted(AUDIT_ACTIONS)
    # A filter of the trail's past (a type or an action the code no longer records) stays offered.
    object_types += [t for t in [filters["object_type"]] if t and t not in OBJECT_WORDS]
    actions += [a for a in [filters["action"]] if a and a not in AUDIT_ACTIONS]
    context = {
        "page": page,
        "error": error,
        "entries": _with_changes(page.rows if page else []),
        "filters": filters,
        "query": urlencode({k: v for k, v in filters.items() if v}),
        "object_types": [(t, gettext(OBJECT_WORDS[t]) if t in OBJECT_WORDS else t) for t in object_types],
        "actions": [(a, audit_action_words(a)) for a in actions],
        "api_url": reverse("api-manager-audit"),
    }
    return render(request, "backoffice/manager/audit.html", context, status=400 if error else 200)
