"""The auditors' input: ledger filters, export requests, searches, report ranges.

The same forms parse the pages' query strings and the API's, so both read the filters
one way; ``filters()`` turns a valid form into ``wallets.selectors.LedgerFilters``.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from backoffice.auditor.selectors import player_find
from backoffice.exports import LEDGER_FORMATS, POKER_FORMATS
from backoffice.models import ExportJob
from casino.keyset import page_cursors
from poker.audit import PokerHandFilters
from poker.models import PokerHand, PokerTable
from tables.models import Table
from wallets.models import Transaction
from wallets.selectors import LedgerFilters


class DateInput(forms.DateInput):
    input_type = "date"


GAME_REQUIRED = _("Say which game the table or hand is of (caribbean or poker): the two games number theirs apart.")
LEDGER_BOTH_CURSORS = gettext_noop("A page is read before one transaction or after one, not both.")
TABLES = {Transaction.Game.CARIBBEAN: Table, Transaction.Game.POKER: PokerTable}


class LedgerFilterForm(forms.Form):
    date_from = forms.DateField(required=False, label=_("From"), widget=DateInput, help_text=_("First day, inclusive."))
    date_to = forms.DateField(required=False, label=_("To"), widget=DateInput, help_text=_("Last day, inclusive."))
    player = forms.CharField(required=False, max_length=150, label=_("Player"), help_text=_("Username or id."))
    game = forms.ChoiceField(
        required=False,
        choices=[("", _("Any game")), *Transaction.Game.choices],
        label=_("Game"),
        help_text=_("Whose table and hand: the two games number theirs apart."),
    )
    table = forms.IntegerField(
        required=False, min_value=1, label=_("Table"), help_text=_("The table's number in its game.")
    )
    hand = forms.IntegerField(required=False, min_value=1, label=_("Hand"))
    kind = forms.ChoiceField(
        required=False, choices=[("", _("Any kind")), *Transaction.Kind.choices], label=_("Kind of transaction")
    )

    def clean_player(self):
        text = self.cleaned_data.get("player", "").strip()
        if not text:
            return None
        player = player_find(text=text)
        if player is None:
            raise forms.ValidationError(gettext("No player with this username or id."), code="player_not_found")
        return player

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_from"] > data["date_to"]:
            self.add_error(
                "date_to", forms.ValidationError(gettext("The last day comes before the first."), code="dates_reversed")
            )
        game, table = data.get("game"), data.get("table")
        if (table or data.get("hand")) and not game and "game" not in self.errors:
            self.add_error("game", forms.ValidationError(GAME_REQUIRED, code="game_required"))
        elif table and game and not TABLES[game].objects.filter(pk=table).exists():
            label = Transaction.Game(game).label
            self.add_error(
                "table",
                forms.ValidationError(
                    _("No %(game)s table %(table)s.") % {"game": label, "table": table}, code="table_not_found"
                ),
            )
        return data

    def filters(self) -> LedgerFilters:
        data = self.cleaned_data
        return LedgerFilters(
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            player=data.get("player"),
            game=data.get("game") or None,
            table_id=data.get("table"),
            hand_id=data.get("hand"),
            kind=data.get("kind") or None,
        )

    def query_string(self) -> str:
        """The valid filters as a query string, for links that keep them (pages, exports)."""
        from urllib.parse import urlencode

        data = self.cleaned_data
        pairs = []
        for name in ("date_from", "date_to"):
            if data.get(name):
                pairs.append((name, data[name].isoformat()))
        if data.get("player"):
            pairs.append(("player", data["player"].get_username()))
        if data.get("game"):
            pairs.append(("game", data["game"]))
        if data.get("table"):
            pairs.append(("table", data["table"]))
        if data.get("hand"):
            pairs.append(("hand", data["hand"]))
        if data.get("kind"):
            pairs.append(("kind", data["kind"]))
        return urlencode(pairs)


LEDGER_FORMAT_CHOICES = [(value, label) for value, label in ExportJob.Format.choices if value in LEDGER_FORMATS]
POKER_FORMAT_CHOICES = [(value, label) for value, label in ExportJob.Format.choices if value in POKER_FORMATS]


class ExportRequestForm(LedgerFilterForm):
    format = forms.ChoiceField(label=_("Format"), choices=LEDGER_FORMAT_CHOICES, initial=ExportJob.Format.CSV)


class PlayerSearchForm(forms.Form):
    q = forms.CharField(required=False, max_length=150, label=_("Player"), help_text=_("Part of a username, or an id."))


class HandLookupForm(forms.Form):
    hand = forms.IntegerField(min_value=1, label=_("Hand number"))


class ReportForm(forms.Form):
    date_from = forms.DateField(required=False, label=_("From"), widget=DateInput)
    date_to = forms.DateField(required=False, label=_("To"), widget=DateInput)
    table = forms.ModelChoiceField(
        queryset=Table.objects.order_by("name"), required=False, label=_("Table"), empty_label=_("All tables")
    )

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_from"] > data["date_to"]:
            self.add_error(
                "date_to", forms.ValidationError(gettext("The last day comes before the first."), code="dates_reversed")
            )
        return data


class _DayRangeForm(forms.Form):
    date_from = forms.DateField(required=False, label=_("From"), widget=DateInput, help_text=_("First day, inclusive."))
    date_to = forms.DateField(required=False, label=_("To"), widget=DateInput, help_text=_("Last day, inclusive."))
    table = forms.ModelChoiceField(
        queryset=PokerTable.objects.order_by("name"),
        required=False,
        label=_("Table"),
        empty_label=_("All poker tables"),
    )

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_from"] > data["date_to"]:
            self.add_error(
                "date_to", forms.ValidationError(gettext("The last day comes before the first."), code="dates_reversed")
            )
        return data

    def filters(self) -> PokerHandFilters:
        data = self.cleaned_data
        return PokerHandFilters(
            table_id=data["table"].pk if data.get("table") else None,
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
        )

    def query_string(self) -> str:
        from urllib.parse import urlencode

        data = self.cleaned_data
        pairs = [(name, data[name].isoformat()) for name in ("date_from", "date_to") if data.get(name)]
        if data.get("table"):
            pairs.append(("table", data["table"].pk))
        return urlencode(pairs)


class PokerHandFilterForm(_DayRangeForm):
    """The poker hands list and its exports: a poker table and a range of days."""

    state = forms.ChoiceField(
        required=False, choices=[("", _("Any state")), *PokerHand.State.choices], label=_("State")
    )


class PokerExportRequestForm(_DayRangeForm):
    """A file export of the poker hand records: the list's filters and a format."""

    format = forms.ChoiceField(label=_("Format"), choices=POKER_FORMAT_CHOICES, initial=ExportJob.Format.JSONL)


