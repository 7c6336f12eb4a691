"""Forms of the manager's pages. They check the shape of the input (text to cents, text
to whole numbers); every rule (bounds, order of hands, hands in play) is the services'."""

from __future__ import annotations

import uuid

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from casino.cents import format_cents
from casino.game.evaluator import Category
from casino.http.errors import ApplicationError
from casino.money import to_cents
from jackpot.models import JackpotPool
from jackpot.services import TOP_UP_KEY_MAX
from tables.models import PayTable
from tables.services.config import MAX_ODDS, PAIR_TIMEOUT_ACTIONS
from wallets.models import LimitTier

CATEGORIES = sorted(Category, reverse=True)  # royal flush first, as pay tables are printed


def _hand_label(msgid: str, category: Category) -> str:
    """A hand's field label, read in the reader's language when it is shown or names the field
    in a refusal: ``msgid`` ("%(hand)s: fixed prize") with the hand's label."""
    return _lazy_text(msgid, category.label)


def _text(msgid: str, hand: str) -> str:
    return gettext(msgid) % {"hand": gettext(hand)}


_lazy_text = lazy(_text, str)


class MoneyField(forms.CharField):
    """An amount typed as ``12.50``, cleaned to int cents (``casino.money.to_cents``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("strip", False)  # " 5" is as wrong here as in the API: the parser decides
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal", "class": "money-input"}))
        super().__init__(**kwargs)

    def prepare_value(self, value):
        return format_cents(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def has_changed(self, initial, data):
        try:
            return self.clean(data) != initial
        except forms.ValidationError:
            return True

    def clean(self, value):
        value = super().clean(value)
        if value in self.empty_values:
            return None
        try:
            return to_cents(value, field=str(self.label) if self.label else "amount")
        except ApplicationError as error:
            raise forms.ValidationError(error.message, code=error.code) from None


class StaffForm(forms.Form):
    """Shows every field disabled to a reader (an auditor)."""

    def __init__(self, *args, readonly: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.readonly = readonly
        if readonly:
            for field in self.fields.values():
                field.disabled = True

    def add_service_error(self, error: ApplicationError) -> None:
        """Show a service's refusal beside the field it names, or above the form."""
        field = error.extra.get("field")
        message = error.message  # the code stays in the ValidationError, not in the words
        if field in self.fields:
            self.add_error(field, forms.ValidationError(message, code=error.code))
        else:
            self.add_error(None, forms.ValidationError(message, code=error.code))


class TierForm(StaffForm):
    name = forms.CharField(max_length=200, label=_("Name"))
    min_ante = MoneyField(label=_("Minimum ante"), help_text=_("e.g. 0.50"))
    max_ante = MoneyField(label=_("Maximum ante"), help_text=_("e.g. 10.00"))


class TableForm(StaffForm):
    name = forms.CharField(max_length=200, label=_("Name"))
    tier = forms.ModelChoiceField(queryset=LimitTier.objects.order_by("min_ante", "pk"), label=_("Limit tier"))
    paytable = forms.ModelChoiceField(queryset=PayTable.objects.order_by("pk"), label=_("Pay table"))
    pool = forms.ModelChoiceField(queryset=JackpotPool.objects.order_by("pk"), label=_("Jackpot pool"))
    bet_seconds = forms.IntegerField(label=_("Betting window (s)"), help_text=_("After the first ante; 3 to 600."))
    decision_seconds = forms.IntegerField(label=_("Decision time (s)"), help_text=_("To fold or raise; 3 to 600."))
    extension_seconds = forms.IntegerField(
        label=_("Extension (s)"), help_text=_("Once, for a pair or better on timeout or disconnect; 0 to 600.")
    )
    pair_timeout_action = forms.ChoiceField(
        choices=[(a, _(a.capitalize())) for a in PAIR_TIMEOUT_ACTIONS],
        label=_("When the extension runs out"),
        help_text=_("What a pair or better does."),
    )
    sit_out_limit = forms.IntegerField(
        label=_("Sit-out limit"), help_text=_("Rounds sat out in a row before standing up; 1 to 100.")
    )

    def changes(self) -> dict:
        data = dict(self.cleaned_data)
        for field in ("tier", "paytable", "pool"):
            data[field] = data[field].pk if data.get(field) is not None else None
        return data


def _odds_field(required: bool) -> forms.IntegerField:
    """A cell of the grid: "N to 1", refused beside the cell in the reader's words when
    out of the odds a pay table may have (the service's bounds, ``MAX_ODDS``)."""
    return forms.IntegerField(
        required=required,
        min_value=0,
        max_value=MAX_ODDS,
        widget=forms.NumberInput(attrs={"class": "odds-input", "step": 1}),
    )


