"""Players' private notes and colour tags on their opponents.

A note belongs to its author and is read by its author alone: every read below filters by
the author, so another user's note is never found (a 404 at the API, nothing on a page). A
note is on another player whom the author has met — seated at the same table now, or dealt
into the same hand — so that the notes cannot be used to learn which user names exist.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext

from casino.access import policy
from casino.http.errors import NotFound, Translated, ValidationError
from casino.keyset import KeysetPage, keyset_page
from poker.models import PokerHandPlayer, PokerNote, PokerSeat

COLOURS = [c for c, _ in PokerNote.Colour.choices]
TEXT_MAX = 2000


def _clean_text(text) -> str:
    if text is None:
        return ""
    if not isinstance(text, str):
        raise ValidationError("A note is text.", code="note_invalid", extra={"field": "text"})
    if "\x00" in text:
        raise ValidationError("A note may not contain NUL characters.", code="note_invalid", extra={"field": "text"})
    text = text.strip()
    if len(text) > TEXT_MAX:
        raise ValidationError(
            Translated(gettext("A note holds at most %(max)s characters.") % {"max": TEXT_MAX}),
            code="note_too_long",
            extra={"field": "text", "max_length": TEXT_MAX},
        )
    return text


def _clean_colour(colour) -> str:
    if colour is None or colour == "":
        return ""
    if not isinstance(colour, str) or colour not in COLOURS:
        raise ValidationError(
            Translated(gettext("A colour tag is one of %(colours)s (or none).") % {"colours": ", ".join(COLOURS)}),
            code="colour_invalid",
            extra={"field": "colour", "choices": COLOURS},
        )
    return colour


def _named(name) -> bool:
    """A user name a query may carry (PostgreSQL refuses NUL; no user name is longer)."""
    return isinstance(name, str) and 0 < len(name) <= 150 and "\x00" not in name


def _have_met(author_id: int, subject_id: int) -> bool:
    tables = PokerSeat.objects.filter(player_id=author_id).values("table_id")
    if PokerSeat.objects.filter(player_id=subject_id, table_id__in=tables).exists():
        return True
    hands = PokerHandPlayer.objects.filter(player_id=author_id).values("hand_id")
    return PokerHandPlayer.objects.filter(player_id=subject_id, hand_id__in=hands).exists()


def note_subject(*, author, name) -> object:
    """The player ``name`` that ``author`` may write a note on (``player_not_found`` otherwise)."""
    if not _named(name):
        raise ValidationError("Name the player by their user name.", code="player_invalid", extra={"field": "player"})
    if name == author.get_username():
        raise ValidationError(
            "A note is on another player, not on yourself.", code="note_on_self", extra={"field": "player"}
        )
    subject = get_user_model().objects.filter(username=name).first()
    if subject is None or not (
        PokerNote.objects.filter(author=author, subject=subject).exists() or _have_met(author.pk, subject.pk)
    ):
        raise NotFound(
            "No player of that name has played with you.", code="player_not_found", extra={"field": "player"}
        )
    return subject


def poker_note_set(*, author, name, text=None, colour=None) -> PokerNote | None:
    """Write ``author``'s note and colour tag on player ``name``; both empty: the note is removed
    (``None``)."""
    policy.require(author, "play")
    text, colour = _clean_text(text), _clean_colour(colour)
    subject = note_subject(author=author, name=name)
    with transaction.atomic():
        if not text and not colour:
            PokerNote.objects.filter(author=author, subject=subject).delete()
            return None
        note, _ = PokerNote.objects.update_or_create(
            author=author, subject=subject, defaults={"text": text, "colour": colour}
        )
        return note


def poker_note_delete(*, author, name: str) -> None:
    deleted = PokerNote.objects.filter(author=author, subject__username=name).delete()[0] if _named(name) else 0
    if not deleted:
        raise NotFound("You have no note on this player.", code="note_not_found")


def poker_notes_page(*, author, limit: int, before: int | None = None, after: int | None = None) -> KeysetPage:
    """A page of the author's notes, newest first, by cursor (``casino.keyset``, the cursor
    a note's id): a range of the notes' (author, id) index, however many notes the author
    keeps."""
    return keyset_page(
        PokerNote.objects.select_related("subject"),
        key=("id",),
        fixed={"author_id": author.pk},
        limit=limit,
        before=before,
        after=after,
    )


def poker_note_get(*, author, name: str) -> PokerNote:
    note = (
        PokerNote.objects.filter(author=author, subject__username=name).select_related("subject").first()
        if _named(name)
        else None
    )
    if note is None:
        raise NotFound("You have no note on this player.", code="note_not_found")
    return note


def note_json(note: PokerNote) -> dict:
    return {
        "player": note.subject.get_username(),
        "text": note.text,
        "colour": note.colour or None,
        "updated_at": note.updated_at,
    }


def notes_by_name(*, author, names) -> dict[str, dict]:
    """``{player name: note}`` of ``author``'s notes on these players (anonymous: none)."""
    names = [n for n in names if n]
    if not names or not getattr(author, "is_authenticated", False):
        return {}
    notes = PokerNote.objects.filter(author=author, subject__username__in=names).select_related("subject")
    return {note.subject.get_username(): note_json(note) for note in notes}
