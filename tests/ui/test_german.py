"""The product in German: every page of every role, the API's messages, the language
switcher and the kept choice, money and dates as a German reader writes them, and the
PokerStars text that trackers read, which stays English."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import translation

from casino.access.roles import AUDITOR, CASHIER, MANAGER, PLAYER
from casino.http.errors import ValidationError
from casino.models import Preference
from casino.money import money, to_cents
from poker.models import PokerHand
from tests.factories import PASSWORD
from tests.poker.helpers import play_out, seats_of
from wallets import services as wallet_services
from wallets.models import CashRequest, LimitTier, Transaction

pytestmark = pytest.mark.django_db

GERMAN = {"HTTP_ACCEPT_LANGUAGE": "de"}
SKIPPED_PREFIXES = ("/api", "/admin/", "/api-auth/", "/i18n/", "/static/")
# Markup a person does not read as prose: scripts' data, code samples, the hash values.
SKIPPED_TAGS = {"script", "style", "code", "pre", "template"}
READ_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "data-label")  # data-label: a cell's heading on a phone


def _po_entries(path: Path) -> list[tuple[str, str]]:
    """(msgid, msgstr) of a catalog's singular messages, read with the gettext format's rules."""
    import ast

    entries, field, current = [], None, {}
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if current.get("msgid") and "msgid_plural" not in current:
                entries.append((current["msgid"], current.get("msgstr", "")))
            current, field = {}, None
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            current[field] += ast.literal_eval(line)
        else:
            field, _, value = line.partition(" ")
            current[field] = ast.literal_eval(value)
    return entries


def _english_that_german_changes() -> list[re.Pattern]:
    """Each English message whose German differs, as a pattern of a whole text (its
    placeholders match anything): found on a German page, it was left untranslated."""
    patterns = []
    entries = _po_entries(Path(settings.BASE_DIR) / "locale" / "de" / "LC_MESSAGES" / "django.po")
    german = {msgstr for _msgid, msgstr in entries}  # "Filter" is the German of "Filters": not English left over
    for msgid, msgstr in entries:
        if msgid in german:
            continue
        literal = re.sub(r"%\(\w+\)s", " ", msgid)
        if not msgstr or msgstr == msgid or len(re.findall(r"[A-Za-z]{3,}", literal)) < 2 and "%(" in msgid:
            continue
        if len(msgid) < 4 or not re.search(r"[a-z]{3}", msgid):
            continue
        text = " ".join(msgid.replace("%%", "%").split())
        parts = re.split(r"%\(\w+\)s", text)
        patterns.append(re.compile(r".+?".join(re.escape(part) for part in parts)))
    return patterns


def _spaced(text: str) -> str:
    """Runs of white space as one space (the no-break space of ``12,50 €`` kept)."""
    return re.sub(r"[ \t\n\r\f\v]+", " ", text).strip()


class _Reader(HTMLParser):
    """The texts a person reads on a page: text nodes and the read attributes; not what a
    page marks ``translate="no"`` (a record's own words, as the ledger keeps its memos)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self._skip = 0
        self._kept: list = []  # [tag, depth] of the element marked translate="no" being read

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED_TAGS:
            self._skip += 1
        if self._kept and self._kept[0] == tag:
            self._kept[1] += 1
        elif not self._kept and ("translate", "no") in attrs:
            self._kept = [tag, 1]
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self.texts.append(_spaced(value))

    def handle_endtag(self, tag):
        if tag in SKIPPED_TAGS and self._skip:
            self._skip -= 1
        if self._kept and self._kept[0] == tag:
            self._kept[1] -= 1
            if not self._kept[1]:
                self._kept = []

    def handle_data(self, data):
        text = _spaced(data)
        if text and not self._skip and not self._kept:
            self.texts.append(text)


def _without(text: str, names: set[str]) -> str:
    for name in names:
        text = text.replace(name, "")
    return text


def read_texts(html: str) -> list[str]:
    reader = _Reader()
    reader.feed(html)
    return reader.texts


def untranslated(html: str, patterns: list[re.Pattern]) -> list[str]:
    return sorted({text for text in read_texts(html) for pattern in patterns if pattern.fullmatch(text)})


def _page_routes() -> list[tuple[str, list[str]]]:
    """Every named page route outside the API and the admin: (name, its arguments)."""
    routes = []

    def walk(patterns, prefix=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern) and entry.name:
                path = "/" + prefix + str(entry.pattern)
                if not path.startswith(SKIPPED_PREFIXES):
                    routes.append((entry.name, list(entry.pattern.converters)))

    walk(get_resolver().url_patterns)
    return routes


@pytest.fixture
def everything(table, make_player, play_hand, pool, cashier, auditor):
    """One of everything a page names: Caribbean and poker hands played to their end, a
    player with a deposit request and a movement waiting for approval, a finished export."""
    from backoffice import exports
    from backoffice.models import ExportJob
    from poker.services import poker_sit
    from tests.factories import PokerTableFactory
    from wallets.selectors import LedgerFilters

    player = make_player(500_000, "anna")
    other = make_player(500_000, "bernd")
    hand = play_hand([(player, 1_000, True, "raise"), (other, 100, False, "fold")])
    poker_table = PokerTableFactory(game="seven_stud", preset="2-4")
    for user in (player, other):
        poker_sit(user=user, table_id=poker_table.pk)
    poker_hand = PokerHand.objects.get(table=poker_table, state="live")
    play_out(poker_hand, seats_of(poker_hand, [player, other]))
    deposit = wallet_services.deposit_request_create(player=player, amount=2_500, idempotency_key="de-1")
    waiting = wallet_services.cash_request_create(
        cashier=cashier, player=player, kind=CashRequest.Kind.DEPOSIT, amount=900_000, idempotency_key="de-big"
    )
    assert waiting.status == CashRequest.Status.PENDING
    job = ExportJob.objects.create(
        format="csv", mode="file", filters=LedgerFilters().describe(), ledger_upto=10**9, requested_by=auditor
    )
    exports.export_file_run(job_id=job.pk)
    movement = Transaction.objects.filter(kind=Transaction.Kind.DEPOSIT, legs__account__owner=player).first()
    return {
        "player": player,
        "table": table,
        "hand": hand,
        "poker_table": poker_table,
        "poker_hand": PokerHand.objects.get(pk=poker_hand.pk),
        "deposit": deposit,
        "waiting": waiting,
        "job": job,
        "pool": pool,
        "movement": movement,
    }


def _args(name: str, params: list[str], objects: dict) -> list[int]:
    poker = name.startswith("poker") or "poker" in name
    values = {
        "table_id": objects["poker_table" if poker else "table"].pk,
        "hand_id": objects["poker_hand" if poker else "hand"].pk,
        "player_id": objects["player"].pk,
        "user_id": objects["player"].pk,
        "deposit_id": objects["deposit"].pk,
        "request_id": objects["waiting"].pk,
        "transaction_id": objects["movement"].pk,
        "job_id": objects["job"].pk,
        "pool_id": objects["pool"].pk,
        "tier_id": objects["table"].tier_id,
        "paytable_id": objects["table"].paytable_id,
    }
    unknown = [p for p in params if p not in values]
    assert not unknown, f"{name}: no object for {unknown}; add one to the fixture"
    return [values[p] for p in params]


@pytest.mark.parametrize("role", [PLAYER, CASHIER, MANAGER, AUDITOR])
def test_every_page_of_every_role_reads_german(role, everything, make_user, browser, auditor, cashier):
    people = {PLAYER: everything["player"], CASHIER: cashier, AUDITOR: auditor, MANAGER: make_user(MANAGER)}
    client = browser(people[role])
    patterns = _english_that_german_changes()
    assert len(patterns) > 800, "the German catalog is read"
    read, problems, money_pages = [], {}, 0
    data_names = {tier.name for tier in LimitTier.objects.all()}  # what staff named things (a tier "€0.50 – €10")
    for name, params in _page_routes():
        url = reverse(name, args=_args(name, params, everything))
        response = client.get(url, **GERMAN)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        html = response.content.decode()
        read.append(name)
        assert '<html lang="de">' in html, name
        left = untranslated(html, patterns)
        if left:
            problems[name] = left
        mine = [_without(text, data_names) for text in read_texts(html)]
        texts = " ".join(mine)
        english_money = [text for text in mine if re.search(r"€\s?\d", text)]
        if english_money:
            problems.setdefault(name, []).extend(english_money)
        if re.search(r"\d,\d\d\u00a0€", texts):
            money_pages += 1
        english_dates = re.findall(r"\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) 20\d\d\b", texts)
        if english_dates:
            problems.setdefault(name, []).extend(english_dates)
    assert len(read) >= {PLAYER: 8, CASHIER: 5, MANAGER: 8, AUDITOR: 15}[role], read
    assert money_pages >= 3, f"German money on {money_pages} pages of {read}"
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_money_numbers_and_dates_follow_the_language():
    assert money(123_450) == "€1,234.50" and money(-5, signed=True) == "\u2212€0.05"
    with translation.override("de"):
        assert money(123_450) == "1.234,50\u00a0€"
        assert money(200, signed=True) == "+2,00\u00a0€" and money(-105) == "\u22121,05\u00a0€"
        from datetime import datetime, timezone

        from django.utils.formats import date_format

        when = datetime(2026, 12, 4, 17, 30, tzinfo=timezone.utc)
        assert date_format(when, "SHORT_DATETIME_FORMAT") == "04.12.2026 17:30"


def test_german_amounts_take_the_decimal_comma_and_refuse_what_is_ambiguous():
    with translation.override("de"):
        assert to_cents("12,50") == 1250 and to_cents("12.50") == 1250 and to_cents("7") == 700
        for bad in ("1.234,50", "1,000", "1,2,3", "12,", ",5", "1 000", "12,505"):
            with pytest.raises(ValidationError) as refused:
                to_cents(bad)
            assert refused.value.code == "amount_invalid", bad
            assert "12,50" in refused.value.message and "Betrag" in refused.value.message
        with pytest.raises(ValidationError) as zero:
            to_cents("0,00")
        assert zero.value.code == "amount_not_positive"
    with pytest.raises(ValidationError) as english:
        to_cents("12,50")
    assert english.value.code == "amount_invalid" and '"12.50"' in english.value.message


def test_the_api_answers_in_the_requesters_language_with_the_same_code(api, make_player, table):
    player = make_player(10_000)
    url = reverse("api-table-bet", args=[table.pk])
    english = api(player).post(url, {"ante": "1,2,3", "jackpot": False}, format="json", HTTP_IDEMPOTENCY_KEY="a1")
    german = api(player).post(
        url, {"ante": "1,2,3", "jackpot": False}, format="json", HTTP_IDEMPOTENCY_KEY="a2", **GERMAN
    )
    assert english.status_code == german.status_code == 400
    assert english.json()["code"] == german.json()["code"] == "amount_invalid"
    assert english.json()["extra"] == german.json()["extra"]
    assert "must be an amount" in english.json()["message"]
    assert "muss ein Betrag" in german.json()["message"]
    # a refusal raised with details (its code's general message in German)
    missing = api(player).get(reverse("api-hand", args=[987654]), **GERMAN)
    assert missing.status_code == 404 and missing.json()["code"] in ("hand_not_found", "not_found")
    assert missing.json()["message"] in ("Keine solche Hand.", "Nicht gefunden.")


def test_the_openapi_schema_stays_english(api):
    english = api().get(reverse("schema"), HTTP_ACCEPT="application/json").content
    german = api().get(reverse("schema"), HTTP_ACCEPT="application/json", **GERMAN).content
    assert english == german


def test_the_switcher_on_every_page_sets_the_language_and_a_signed_in_choice_is_kept(browser, make_player, cashier):
    player = make_player()
    client = browser(player)
    lobby = client.get("/").content.decode()
    assert 'action="/i18n/language/"' in lobby and 'value="de"' in lobby and "Deutsch" in lobby
    staff = browser(cashier).get(reverse("staff-cashier")).content.decode()
    assert 'action="/i18n/language/"' in staff
    response = client.post("/i18n/language/", {"language": "de", "next": "/wallet/"})
    assert response.status_code == 302 and response["Location"] == "/wallet/"
    assert Preference.objects.get(user=player).language == "de"
    assert '<html lang="de">' in client.get("/wallet/").content.decode()
    # another browser: the sign-in brings the kept choice, whatever the browser asks for
    fresh = browser()
    fresh.post(reverse("login"), {"username": player.username, "password": PASSWORD})
    page = fresh.get("/wallet/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="de">' in page and "Guthaben" in page
    # and back to English
    fresh.post("/i18n/language/", {"language": "en", "next": "/"})
    assert '<html lang="en">' in fresh.get("/wallet/", **GERMAN).content.decode()
    assert Preference.objects.get(user=player).language == "en"


def test_an_anonymous_visitor_reads_the_language_their_browser_asks_for(browser):
    assert "Anmelden" in browser().get(reverse("login"), **GERMAN).content.decode()
    assert "Sign in" in browser().get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    patterns = _english_that_german_changes()
    for name in ("login", "signup"):
        html = browser().get(reverse(name), **GERMAN).content.decode()
        assert '<html lang="de">' in html, name
        assert untranslated(html, patterns) == [], name


def test_the_pokerstars_text_stays_english_in_german(everything, browser, auditor):
    hand = everything["poker_hand"]
    player = everything["player"]
    english = browser(auditor).get(reverse("staff-auditor-poker-hand-text", args=[hand.pk]))
    german = browser(auditor).get(reverse("staff-auditor-poker-hand-text", args=[hand.pk]), **GERMAN)
    assert english.status_code == german.status_code == 200
    assert english.content == german.content
    text = german.content.decode()
    assert text.startswith("PokerStars") and "*** 3rd STREET ***" in text and "Gesetzt" not in text
    own = browser(player).get(reverse("poker-hand-pokerstars", args=[hand.pk]))
    assert own.content == browser(player).get(reverse("poker-hand-pokerstars", args=[hand.pk]), **GERMAN).content
    assert re.search(r"€\d+\.\d\d", text) and not re.search(r"\d,\d\d\u00a0€", text)


def test_the_hand_pages_and_the_fair_check_speak_german(everything, browser):
    player = everything["player"]
    caribbean = browser(player).get(reverse("hand-detail", args=[everything["hand"].pk]), **GERMAN).content.decode()
    assert "Fairness-Prüfung" in caribbean or "Nachweislich" in caribbean
    assert "Server-Seed" in caribbean and "Ihr Ergebnis erklärt" in caribbean
    poker = browser(player).get(reverse("poker-hand", args=[everything["poker_hand"].pk]), **GERMAN).content.decode()
    assert "Fairness-Prüfung" in poker and "Street für Street" in poker
    assert "/i18n/catalog.js" in poker  # the check's script reads its words from the German catalog


def test_a_hand_s_page_names_its_state_in_the_reader_s_language(browser, make_player, play_hand):
    player, other = make_player(), make_player()
    hand = play_hand([(player, 100, False, "fold"), (other, 100, False, "fold")])
    url = reverse("hand-detail", args=[hand.pk])
    sub = re.compile(r'<p class="table-sub">([^<·]*)')
    german = browser(player).get(url, **GERMAN).content.decode()
    assert sub.search(german).group(1).strip() == "Abgerechnet"
    english = browser(player).get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert sub.search(english).group(1).strip() == "Settled"


def test_the_deposit_box_s_sentence_ends_without_a_stray_space(browser, make_player):
    client, limits = browser(make_player()), reverse("responsible-gaming")
    german = _spaced(client.get(reverse("wallet"), **GERMAN).content.decode())
    assert f'Es gelten Ihre <a href="{limits}">Einzahlungslimits</a>.</p>' in german
    english = _spaced(client.get(reverse("wallet"), HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert f'Your <a href="{limits}">deposit limits</a> apply.</p>' in english


@pytest.mark.parametrize(
    "catalog",
    [
        "de/LC_MESSAGES/django.po",
        "de/LC_MESSAGES/djangojs.po",
        "en/LC_MESSAGES/django.po",
        "en/LC_MESSAGES/djangojs.po",
    ],
)
def test_the_catalogs_are_complete(catalog):
    import shutil
    import subprocess

    if shutil.which("msgfmt") is None:
        pytest.skip("msgfmt (GNU gettext) is not installed")
    path = Path(settings.BASE_DIR) / "locale" / catalog
    result = subprocess.run(
        ["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(path)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"\d+ translated messages\.\n", result.stderr), result.stderr  # no untranslated, no fuzzy


def _template_prose(source: str) -> list[str]:
    """What a template writes as words of its own, outside the translation tags: its text
    nodes and read attributes once the translated blocks, comments, class-name blocks
    (``{% block main_class %}``) and the template language's tags and variables are out."""
    dropped = (
        r"{%\s*blocktranslate.*?{%\s*endblocktranslate\s*%}",
        r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}",
        r"{#.*?#}",
        r"{%\s*block\s+\w+_class\s*%}.*?{%\s*endblock\s*%}",
        r"{%.*?%}",
        r"{{.*?}}",
    )
    for pattern in dropped:
        source = re.sub(pattern, " ", source, flags=re.S)
    return [text for text in read_texts(source) if re.search(r"[A-Za-z]{2,}", text)]


def test_every_template_s_words_are_marked_for_translation():
    """A template's words reach the catalogs only inside ``{% translate %}`` /
    ``{% blocktranslate %}``; a sentence written outside them reads English on every German
    page, and no catalog knows it (the page test above reads for the catalogs' English)."""
    left = {
        str(path.relative_to(settings.BASE_DIR)): prose
        for path in sorted((Path(settings.BASE_DIR) / "templates").rglob("*.html"))
        if (prose := _template_prose(path.read_text(encoding="utf-8")))
    }
    assert left == {}


def _page_forms() -> list[type]:
    """Every form class of the project's pages (the URLconf imports their views)."""
    from django import forms

    get_resolver().url_patterns  # noqa: B018 - imports every view and so every form
    found, queue = [], [forms.BaseForm]
    while queue:
        for cls in queue.pop().__subclasses__():
            queue.append(cls)
            if cls.__module__.split(".")[0] in {"casino", "tables", "wallets", "jackpot", "poker", "backoffice"}:
                found.append(cls)
    return found


def test_every_form_s_words_are_marked_for_translation():
    """A form's labels, help texts and fixed choices are lazy translations (read in the
    reader's language when the form is drawn); choices that a function words when the form
    is drawn are read in German below."""
    from django import forms
    from django.utils.functional import Promise

    classes = _page_forms()
    assert len(classes) > 20, classes
    plain = []
    for cls in classes:
        for name, field in cls.base_fields.items():
            words = [getattr(field, attr, None) for attr in ("label", "help_text", "empty_label")]
            if isinstance(field, forms.ChoiceField) and isinstance(field.choices, list):
                words += [label for _value, label in field.choices]
            plain += [
                f"{cls.__module__}.{cls.__name__}.{name}: {word!r}"
                for word in words
                if isinstance(word, str) and not isinstance(word, Promise) and re.search(r"[A-Za-z]{2}", word)
            ]
    assert plain == []


def test_every_model_choice_s_label_is_marked_for_translation():
    """A page writes a choice's label (``get_FOO_display``: a ledger leg's side, a
    verification's status) in the reader's language. Names that are the same in both
    languages stay plain: each language names itself, and the stud games are called by
    their English names in German too (docs/glossary.md)."""
    from django.apps import apps
    from django.utils.functional import Promise

    named_alike = {("casino", "preference", "language"), ("poker", "pokertable", "game")}
    plain = [
        f"{model._meta.label}.{field.name}: {label!r}"
        for model in apps.get_models()
        if model._meta.app_label in {"casino", "tables", "wallets", "jackpot", "poker", "backoffice"}
        for field in model._meta.concrete_fields
        if field.choices and (model._meta.app_label, model._meta.model_name, field.name) not in named_alike
        for _value, label in field.flatchoices
        if isinstance(label, str) and not isinstance(label, Promise) and re.search(r"[A-Za-z]{2}", label)
    ]
    assert plain == []


def test_the_reality_check_s_intervals_read_german(browser, make_player):
    page = browser(make_player(1_000)).get(reverse("responsible-gaming"), **GERMAN).content.decode()
    options = [text for text in read_texts(page) if re.fullmatch(r"Nie|Never|\d+ \w+", text)]
    assert options == ["Nie", "15 Minuten", "30 Minuten", "45 Minuten", "60 Minuten", "90 Minuten", "120 Minuten"]


def test_the_pages_scripts_read_the_german_catalog(browser):
    german = browser().get("/i18n/catalog.js", **GERMAN).content.decode()
    english = browser().get("/i18n/catalog.js", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Einsatz %(amount)s" in german and "verdeckte Karte" in german
    assert "Einsatz" not in english


def test_the_poker_buttons_read_as_a_german_poker_room_says_them(browser):
    """The poker room's action words (poker_state.js's buttons) in German: a bet is "Setzen",
    beside "Erhöhen auf", "Mitgehen", "Checken" and "Passen"; no English word left on a button."""
    german = browser().get("/i18n/catalog.js", **GERMAN).content.decode()
    words = {"Bet": "Setzen", "Raise to": "Erhöhen auf", "Call": "Mitgehen", "Check": "Checken", "Fold": "Passen"}
    for english, word in words.items():
        assert f'"{english}": {json.dumps(word)}' in german, english  # the catalog is JSON, ASCII-escaped


def test_the_stud_pages_scripts_read_the_stud_words_for_trips_and_quads(browser):
    """The catalog the stud pages' scripts read (common.js's studCategoryLabel: pgettext with
    the "stud hand" context) says Drilling and Vierling, the Caribbean's Drei and Vier Gleiche."""
    german = browser().get("/i18n/catalog.js", **GERMAN).content.decode()
    for english, stud in (("Three of a kind", "Drilling"), ("Four of a kind", "Vierling")):
        assert f'"stud hand\\u0004{english}": "{stud}"' in german  # Django's catalog: context \x04 msgid
    assert '"Three of a kind": "Drei Gleiche"' in german


def test_hands_are_named_in_german():
    from casino.game.names import hand_name_from_codes

    assert hand_name_from_codes(["Th", "Td", "2c", "5s", "9h"], language="de") == "Paar Zehnen"
    assert hand_name_from_codes(["Ks", "Kh", "Kc", "3s", "3c"], language="de") == "Full House, Könige über Dreien"
    assert hand_name_from_codes(["Ac", "Kd", "7h", "4s", "2c"], language="de") == "Ass-König hoch"
    assert hand_name_from_codes(["7s", "7h", "7c", "Ks", "2c"], language="de") == "Drei Siebenen"
    assert hand_name_from_codes(["As", "2h", "3c", "4s", "5d"], language="de") == "Straight, Fünf hoch"
    assert hand_name_from_codes(["Th", "Td", "2c", "5s", "9h"]) == "pair of tens"  # English stays as it was
    with translation.override("de"):
        from tables.presentation import spoken_name

        assert spoken_name(["Qc", "Jd", "7h", "4s", "2c"]) == "Dame hoch"


def test_a_refusal_raised_in_english_by_a_service_reads_german(api, make_player, table):
    player = make_player(10_000)
    url = reverse("api-table-bet", args=[table.pk])
    body = {"ante": "1,00", "jackpot": False}
    english = api(player).post(url, {"ante": "1.00", "jackpot": False}, format="json", HTTP_IDEMPOTENCY_KEY="n1").json()
    german = api(player).post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="n2", **GERMAN).json()
    assert english["code"] == german["code"] == "not_seated"
    assert english["message"] == "Take a seat at this table before you bet."
    assert german["message"] == "Nehmen Sie an diesem Tisch Platz, bevor Sie setzen."


@pytest.mark.django_db
def test_a_form_s_own_refusals_read_german(browser, auditor, groups):
    """A form's checks of its own (not a service's refusal) are in the reader's language too."""
    signup = browser().post(
        reverse("signup"),
        {"username": "neu", "email": "neu@example.com", "password1": "felt-and-chips-42", "password2": "other-42-x"},
        **GERMAN,
    )
    assert "Die beiden Passwörter stimmen nicht überein." in signup.content.decode()
    ledger = browser(auditor).get(
        reverse("staff-auditor-ledger"), {"date_from": "2026-12-05", "date_to": "2026-12-01"}, **GERMAN
    )
    assert "Der letzte Tag liegt vor dem ersten." in ledger.content.decode()
