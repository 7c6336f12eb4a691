"""Forms of the player pages. They check the shape of the input; the rules are in services."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class SignInForm(AuthenticationForm):
    """Django's sign-in form with the autocomplete hints password managers need."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].label = _("User name")
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autocapitalize": "none"})
        self.fields["password"].widget.attrs.update({"autocomplete": "current-password"})


class SignUpForm(forms.Form):
    username = forms.CharField(
        label=_("User name"),
        max_length=150,
        help_text=_("Letters, digits and @ . + - _ only. Other players see it at the table."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none", "autofocus": True}),
    )
    email = forms.EmailField(
        label=_("Email address"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        help_text=_("At least 8 characters; not too common, not only digits, not like your name."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    # The service names the field it refuses; the form shows the message beside it.
    SERVICE_FIELDS = {"username": "username", "email": "email", "password": "password1"}

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password2") and data["password1"] != data["password2"]:
            self.add_error("password2", gettext("The two passwords differ."))
        return data
