"""Sign-up and sign-in. (Money is shown by ``casino.money.money`` and the ``money`` template filter.)"""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.views import LoginView
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.debug import sensitive_post_parameters

from casino import services
from casino.access import security
from casino.forms import SignInForm, SignUpForm
from casino.http.errors import ValidationError


class SignInView(LoginView):
    template_name = "registration/login.html"
    authentication_form = SignInForm
    redirect_authenticated_user = True


def _signup_limited(request):
    """Every sign-up attempt counts, per client address and per e-mail address
    (``SIGNUP_RATE_PER_IP``, ``SIGNUP_RATE_PER_EMAIL``): a 429 page once either is spent."""
    email = (request.POST.get("email") or "").strip().lower()
    try:
        waits = [
            security.rate_count(
                scope="signup-ip", ident=security.client_ip(request) or "", rate=settings.SIGNUP_RATE_PER_IP
            )
        ]
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
            messages.success(
                request,
                gettext(
                    "Welcome, %(user)s! Request a deposit on your wallet page; once the cashier completes it, take a "
                    "seat."
                )
                % {"user": user.get_username()},
            )
            return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)
