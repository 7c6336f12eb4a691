"""Every refusal the product can answer reads German, with its code unchanged.

The guard: the source is read (``ast``) for every error code the product raises or sends
(the error family's classes and calls, the sockets' refusals, the validators' field codes)
and every message a refusal is raised with (a fixed English text, or the msgid of a message
with its details). Each code must have its general message in ``casino.http.error_messages``,
and each of those messages and each raised message must have a German translation that
differs from the English: a newly added refusal cannot ship untranslated.

Then the refusals with details: built from a msgid with named placeholders, so a German
reader gets the details in German words and German money, over the API and from the stud
engine alike.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from casino.http.error_messages import CODE_MESSAGES
from casino.http.errors import ApplicationError, ValidationError
from casino.http.validation import parse_int

ROOT = Path(settings.BASE_DIR)
SOURCES = ("casino", "tables", "poker", "wallets", "jackpot", "backoffice")
# Calls that carry a refusal's code other than by the keyword ``code``: the argument's position.
CODE_POSITIONS = {"StudError": 0, "_refuse": 1, "_invalid": 1, "_guard": 4}
# The validators whose code is "<field>_invalid" unless they are given one.
FIELD_CODED = {"parse_int", "parse_optional_int", "parse_text"}
GETTEXT = {"gettext", "gettext_noop", "gettext_lazy", "_", "ngettext"}
# Calls that build a refusal's reason from a msgid (anywhere in their arguments): the message
# with details translated when read, the stud table checks' and the pay tables' reasons.
REASONS = {"Detailed", "_error", "_problem"}
# Messages whose German is the English word for word, by nature (none yet).
SAME_IN_GERMAN: frozenset[str] = frozenset()


def _name(func) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _text(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _product_files():
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" not in path.parts and "management" not in path.parts:
                yield path, ast.parse(path.read_text(encoding="utf-8"))


def _error_classes(files) -> set[str]:
    """``ApplicationError`` and every class of the product deriving from it, by name."""
    names, parents = {"ApplicationError"}, {}
    for _path, tree in files:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                parents[node.name] = {_name(base) for base in node.bases}
    grown = True
    while grown:
        grown = False
        for cls, bases in parents.items():
            if cls not in names and bases & names:
                names.add(cls)
                grown = True
    return names


def product_refusals(built: list[str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """(codes, messages) the product's source raises or sends, each with where (path:line);
    ``built`` gathers the refusals raised with text put together in English (an f-string,
    a concatenation), which no catalog can translate."""
    files = list(_product_files())
    errors = _error_classes(files)
    codes: dict[str, str] = {}
    messages: dict[str, str] = {}
    for path, tree in files:

        def where(node, path=path) -> str:
            return f"{path.relative_to(ROOT)}:{node.lineno}"

        # names taken from elsewhere (Django's and DRF's ValidationError are not the family)
        foreign = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and not (node.module or "").startswith(SOURCES)
            for alias in node.names
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in errors:
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and [_name(t) for t in stmt.targets] == ["code"]:
                        if _text(stmt.value):
                            codes.setdefault(_text(stmt.value), where(stmt))
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            is_error = name in errors and isinstance(node.func, ast.Name) and name not in foreign
            keywords = {k.arg: k.value for k in node.keywords}
            if is_error or name in CODE_POSITIONS or name in FIELD_CODED:
                code = _text(keywords.get("code"))
                if code is None and name in CODE_POSITIONS and len(node.args) > CODE_POSITIONS[name]:
                    code = _text(node.args[CODE_POSITIONS[name]])
                if code is None and name in FIELD_CODED and "code" not in keywords and _text(keywords.get("field")):
                    code = _text(keywords["field"]) + "_invalid"
                if code:
                    codes.setdefault(code, where(node))
            if name in REASONS:
                for arg in node.args:
                    for inner in ast.walk(arg):
                        if isinstance(inner, ast.Call) and _name(inner.func) in GETTEXT and inner.args:
                            if _text(inner.args[0]):
                                messages.setdefault(_text(inner.args[0]), where(node))
            if is_error:
                position = 1 if name == "StudError" else 0
                said = [node.args[position]] if len(node.args) > position else []
                said += [keywords["message"]] if "message" in keywords else []
                for arg in said:
                    if built is not None and (
                        isinstance(arg, ast.JoinedStr) or (isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add))
                    ):
                        built.append(where(node))
                    if _text(arg):
                        messages.setdefault(_text(arg), where(node))
                    for inner in ast.walk(arg):
                        if (
                            isinstance(inner, ast.Call)
                            and _name(inner.func) in GETTEXT
                            and inner.args
                            and _text(inner.args[0])
                        ):
                            messages.setdefault(_text(inner.args[0]), where(node))
    return codes, messages


def _german(msgid: str) -> str:
    with translation.override("de"):
        return gettext(msgid)


def test_the_guard_finds_the_product_s_refusals():
    codes, messages = product_refusals()
    assert {"not_seated", "not_your_turn", "unknown_action", "hand_id_invalid", "rate_limited"} <= set(codes)
    assert "Take a seat at this table before you bet." in messages  # a fixed message
    assert "The ante at this table is %(min)s to %(max)s." in messages  # a message with its details
    assert "It is seat %(seat)s's turn." in messages  # the stud engine's, translated when read
    assert len(codes) > 100 and len(messages) > 150


def test_no_refusal_is_put_together_in_english():
    built: list[str] = []
    product_refusals(built)
    assert not built, "refusals built from English text (use a msgid with named details):\n" + "\n".join(built)


def test_every_code_the_product_answers_has_its_message_in_the_registry():
    codes, _messages = product_refusals()
    missing = sorted(f"{code} ({where})" for code, where in codes.items() if code not in CODE_MESSAGES)
    assert not missing, "codes without a message in casino.http.error_messages.CODE_MESSAGES:\n" + "\n".join(missing)


def test_every_code_s_message_reads_german():
    untranslated = []
    for code, message in CODE_MESSAGES.items():
        with translation.override("en"):
            english = str(message)
        with translation.override("de"):
            german = str(message)
        if german == english and english not in SAME_IN_GERMAN:
            untranslated.append(f"{code}: {english}")
    assert not untranslated, "codes whose message has no German:\n" + "\n".join(untranslated)


def test_every_message_a_refusal_is_raised_with_reads_german():
    _codes, messages = product_refusals()
    untranslated = sorted(
        f"{where}: {message}"
        for message, where in messages.items()
        if _german(message) == message and message not in SAME_IN_GERMAN
    )
    assert not untranslated, "refusals whose message has no German:\n" + "\n".join(untranslated)


def test_a_german_message_keeps_every_detail_of_the_english():
    import re

    _codes, messages = product_refusals()
    lost = [
        f"{where}: {message}"
        for message, where in messages.items()
        if sorted(re.findall(r"%\(\w+\)s", message)) != sorted(re.findall(r"%\(\w+\)s", _german(message)))
    ]
    assert not lost, "German messages that drop or add a detail:\n" + "\n".join(lost)


# --- refusals with their details, read in German ------------------------------------------


@pytest.mark.django_db
def test_a_refusal_with_an_amount_reads_german_money_and_keeps_its_code(api, make_player, table):
    from tables.services.seats import table_sit

    player = make_player(10_000)
    table_sit(user=player, table_id=table.pk)
    url = reverse("api-table-bet", args=[table.pk])
    english = api(player).post(url, {"ante": "20.00", "jackpot": False}, format="json", HTTP_IDEMPOTENCY_KEY="e1")
    german = api(player).post(
        url, {"ante": "20,00", "jackpot": False}, format="json", HTTP_IDEMPOTENCY_KEY="g1", HTTP_ACCEPT_LANGUAGE="de"
    )
    assert english.status_code == german.status_code == 400
    assert english.json()["code"] == german.json()["code"] == "ante_out_of_range"
    assert english.json()["extra"] == german.json()["extra"]
    assert english.json()["message"] == "The ante at this table is €0.50 to €10.00."
    assert german.json()["message"] == "Der Ante an diesem Tisch beträgt 0,50\u00a0€ bis 10,00\u00a0€."


def test_a_validator_s_refusal_names_its_field_and_bounds_in_german():
    with translation.override("de"), pytest.raises(ValidationError) as refused:
        parse_int("99", field="limit", minimum=1, maximum=50)
    assert refused.value.code == "limit_invalid"
    assert refused.value.message == "'limit' liegt zwischen 1 und 50."
    with pytest.raises(ValidationError) as english:
        parse_int("99", field="limit", minimum=1, maximum=50)
    assert english.value.message == "'limit' is from 1 to 50."


def test_the_stud_engine_s_refusal_with_details_is_translated_when_read():
    from casino.stud.engine import Action, StudError, apply
    from tests.stud.engine_rig import deal
    from tests.stud.test_engine_betting import SEVEN, THREE

    state = deal(SEVEN, [5000] * 3, THREE)
    with pytest.raises(StudError) as refused:
        apply(state, state.to_act + 1, Action("bring_in"))
    error: ApplicationError = refused.value
    assert error.code == "not_your_turn"
    assert error.message == f"It is seat {state.to_act}'s turn."
    with translation.override("de"):
        assert error.message == f"Platz {state.to_act} ist am Zug."
        assert error.code == "not_your_turn"


def test_a_stud_refusal_raised_in_german_is_read_in_its_reader_s_language_after_pickling():
    """A refusal crossing a process boundary (a task's result, the channel layer) carries its
    msgid and details, not the words of the process that raised it."""
    import pickle

    from casino.stud.engine import Action, StudError, apply
    from tests.stud.engine_rig import deal
    from tests.stud.test_engine_betting import SEVEN, THREE

    state = deal(SEVEN, [5000] * 3, THREE)
    with translation.override("de"), pytest.raises(StudError) as refused:
        apply(state, state.to_act + 1, Action("bring_in"))
    with translation.override("de"):
        assert refused.value.message == f"Platz {state.to_act} ist am Zug."
        carried = pickle.dumps(refused.value)
    error = pickle.loads(carried)
    assert isinstance(error, StudError) and error.code == "not_your_turn" and error.extra == refused.value.extra
    assert error.message == f"It is seat {state.to_act}'s turn."
    with translation.override("de"):
        assert error.message == f"Platz {state.to_act} ist am Zug."
    with translation.override("de"):
        fixed = pickle.dumps(StudError("hand_over", "The hand is over."))
    assert pickle.loads(fixed).message == "The hand is over."
    with translation.override("de"):
        assert pickle.loads(fixed).message != "The hand is over."


def test_every_action_s_default_refusal_names_its_roles_in_german():
    from casino.access import policy

    for action in policy.ACTIONS:
        english = policy.refusal(action)
        with translation.override("de"):
            german = policy.refusal(action)
        assert english.startswith("This needs the ") and german.startswith("Dafür ist die Rolle "), (action, german)
