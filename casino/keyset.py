"""Lists read a page at a time by cursor (keyset), newest first: a page reads an index
range of its own size however long the list, with no count and no offset (an offset page
reads every row above it, a count every row of the list).

A page's links carry the id of the row they continue from: ``before=`` (the rows older
than it: "Older →") or ``after=`` (the rows newer than it: "← Newer"); with neither, the
newest rows. ``page_cursors`` reads the two from a query string, for every list that pages
this way (the auditors' ledger, the player's statement and hands); ``keyset_page`` reads a
page of a queryset by its order's columns, the last of them unique.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import BooleanField, F, Func, Q, QuerySet, Value
from django.utils.translation import gettext, gettext_noop

from casino.http.errors import Translated, ValidationError
from casino.http.validation import parse_int

PAGE_CURSORS = ("before", "after")
CURSOR_MAX = 2**62
BOTH_CURSORS = gettext_noop("A page is read before one entry or after one, not both.")


def page_cursors(params: Mapping[str, Any], *, both: str = BOTH_CURSORS) -> tuple[int | None, int | None]:
    """``(before, after)`` from a query string: each absent (or empty) or an id from 1 to
    2**62, at most one of them. A value that is no such id (a sign, a letter, too large;
    given twice) is ``before_invalid`` / ``after_invalid``; both is ``invalid_page`` (its
    message ``both``)."""
    values = []
    for name in PAGE_CURSORS:
        if not hasattr(params, "getlist"):
            raw = params.get(name)
        else:
            given = params.getlist(name)
            if len(given) > 1:
                raise ValidationError(
                    Translated(gettext("'%(field)s' is given once.") % {"field": name}),
                    code=f"{name}_invalid",
                    extra={"field": name},
                )
            raw = given[0] if given else None
        values.append(raw or None)
    before, after = values
    if before is not None and after is not None:
        raise ValidationError(both, code="invalid_page", extra={"field": "after"})
    cursors = [
        None if raw is None else parse_int(raw, field=name, minimum=1, maximum=CURSOR_MAX)
        for name, raw in zip(PAGE_CURSORS, values)
    ]
    return cursors[0], cursors[1]


@dataclass(frozen=True)
class KeysetPage:
    """A page of a list, newest first, and the cursors of its neighbours: ``newer`` (read
    the page above with ``after=newer``) and ``older`` (``before=older``), None where
    there is nothing more."""

    rows: list
    newer: int | None
    older: int | None


def _beyond(key: Sequence[str], position: Sequence[Any], *, older: bool) -> Q:
    """The rows after ``position`` in the order of ``key`` (descending when ``older``):
    the first column's bound on its own too, so that the index range starts there."""
    less, at_most = ("lt", "lte") if older else ("gt", "gte")
    first, value = key[0], position[0]
    strictly = Q(**{f"{first}__{less}": value})
    if len(key) > 1:
        strictly |= Q(**{first: value}) & _beyond(key[1:], position[1:], older=older)
        return Q(**{f"{first}__{at_most}": value}) & strictly
    return strictly


class RowBeyond(Func):
    """``(a, b, …) < (x, y, …)`` (``>`` unless ``older``): the columns ``key`` compared with
    ``position`` as one row value, a condition PostgreSQL reads as one range of an index
    of exactly those columns (SQLite compares row values the same way)."""

    output_field = BooleanField()

    def __init__(self, key: Sequence[str], position: Sequence[Any], *, older: bool) -> None:
        super().__init__(*(F(name) for name in key), *(Value(value) for value in position))
        self.operator = "<" if older else ">"

    def as_sql(self, compiler, connection, **extra):
        parts, params = [], []
        for expression in self.get_source_expressions():
            sql, expression_params = compiler.compile(expression)
            parts.append(sql)
            params.extend(expression_params)
        half = len(parts) // 2
        return f"({', '.join(parts[:half])}) {self.operator} ({', '.join(parts[half:])})", params


def one_value(column: str, value: Any) -> Q:
    """``column = value`` written as a range of one value (``>= value AND <= value``).
    An equality makes the column a constant to PostgreSQL, and an order by it no order at
    all: a page of one account's rows by id may then walk the primary key back from the
    newest row of every account, keeping the filter's (they look spread evenly through the
    table), and read every newer row of the others. A range is no constant: the order comes
    from the (column, …) index, whatever the estimates."""
    return Q(**{f"{column}__gte": value, f"{column}__lte": value})


def keyset_page(
    rows: QuerySet,
    *,
    key: Sequence[str],
    limit: int,
    before: int | None = None,
    after: int | None = None,
    fixed: Mapping[str, Any] | None = None,
    as_row: bool = False,
) -> KeysetPage:
    """``limit`` of ``rows`` newest first by the columns ``key`` (the last unique in
    ``rows``, and the cursor: a row's ``key[-1]``): the newest, those just older than the
    row ``before``, or those just newer than ``after``. One read of ``limit + 1`` rows
    tells whether there are more; with a key of several columns, the cursor's row is found
    first (not in ``rows``: ``cursor_not_found``). A cursor past either end (no rows
    there) reads the newest page. ``fixed``: the list's columns of one value (an account,
    an author: ``{"account_id": 7}``), filtered here by ``one_value`` and put first in the
    order and the cursor's bound, a range of their (fixed…, key…) index. ``as_row``: the
    cursor's bound compared as one row value (``(a, b) < (x, y)``), which starts a range of
    an index of exactly ``key`` and of no other (for a list whose first columns are
    filtered by ``one_value``: see ``backoffice.manager.selectors``)."""
    fixed = dict(fixed or {})
    for column, value in fixed.items():
        rows = rows.filter(one_value(column, value))
    cursor = before if after is None else after
    position: Sequence[Any] = (cursor,)
    if cursor is not None and len(key) > 1:
        position = rows.filter(**{key[-1]: cursor}).order_by().values_list(*key).first()
        if position is None:
            field = "before" if after is None else "after"
            raise ValidationError(
                Translated(
                    gettext("This list has no entry %(cursor)s to page from: start again from the newest.")
                    % {"cursor": cursor}
                ),
                code="cursor_not_found",
                extra={"field": field},
            )
    if fixed:
        key, position, as_row = (*fixed, *key), (*fixed.values(), *position), True
    descending = after is None
    if cursor is None:
        bounded = rows
    elif as_row:
        bounded = rows.filter(RowBeyond(key, position, older=descending))
    else:
        bounded = rows.filter(_beyond(key, position, older=descending))
    order = [f"-{name}" for name in key] if descending else list(key)
    found = list(bounded.order_by(*order)[: limit + 1])
    if not found and cursor is not None:
        return keyset_page(rows, key=key, limit=limit, as_row=as_row)
    more = len(found) > limit
    found = found[:limit]
    if not descending:
        found.reverse()
    mark = key[-1]
    if descending:
        newer = getattr(found[0], mark) if found and before is not None else None
        older = getattr(found[-1], mark) if more else None
    else:
        newer = getattr(found[0], mark) if more else None
        older = getattr(found[-1], mark) if found else None
    return KeysetPage(rows=found, newer=newer, older=older)