class PayTableForm(StaffForm):
    """Odds "N to 1" per category; an empty not-qualified cell means the raise pushes."""

    name = forms.CharField(max_length=200, label=_("Name"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for category in CATEGORIES:
            self.fields[f"q_{category.key}"] = _odds_field(True)
            self.fields[f"nq_{category.key}"] = _odds_field(False)
            self.fields[f"q_{category.key}"].label = _hand_label(gettext_noop("%(hand)s, dealer qualifies"), category)
            self.fields[f"nq_{category.key}"].label = _hand_label(
                gettext_noop("%(hand)s, dealer does not qualify"), category
            )
        if self.readonly:
            for field in self.fields.values():
                field.disabled = True

    @staticmethod
    def initial_for(paytable: PayTable) -> dict:
        initial = {"name": paytable.name}
        for category in CATEGORIES:
            initial[f"q_{category.key}"] = paytable.data.get("qualified", {}).get(category.key)
            initial[f"nq_{category.key}"] = paytable.data.get("not_qualified", {}).get(category.key)
        return initial

    def rows(self):
        return [(c, self[f"q_{c.key}"], self[f"nq_{c.key}"]) for c in CATEGORIES]

    def changes(self) -> dict:
        data = self.cleaned_data
        qualified = {c.key: data[f"q_{c.key}"] for c in CATEGORIES if data.get(f"q_{c.key}") is not None}
        not_qualified = {c.key: data[f"nq_{c.key}"] for c in CATEGORIES if data.get(f"nq_{c.key}") is not None}
        return {"name": data["name"], "qualified": qualified, "not_qualified": not_qualified}


class PoolForm(StaffForm):
    """A pool's rules; per hand either a percent of the meter or a fixed prize (or nothing)."""

    name = forms.CharField(max_length=200, label=_("Name"))
    seed_amount = MoneyField(label=_("Seed"), help_text=_("The meter's value after a reset, e.g. 10000.00."))
    bet_amount = MoneyField(label=_("Jackpot chip"), help_text=_("What the jackpot bet costs, e.g. 0.50."))
    meter_share_bp = forms.IntegerField(label=_("Share to the meter (basis points)"), help_text="7000 = 70 %.")
    reserve_share_bp = forms.IntegerField(
        label=_("Share to the reset reserve (basis points)"), help_text="1000 = 10 %."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for category in CATEGORIES:
            self.fields[f"pct_{category.key}"] = forms.IntegerField(
                required=False,
                min_value=1,
                max_value=100,
                label=_hand_label(gettext_noop("%(hand)s: percent of the meter"), category),
                widget=forms.NumberInput(attrs={"class": "odds-input", "step": 1}),
            )
            self.fields[f"fixed_{category.key}"] = MoneyField(
                required=False, label=_hand_label(gettext_noop("%(hand)s: fixed prize"), category)
            )
        if self.readonly:
            for field in self.fields.values():
                field.disabled = True

    @staticmethod
    def initial_for(pool: JackpotPool) -> dict:
        initial = {
            "name": pool.name,
            "seed_amount": pool.seed_amount,
            "bet_amount": pool.bet_amount,
            "meter_share_bp": pool.meter_share_bp,
            "reserve_share_bp": pool.reserve_share_bp,
        }
        for category in CATEGORIES:
            initial[f"pct_{category.key}"] = pool.schedule.get("percent_prizes", {}).get(category.key)
            initial[f"fixed_{category.key}"] = pool.schedule.get("fixed_prizes", {}).get(category.key)
        return initial

    def rows(self):
        return [(c, self[f"pct_{c.key}"], self[f"fixed_{c.key}"]) for c in CATEGORIES]

    def changes(self) -> dict:
        data = self.cleaned_data
        schedule = {
            "percent_prizes": {c.key: data[f"pct_{c.key}"] for c in CATEGORIES if data.get(f"pct_{c.key}") is not None},
            "fixed_prizes": {
                c.key: data[f"fixed_{c.key}"] for c in CATEGORIES if data.get(f"fixed_{c.key}") is not None
            },
        }
        fields = ("name", "seed_amount", "bet_amount", "meter_share_bp", "reserve_share_bp")
        return {field: data.get(field) for field in fields} | {"schedule": schedule}


class TopUpForm(StaffForm):
    amount = MoneyField(label=_("Amount"), help_text=_("House money added to the meter, e.g. 500.00."))
    # One key per form shown: a double submit tops up once.
    key = forms.CharField(widget=forms.HiddenInput, max_length=TOP_UP_KEY_MAX)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("initial", {"key": f"page-{uuid.uuid4().hex}"})
        super().__init__(*args, **kwargs)


class AuditFilterForm(forms.Form):
    """The audit log's filters, for the page and the API alike (all optional, NUL refused)."""

    FIELDS = ("object_type", "object_id", "action", "actor")

    object_type = forms.CharField(label=_("Object type"), max_length=150, required=False)
    object_id = forms.CharField(label=_("Object id"), max_length=150, required=False)
    action = forms.CharField(label=_("Action"), max_length=150, required=False)
    actor = forms.CharField(label=_("Who (user name)"), max_length=150, required=False)

    def filters(self) -> dict[str, str]:
        """The valid filters (an invalid one is left out), as ``audit_entries`` takes them."""
        data = getattr(self, "cleaned_data", {})
        return {name: data.get(name) or "" for name in self.FIELDS}
