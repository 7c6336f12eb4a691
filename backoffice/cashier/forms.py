"""The cashier's page forms that are the desk's own (the money forms the player pages share
are in ``wallets.forms``)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class DepositCompleteForm(forms.Form):
    """Completing a player's deposit request: the payment's reference, if the cashier has one."""

    reference = forms.CharField(
        label=_("Payment reference"),
        max_length=100,
        required=False,
        strip=True,
        help_text=_("Optional: the transfer's or the payment provider's reference. The player's statement shows it."),
    )
