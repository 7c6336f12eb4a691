"""Django's PostgreSQL backend, with timestamps read by psycopg's C loader.

Django reads every ``timestamptz`` column through a loader of its own
(``django.db.backends.postgresql.psycopg_any.BaseTzLoader``) that pins the value's time
zone. It subclasses psycopg's pure-Python loader, so every timestamp of every row is
parsed in Python, and every result builds such a loader per timestamp column: a good
share of what reading a row costs a dealer's step. psycopg's own loader (in C, with
psycopg[binary]) returns the same aware value in the session's time zone, and Django
sets the session's time zone to the connection's at every connect (``ensure_timezone``),
so this backend registers psycopg's loader, and its cursors need no loader of their own
(Django's ``create_cursor`` registers one on a cursor whose connection's zone differs
from its loader's; here they never differ).

It also commits a step's last write with the ``COMMIT``, in one round trip
(``casino.db.rows_save(with_commit=True)``, ``casino.db.commit_held``): a held write is
sent by the commit, and dropped by a rollback.

``ENGINE = "casino.postgres"`` (``casino.settings``); everything else is Django's.
"""

from __future__ import annotations

from functools import lru_cache

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base
from django.utils.asyncio import async_unsafe
from psycopg.adapt import AdaptersMap
from psycopg.pq import Format

from casino import db

_TIMESTAMPTZ_OID = psycopg.adapters.types["timestamptz"].oid
# psycopg's own loader: the C one when psycopg's C extension is installed.
_LOADER = psycopg.adapters.get_loader(_TIMESTAMPTZ_OID, Format.TEXT)


@lru_cache
def adapters_template(timezone) -> AdaptersMap:
    """Django's adapters for ``timezone``, with psycopg's timestamp loader."""
    context = AdaptersMap(base.get_adapters_template(True, timezone))
    context.register_loader("timestamptz", _LOADER)
    return context


class DatabaseWrapper(base.DatabaseWrapper):
    holds_writes = True  # casino.db.hold_write: the commit sends the held write
    held_write = None

    def get_connection_params(self):
        params = super().get_connection_params()
        if settings.USE_TZ:  # without: Django's loader, which makes naive datetimes
            params["context"] = adapters_template(self.timezone)
        return params

    @async_unsafe
    def create_cursor(self, name=None):
        if not settings.USE_TZ:
            return super().create_cursor(name)
        if not name:
            return self.connection.cursor()
        if self.settings_dict["OPTIONS"].get("server_side_binding") is not True:
            # Django's server-side cursor with client-side binding (its create_cursor)
            return base.ServerSideCursor(self.connection, name=name, scrollable=False, withhold=self.connection.autocommit)
        return self.connection.cursor(name, scrollable=False, withhold=self.connection.autocommit)

    def _commit(self):
        if not db.commit_held(self):
            super()._commit()

    def _rollback(self):
        db.drop_held(self)
        super()._rollback()

    def _close(self):
        db.drop_held(self)
        super()._close()
