"""``{% load poker_pages %}{% poker_lobby_section %}``: the poker room's tables in the lobby,
beside the Caribbean tables (rows from ``poker.views.lobby_rows``)."""

from __future__ import annotations

from django import template

from casino.access import policy

register = template.Library()


@register.inclusion_tag("poker/_lobby_section.html", takes_context=True)
def poker_lobby_section(context):
    from poker.views import lobby_rows

    user = context["request"].user
    return {"poker_tables": lobby_rows(user), "is_player": policy.allowed(user, "play")}


@register.filter
def pot_label(label: str) -> str:
    """A pot's label as the room's records write it ("Main pot", "Side pot 2"), in the
    reader's language."""
    import re

    from django.utils.translation import gettext

    side = re.fullmatch(r"Side pot (\d+)", label or "")
    if side:
        return gettext("Side pot %(number)s") % {"number": side.group(1)}
    return gettext(label) if label == "Main pot" else label
