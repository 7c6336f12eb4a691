"""Manager pages of the poker room: the poker tables, a new table from a
SPEC B1 preset with its rake rule, opening and closing a table.

Guarded by the one policy (``casino.access.policy``): reading needs ``config.read`` (managers,
auditors), every POST ``config.change`` (managers). Thin: a form parses, one
``poker.services`` call acts, refusals come back as the service's message and change
nothing.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from casino.access.policy import allowed_for
from casino.cents import format_cents
from casino.http.errors import ApplicationError, ValidationError
from casino.money import decimal_comma, money, to_cents
from casino.stud.games import GAMES, PRESETS, RakeRule
from poker import replay, selectors, services
from poker.models import GAME_LABELS, PokerTable

manager_pages = allowed_for(
    "config.read",
    unsafe="config.change",
    message=_("This page is for managers and auditors."),
    unsafe_message=_("Only a manager may change the poker tables."),
)
DEFAULT_RAKE = RakeRule()


def _preset_choices() -> list[tuple[str, str]]:
    return [(key, f"{GAME_LABELS[key.split('/')[0]]} {key.split('/')[1]}") for key in PRESETS]


class PokerTableForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    preset = forms.ChoiceField(
        choices=_preset_choices, label=_("Preset"), help_text=_("A standard table of SPEC B1: game and stakes.")
    )
    max_seats = forms.IntegerField(label=_("Seats"), min_value=2, max_value=8, initial=8)
    rake_percent = forms.CharField(
        label=_("Rake percent"),
        initial=str(DEFAULT_RAKE.percent),
        help_text=_("Percent of the whole pot, rounded down to the cent."),
    )
    rake_cap = forms.CharField(
        label=_("Rake cap"), initial=format_cents(DEFAULT_RAKE.cap), help_text=_("At most this much a hand.")
    )
    rake_first_round = forms.BooleanField(
        label=_("Rake in the first betting round"),
        required=False,
        help_text=_("Also rake a hand that ends in the first betting round."),
    )

    def clean_rake_percent(self) -> str:
        text = self.cleaned_data["rake_percent"].strip()
        if decimal_comma():  # German writes 4,5
            text = text.replace(",", ".")
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise forms.ValidationError(gettext("A percent such as 5 or 4.5.")) from None
        if not value.is_finite() or not 0 <= value <= 100:
            raise forms.ValidationError(gettext("A percent from 0 to 100."))
        return text

    def clean_rake_cap(self) -> int:
        try:
            return to_cents(self.cleaned_data["rake_cap"].strip(), field="rake cap", allow_zero=True)
        except ValidationError as error:
            raise forms.ValidationError(error.message) from None


@manager_pages
def poker_tables(request):
    form = PokerTableForm()
    return _page(request, form)


def _page(request, form, status: int = 200):
    rows = selectors.poker_lobby_rows()
    for row in rows:
        table = PokerTable.objects.get(pk=row["id"])
        rule = table.config.get("rake_rule") or {}
        words = {"percent": rule.get("percent", "0"), "cap": money(rule.get("cap", "0.00"))}
        if decimal_comma():
            words["percent"] = str(words["percent"]).replace(".", ",")
        if rule.get("no_first_round", True):
            row["rake_text"] = gettext("%(percent)s %%, at most %(cap)s") % words
        else:
            row["rake_text"] = gettext("%(percent)s %%, at most %(cap)s, the first round too") % words
        row["preset"] = table.preset or gettext("custom")
    return render(request, "poker/staff_tables.html", {"rows": rows, "form": form, "games": GAMES}, status=status)


@manager_pages
@require_POST
def poker_table_new(request):
    form = PokerTableForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    data = form.cleaned_data
    game, preset = data["preset"].split("/", 1)
    rake = {
        "percent": data["rake_percent"],
        "cap": format_cents(data["rake_cap"]),
        "no_first_round": not data["rake_first_round"],
    }
    try:
        default_rake = (
            Decimal(data["rake_percent"]) == DEFAULT_RAKE.percent
            and data["rake_cap"] == DEFAULT_RAKE.cap
            and rake["no_first_round"] == DEFAULT_RAKE.no_first_round
        )
        if default_rake:
            table = services.poker_table_create(
                name=data["name"], game=game, preset=preset, max_seats=data["max_seats"], actor=request.user
            )
        else:
            config = replay.config_to_json(PRESETS[data["preset"]]) | {"rake_rule": rake}
            table = services.poker_table_create(
                name=data["name"], game=game, config=config, max_seats=data["max_seats"], actor=request.user
            )
    except ApplicationError as error:
        form.add_error(None, error.message)
        return _page(request, form, status=400)
    messages.success(request, gettext("Poker table %(name)s is open.") % {"name": table.name})
    return redirect("poker-staff-tables")


@manager_pages
@require_POST
def poker_table_state(request, table_id: int):
    action = request.POST.get("state")
    try:
        if action == "open":
            services.poker_table_open(actor=request.user, table_id=table_id)
        elif action == "close":
            services.poker_table_close(actor=request.user, table_id=table_id)
        else:
            raise ValidationError("Open or close.", code="state_invalid")
    except PokerTable.DoesNotExist:
        messages.error(request, gettext("No such table."))
    except ApplicationError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            gettext("The table is open.") if action == "open" else gettext("The table is closed: no new hand starts."),
        )
    return redirect("poker-staff-tables")