class PokerRakeForm(_DayRangeForm):
    """The rake report's range (every day when empty: the totals are then the rake accounts' balances)."""


def form_errors(form: forms.Form) -> dict:
    """A form's errors as ``{field: [message, …]}`` for the API's ``extra``."""
    return {field: [e["message"] for e in errors] for field, errors in form.errors.get_json_data().items()}


def ledger_cursors(params) -> tuple[int | None, int | None]:
    """The ledger page's cursor (``casino.keyset.page_cursors``): ``before`` (the page
    older than that transaction) or ``after`` (the page newer than it), at most one (both:
    ``invalid_page``); a value that is no id, or one given twice, is ``before_invalid`` /
    ``after_invalid``. An offset other than 0 is refused (``offset_not_supported``; a
    malformed one stays ``offset_invalid``), because an offset page reads every row above it."""
    from casino.http.errors import ValidationError
    from casino.http.validation import parse_int

    raw_offset = params.get("offset")
    if raw_offset not in (None, "") and parse_int(raw_offset, field="offset", minimum=0, maximum=2**62):
        raise ValidationError(
            "The ledger pages by cursor: follow the page's next and previous links (before=, after=), not an offset.",
            code="offset_not_supported",
            extra={"field": "offset"},
        )
    return page_cursors(params, both=LEDGER_BOTH_CURSORS)
