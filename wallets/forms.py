"""Forms of the money pages: the player's protection page and the cashier's desk.

They check the shape of what was typed (an amount through ``casino.money.to_cents``, a
whole number as plain ASCII digits, a choice among the offered ones) and show every
refusal beside its field; the rules themselves (limits, thresholds, four-eyes) are the
services'. A service's refusal is shown on the form too (``add_service_error``).
"""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from casino.cents import format_cents
from casino.http.errors import ApplicationError
from casino.money import to_cents
from wallets import responsible
from wallets.models import FORM_KEY_MAX, CashRequest, GamingLimit

_PLAIN_INTEGER = re.compile(r"[0-9]{1,9}", re.ASCII)


class MoneyField(forms.CharField):
    """An amount typed as ``12.50``, cleaned to int cents by the one parser (``to_cents``).

    Nothing is stripped or normalised first: ``" 5"`` is as wrong here as in the API.
    """

    def __init__(self, *, allow_zero: bool = False, **kwargs):
        self.allow_zero = allow_zero
        kwargs.setdefault("max_length", 20)
        kwargs.setdefault("strip", False)
        kwargs.setdefault(
            "widget",
            forms.TextInput(
                attrs={"inputmode": "decimal", "pattern": r"[0-9]+([.][0-9]{1,2})?", "class": "money-input"}
            ),
        )
        super().__init__(**kwargs)

    def prepare_value(self, value):
        return format_cents(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def to_python(self, value):
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return to_cents(text, field="amount", allow_zero=self.allow_zero)
        except ApplicationError as error:
            raise forms.ValidationError(error.message, code=error.code) from None

    def validate(self, value):
        if value is None and self.required:
            raise forms.ValidationError(self.error_messages["required"], code="required")

    def run_validators(self, value):
        """``max_length`` applies to the text, which ``to_python`` already checked."""


class PlainIntegerField(forms.IntegerField):
    """A whole number written in ASCII digits only (Django's own accepts ``"٥"`` and ``" 5 "``)."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if not isinstance(value, str) or _PLAIN_INTEGER.fullmatch(value) is None:
            raise forms.ValidationError(gettext("Enter a whole number in digits."), code="invalid")
        return int(value)


class ServiceErrorsForm(forms.Form):
    """Shows a service's refusal beside the field it names, or above the form."""

    def add_service_error(self, error: ApplicationError) -> None:
        field = error.extra.get("field")
        problem = forms.ValidationError(error.message, code=error.code)
        self.add_error(field if field in self.fields else None, problem)


# --- the player's protection page -------------------------------------------------------


class LimitForm(ServiceErrorsForm):
    action = forms.CharField(widget=forms.HiddenInput, initial="limit")
    kind = forms.ChoiceField(label=_("Limit on"), choices=GamingLimit.Kind.choices)
    period = forms.ChoiceField(label=_("Period"), choices=GamingLimit.Period.choices)
    amount = MoneyField(
        label=_("Amount in € (empty: no limit)"), required=False, allow_zero=True, help_text=_("For example 100.00.")
    )


def _reality_check_choices() -> list[tuple[str, str]]:
    """The reminder's intervals, worded in the reader's language each time the form is drawn."""
    return [("", gettext("Never"))] + [
        (str(m), ngettext("%(count)s minute", "%(count)s minutes", m) % {"count": m})
        for m in responsible.REALITY_CHECK_MINUTES
    ]


class RealityCheckForm(ServiceErrorsForm):
    action = forms.CharField(widget=forms.HiddenInput, initial="reality")
    minutes = forms.TypedChoiceField(
        label=_("Remind me every"),
        choices=_reality_check_choices,
        coerce=int,
        empty_value=None,
        required=False,
    )


class ExclusionForm(ServiceErrorsForm):
    action = forms.CharField(widget=forms.HiddenInput, initial="exclude")
    months = PlainIntegerField(
        label=_("Months"),
        min_value=responsible.MIN_EXCLUSION_MONTHS,
        max_value=120,
        initial=responsible.MIN_EXCLUSION_MONTHS,
    )
    confirm = forms.BooleanField(
        label=_("I understand this cannot be undone"),
        error_messages={"required": _("Tick the box to confirm; a self-exclusion cannot be undone.")},
    )


RESPONSIBLE_FORMS = {"limit": LimitForm, "reality": RealityCheckForm, "exclude": ExclusionForm}


# --- the player's deposit request ------------------------------------------------------


class DepositRequestForm(ServiceErrorsForm):
    """How much the player asks to deposit; ``key`` is drawn with the page (a double submit asks once)."""

    key = forms.CharField(max_length=FORM_KEY_MAX, widget=forms.HiddenInput)
    amount = MoneyField(label=_("Amount in €"), help_text=_("For example 50 or 50.00."))


class DepositRejectForm(ServiceErrorsForm):
    reason = forms.CharField(label=_("Reason to reject"), max_length=200)


class ConfirmForm(forms.Form):
    """The second step of an approval: the staff member saw the amount and the balance."""

    confirm = forms.CharField(widget=forms.HiddenInput, initial="yes")


# --- the cashier's desk -----------------------------------------------------------------


class PlayerSearchForm(forms.Form):
    q = forms.CharField(label=_("Find a player (name, e-mail or number)"), max_length=100, required=False)


class MovementForm(ServiceErrorsForm):
    """A deposit or a withdrawal; ``key`` is the idempotency key drawn with the page."""

    kind = forms.ChoiceField(choices=CashRequest.Kind.choices, widget=forms.HiddenInput)
    key = forms.CharField(max_length=FORM_KEY_MAX, required=False, widget=forms.HiddenInput)
    amount = MoneyField(label=_("Amount in €"))
    memo = forms.CharField(
        label=_("Note"), max_length=200, required=False, help_text=_("Optional; the player's statement shows it.")
    )


class ReversalForm(ServiceErrorsForm):
    transaction = PlainIntegerField(min_value=1, widget=forms.HiddenInput)
    key = forms.CharField(max_length=FORM_KEY_MAX, required=False, widget=forms.HiddenInput)
    reason = forms.CharField(label=_("Reason"), max_length=200, help_text=_("The player's statement shows it."))


class DecisionForm(ServiceErrorsForm):
    decision = forms.ChoiceField(choices=[("approve", _("Approve")), ("reject", _("Reject"))])
    reason = forms.CharField(label=_("Reason to reject"), max_length=200, required=False)

    def clean(self):
        data = super().clean()
        if data.get("decision") == "reject" and not (data.get("reason") or "").strip():
            self.add_error(
                "reason", forms.ValidationError(gettext("Say why the request is rejected."), code="reason_required")
            )
        return data


class ReportForm(forms.Form):
    date = forms.DateField(
        label=_("Day"), required=False, widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"})
    )
