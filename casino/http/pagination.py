"""The API's lists a page at a time by cursor (``casino.keyset``), newest first: a page
reads an index range of its own size however long the list, with no count and no offset.

A page is ``{"results", "next", "previous", "max_limit"}``: ``next`` reads the older rows
(``before=`` the page's last), ``previous`` the newer ones (``after=`` its first), each
null at its end. ``limit`` is 1 to ``max_limit`` (above it: a 400 ``limit_too_large``,
never clamped in silence); a bad cursor is ``before_invalid`` / ``after_invalid`` /
``invalid_page`` (both) / ``cursor_not_found``; an ``offset`` other than 0 is
``offset_not_supported``, since an offset page reads every row above it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.utils.translation import gettext
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from casino.http.errors import Translated, ValidationError
from casino.http.validation import is_ascii_digits, parse_int
from casino.keyset import KeysetPage, keyset_page, page_cursors


def refuse_offset(params) -> None:
    """An ``offset`` above 0 is ``offset_not_supported`` (one that is no number,
    ``offset_invalid``); 0 or none reads the list from its newest row."""
    raw = params.get("offset")
    if raw not in (None, "") and parse_int(raw, field="offset", minimum=0, maximum=2**62):
        raise ValidationError(
            Translated(
                gettext(
                    "This list pages by cursor: follow the page's next and previous links (before=, after=), "
                    "not an offset."
                )
            ),
            code="offset_not_supported",
            extra={"field": "offset"},
        )


class CursorPagination(BasePagination):
    """Pages by cursor for an ``APIView``: ``page_of(request, read)`` with a selector's page
    (a ``KeysetPage`` of ``limit``, ``before``, ``after``), or ``paginate_queryset`` with
    the view's ``page_key`` (default ``("id",)``: newest first by id)."""

    default_limit = 50
    max_limit = 1000
    page: KeysetPage | None = None

    def get_limit(self, request) -> int:
        raw = request.query_params.get("limit")
        if raw is None or raw == "":
            return self.default_limit
        if is_ascii_digits(raw) and int(raw) > self.max_limit:
            raise ValidationError(
                Translated(gettext("A page holds at most %(rows)s rows.") % {"rows": self.max_limit}),
                code="limit_too_large",
                extra={"field": "limit", "max_limit": self.max_limit},
            )
        return parse_int(raw, field="limit", minimum=1, maximum=self.max_limit)  # "from 1 to 1000"

    def page_of(self, request, read: Callable[..., KeysetPage]) -> list:
        """The rows of ``read(limit=, before=, after=)`` for the request's query string."""
        refuse_offset(request.query_params)
        limit = self.get_limit(request)
        before, after = page_cursors(request.query_params)
        self.request = request
        self.page = read(limit=limit, before=before, after=after)
        return self.page.rows

    def paginate_queryset(self, queryset, request, view=None) -> list:
        key: Sequence[str] = getattr(view, "page_key", ("id",))
        return self.page_of(request, lambda **cursor: keyset_page(queryset, key=key, **cursor))

    def _link(self, name: str, value: int | None) -> str | None:
        if value is None:
            return None
        url = self.request.build_absolute_uri()
        for param in ("before", "after", "offset"):
            url = remove_query_param(url, param)
        return replace_query_param(url, name, value)

    def get_paginated_response(self, data) -> Response:
        return Response(
            {
                "results": data,
                "next": self._link("before", self.page.older),
                "previous": self._link("after", self.page.newer),
                "max_limit": self.max_limit,
            }
        )

    def get_paginated_response_schema(self, schema) -> dict:
        # OpenAPI 3.1 (JSON Schema): null is a type, not "nullable".
        return {
            "type": "object",
            "required": ["results", "next", "previous", "max_limit"],
            "properties": {
                "results": schema,
                "next": {
                    "type": ["string", "null"],
                    "format": "uri",
                    "description": "The older page (before= this page's last row), or null at the oldest.",
                    "example": "https://casino.example/api/…?before=400",
                },
                "previous": {
                    "type": ["string", "null"],
                    "format": "uri",
                    "description": "The newer page (after= this page's first row), or null at the newest.",
                    "example": "https://casino.example/api/…?after=351",
                },
                "max_limit": {"type": "integer", "example": self.max_limit},
            },
        }

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {
                "name": "limit",
                "required": False,
                "in": "query",
                "description": f"Rows per page, 1 to {self.max_limit} (default {self.default_limit}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_limit},
            },
            {
                "name": "before",
                "required": False,
                "in": "query",
                "description": "The page older than this row (its id): the `next` link.",
                "schema": {"type": "integer", "minimum": 1},
            },
            {
                "name": "after",
                "required": False,
                "in": "query",
                "description": "The page newer than this row (its id): the `previous` link.",
                "schema": {"type": "integer", "minimum": 1},
            },
        ]
