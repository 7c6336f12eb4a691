"""Sign-up, sign-in and the small presentation helpers every page view shares."""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters

from casino import security, services
from casino.errors import ValidationError
from casino.forms import SignInForm, SignUpForm
from casino.money import format_cents

CURRENCY_SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£"}


def currency_symbol() -> str:
    code = settings.CASINO_CURRENCY
    return CURRENCY_SYMBOLS.get(code, f"{code} ")


def money(cents: int | None, *, signed: bool = False) -> str:
    """``125000`` -> ``"€1,250.00"``; ``signed``: ``"+€2.00"`` / ``"−€2.00"``."""
    if cents is None:
        return ""
    units, _, fraction = format_cents(abs(int(cents))).partition(".")
    text = f"{currency_symbol()}{int(units):,}.{fraction}"
    if cents < 0:
        return f"\u2212{text}"
    return f"+{text}" if signed and cents > 0 else text


def cents_of(amount: str | None) -> int:
    """A decimal string from a selector (``"12.50"``, ``"-1.05"``) as cents, exactly (no float)."""
    if not amount:
        return 0
    text = amount.strip()
    negative = text.startswith("-")
    units, _, fraction = text.lstrip("+-").partition(".")
    cents = int(units or "0") * 100 + int((fraction + "00")[:2])
    return -cents if negative else cents


def money_text(amount: str | None, *, signed: bool = False) -> str:
    """``money`` for a decimal string from a selector: ``"10000.00"`` -> ``"€10,000.00"``."""
    if amount is None:
        return ""
    return money(cents_of(amount), signed=signed)


class SignInView(LoginView):
    template_name = "registration/login.html"
    authentication_form = SignInForm
    redirect_authenticated_user = True


def _signup_limited(request):
    """Every sign-up attempt counts, per client address and per e-mail address
    (``SIGNUP_RATE_PER_IP``, ``SIGNUP_RATE_PER_EMAIL``): a 429 page once either is spent."""
    email = (request.POST.get("email") or "").strip().lower()
    try:
        waits = [security.rate_count(scope="signup-ip", ident=security.client_ip(request) or "", rate=settings.SIGNUP_RATE_PER_IP)]
        if email:
            waits.append(security.rate_count(scope="signup-email", ident=email, rate=settings.SIGNUP_RATE_PER_EMAIL))
    except security.CacheUnavailable as error:
        response = render(request, "registration/signup_limited.html", {"message": error.message}, status=503)
        response["Retry-After"] = str(error.retry_after)
        return response
    wait = max((w for w in waits if w is not None), default=None)
    if wait is None:
        return None
    minutes = max(1, math.ceil(wait / 60))
    message = f"Too many sign-ups from here or for this e-mail address. Try again in {minutes} minutes."
    response = render(request, "registration/signup_limited.html", {"message": message}, status=429)
    response["Retry-After"] = str(math.ceil(wait))
    return response


@sensitive_post_parameters("password1", "password2")
def signup(request):
    """Sign up as a player, then play: the new player is signed in and sent to the lobby."""
    if request.user.is_authenticated:
        return redirect(settings.LOGIN_REDIRECT_URL)
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        refused = _signup_limited(request)
        if refused is not None:
            return refused
    if request.method == "POST" and form.is_valid():
        try:
            user = services.player_signup(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                email=form.cleaned_data["email"],
            )
        except ValidationError as error:
            field = SignUpForm.SERVICE_FIELDS.get(error.extra.get("field"))
            for message in error.extra.get("messages") or [error.message]:
                form.add_error(field, message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.get_username()}! Request a deposit on your wallet page; once the cashier completes it, take a seat.")
            return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)
