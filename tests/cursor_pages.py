"""What every page listed by cursor (``casino.keyset``) is tested for: walking it by its
"Older" and "Newer" links, and the cursors it refuses."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

# A bad cursor in a query string, and the code of the error that names it.
BAD_CURSORS = [
    ("before=-3", "before_invalid"),
    ("after=abc", "after_invalid"),
    (f"after={2**62 + 1}", "after_invalid"),
    ("before=1&before=2", "before_invalid"),
    ("before=2&after=1", "invalid_page"),
    ("before=999999", "cursor_not_found"),
]


def link(page: str, rel: str) -> str | None:
    """The query string of the page's ``rel`` link ("next": older, "prev": newer), or None."""
    found = re.search(rf'href="\?([^"#]*)(?:#[^"]*)?" rel="{rel}"', page)
    return html.unescape(found.group(1)) if found else None


def walk(get: Callable[[str], str], rows_of: Callable[[str], list]) -> tuple[list[list], list[list]]:
    """Every page from the newest by "Older" links, then back from the oldest by "Newer"
    links: (the pages' rows going, the pages' rows coming back). ``get(query)``: a page."""
    page = get("")
    pages = [rows_of(page)]
    while (query := link(page, "next")) is not None:
        page = get(query)
        pages.append(rows_of(page))
    back = [pages[-1]]
    while (query := link(page, "prev")) is not None:
        page = get(query)
        back.append(rows_of(page))
    return pages, back
