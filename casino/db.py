"""Hot queries compiled once: the ORM builds a query's SQL, ``Prepared`` runs it again.

Django builds and compiles every query anew: about 0.4 ms for a one-row SELECT on the
project's machine, three times the round trip to PostgreSQL. The dealer steps run the
same few queries at every action, so ``Prepared`` keeps each one's SQL per database
alias and per shape (how many values each list holds) and runs it with new values,
turning rows into model instances with the converters the ORM itself would apply.
PostgreSQL then prepares the statement too (server-side binding, ``casino.settings``).

Nothing kept here refers to a connection: under ASGI every request has a connection
object of its own, and a cache that held one (a compiler, a backend's bound converter)
would keep each request's connection, and its socket, alive for ever. The SQL is the
same for every connection of an alias; the backend's converters are looked up by name on
the connection that runs the query.

The query is still written with the ORM, as a function of its parameters::

    TABLE_FOR_UPDATE = Prepared(lambda pk: Table.objects.select_for_update(of=("self",)).filter(pk=pk))
    table = TABLE_FOR_UPDATE.first(pk=table_id)

``Together`` runs several such queries in one statement (one round trip), each part's
rows one JSON array built into the same models; its lock goes with the transaction's
``BEGIN`` (``opening_message``). ``rows_save`` writes a step's rows and its posting in one
statement, which may wait for the ``COMMIT`` and go with it (``with_commit``,
``commit_held``): a dealer step is two round trips.

Parameters are ints or lists of ints (ids); everything else is part of the query, and
on PostgreSQL of its SQL text: the query's constants (a hand's live states, the kinds of a player's
accounts) are written into the SQL as literals, not sent as parameters. PostgreSQL plans
a prepared statement for its parameters' values at each execution until a plan for any
values (a generic plan) looks as cheap, and a generic plan cannot use a partial index
whose condition names such a constant (``hand_one_live_per_table``): the live hand's
read was planned anew at every bet (0.9 ms), and its generic plan read every hand the
table ever dealt. With the constants in the text, the one plan for any ids uses the
partial indexes, and is planned once per connection. Model queries with
``select_related`` (the related rows are built and cached on each instance, as the ORM
does) and ``only()`` work; annotations are refused. A query with ``select_for_update``
is compiled, like any, inside the transaction.
"""

from __future__ import annotations

import inspect
import itertools
import json
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.db import models
from django.db.models import Model, QuerySet, signals
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query import get_related_populators
from django.db.models.query_utils import DeferredAttribute
from psycopg import IsolationLevel
from psycopg import errors as psycopg_errors
from psycopg import sql as psycopg_sql
from psycopg.pq import TransactionStatus
from psycopg.types.json import Jsonb

_sentinels = itertools.count(-7_345_213_000_000_000, -1)


@dataclass(frozen=True)
class _BackendConverter:
    """A converter of the backend's operations (``connection.ops.<name>``), bound at run time."""

    name: str


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple
    slots: tuple[tuple[int, str, int | None], ...]  # (position in params, parameter, index in its list)
    # (position in the row, converters, the column's expression): no connection in here.
    converters: tuple[tuple[int, tuple, object], ...]
    model: type[Model]
    attnames: tuple[str, ...]
    columns: slice  # the model's own columns in a row
    related: tuple  # the ORM's RelatedPopulators of a select_related query (no connection in them)
    plain: bool  # every column selected and plain to build (``_plain_model``)


class Prepared:
    def __init__(self, build: Callable[..., QuerySet]):
        self.build = build
        self._compiled: dict[tuple, _Compiled] = {}  # (alias, shape) -> compiled; no connections
        self._lock = threading.Lock()

    def all(self, using: str = DEFAULT_DB_ALIAS, **values) -> list[Model]:
        connection = connections[using]
        shape = _shape(values)
        compiled = self._compiled.get((using, shape))
        if compiled is None:
            with self._lock:
                compiled = self._compiled.setdefault((using, shape), self._compile(using, shape))
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, _filled(compiled.params, compiled.slots, values))
            rows = cursor.fetchall()
        return self._built(compiled, rows, connection, using)

    @staticmethod
    def _built(compiled: _Compiled, rows: list, connection, using: str) -> list[Model]:
        """The query's rows as the ORM builds them."""
        if compiled.converters:
            rows = _convert(rows, compiled.converters, connection)
        if compiled.plain:
            objs = [_instance(compiled.model, using, compiled.attnames, row[compiled.columns]) for row in rows]
        else:
            objs = [compiled.model.from_db(using, compiled.attnames, row[compiled.columns]) for row in rows]
        if compiled.related:
            for row, obj in zip(rows, objs):
                for populator in compiled.related:
                    populator.populate(row, obj)
        return objs

    def first(self, using: str = DEFAULT_DB_ALIAS, **values) -> Model | None:
        rows = self.all(using, **values)
        return rows[0] if rows else None

    def _compile(self, using: str, shape: Sequence[tuple[str, int | None]]) -> _Compiled:
        samples: dict[str, object] = {}
        where: dict[int, tuple[str, int | None]] = {}
        for name, length in shape:
            if length is None:
                samples[name] = next(_sentinels)
                where[samples[name]] = (name, None)
            else:
                samples[name] = [next(_sentinels) for _ in range(length)]
                for index, sentinel in enumerate(samples[name]):
                    where[sentinel] = (name, index)
        compiler = self.build(**samples).query.get_compiler(using)
        sql, params = compiler.as_sql()
        if compiler.connection.vendor == "postgresql":
            sql, params = _constants_written(sql, params, where)
        slots = tuple((i, *where[p]) for i, p in enumerate(params) if type(p) is int and p in where)
        if {(name, index) for _, name, index in slots} != set(where.values()):
            raise ValueError("every parameter must appear in the query's SQL")
        klass_info = compiler.klass_info
        if not klass_info or compiler.annotation_col_map:
            raise ValueError("Prepared runs model queries (no values(), no annotations)")
        own = klass_info["select_fields"]
        selected = [column for column, _, _ in compiler.select[: compiler.col_count]]
        ops = compiler.connection.ops
        converters = tuple(
            (position, tuple(_detached(converter, ops) for converter in row_converters), expression)
            for position, (row_converters, expression) in compiler.get_converters(selected).items()
        )
        return _Compiled(
            sql=sql,
            params=tuple(params),
            slots=slots,
            converters=converters,
            model=klass_info["model"],
            attnames=tuple(selected[i].target.attname for i in own),
            columns=slice(own[0], own[-1] + 1),
            related=tuple(get_related_populators(klass_info, compiler.select, using)),
            plain=_plain_model(klass_info["model"], [selected[i].target.attname for i in own]),
        )


_PLACEHOLDER = re.compile(r"%%|%s")


def _constants_written(sql: str, params: Sequence, parameters: dict[int, object]) -> tuple[str, list]:
    """``sql`` with every value of ``params`` that is no parameter (a sentinel of
    ``parameters``) written in as a literal; the parameters left, in order."""
    values = iter(params)
    kept = []

    def place(match: re.Match) -> str:
        if match.group() == "%%":
            return "%%"
        value = next(values)
        if type(value) is int and value in parameters:
            kept.append(value)
            return "%s"
        return psycopg_sql.Literal(value).as_string().replace("%", "%%")

    written = _PLACEHOLDER.sub(place, sql)
    if next(values, _END) is not _END:
        raise ValueError("the query's SQL has fewer placeholders than values")
    return written, kept


_END = object()


def _plain_model(model: type[Model], attnames: list[str]) -> bool:
    """Whether a row of every column of ``model`` can be built without ``Model.__init__``:
    no receiver of its init signals, and every field read back from the instance's
    ``__dict__`` as the ORM's own descriptors do."""
    if attnames != [f.attname for f in model._meta.concrete_fields]:
        return False  # a deferred column: the ORM's way
    if signals.pre_init.has_listeners(model) or signals.post_init.has_listeners(model):
        return False
    return all(type(model.__dict__.get(f.attname)) in (DeferredAttribute, ForeignKeyDeferredAttribute) for f in model._meta.concrete_fields)


def _instance(model: type[Model], using: str, attnames: tuple[str, ...], values) -> Model:
    """``model.from_db(using, attnames, values)`` for a plain model: what ``Model.__init__``
    sets for a row of every column, without its per-field loop and its signals (none)."""
    obj = model.__new__(model)
    obj.__dict__.update(zip(attnames, values))
    state = obj._state = ModelState()
    state.adding, state.db = False, using
    return obj


class Together:
    """Several model queries in one statement: one round trip where each makes its own.

    Each part is a query as ``Prepared`` takes it, a function of some of the parameters::

        HAND_AND_SEATS = Together(
            hand=lambda hand_id: Hand.objects.select_for_update().filter(pk=hand_id),
            seats=lambda hand_id: HandSeat.objects.filter(hand_id=hand_id).order_by("seat_number"),
        )
        rows = HAND_AND_SEATS.fetch(hand_id=hand.pk)  # {"hand": [hand], "seats": [...]}

    A part takes the parameters its function names (``fetch`` is given all of them).

    On PostgreSQL each part's rows come back as one JSON array of rows, each an array of
    its columns (``json_agg`` of ``json_build_array``, in the part's order), all parts in
    one row of one statement, and are built into the models the ORM builds. The parts
    share the statement's one snapshot, taken before any part's lock is granted: so a
    lock that keeps the parts' rows still (the table's, for a hand and its seats) must be
    held before the statement starts, and a part's lock then never waits. ``first``
    names the part that takes it: a statement of its own, run before the others' (whose
    snapshot is then taken once its lock is granted), in the same round trip when it
    opens the transaction (``opening_message``); its rows are built as ``Prepared``
    builds them.
    Plain model queries only: no joins, no annotations, fields read back from JSON
    (``_JSON_READERS``). Elsewhere (SQLite), one ORM query per part, ``first``'s first.
    """

    def __init__(self, *, first: str | None = None, **parts: Callable[..., QuerySet]):
        if first is not None and first not in parts:
            raise ValueError(f"no part is named {first!r}")
        self.first = first
        self.parts = {name: Prepared(build) for name, build in parts.items()}
        self._takes = {name: frozenset(inspect.signature(build).parameters) for name, build in parts.items()}
        self._compiled: dict[tuple, tuple] = {}  # (alias, shape) -> first's statement, the others'; no connections
        self._lock = threading.Lock()

    def fetch(self, using: str = DEFAULT_DB_ALIAS, **values) -> dict[str, list[Model]]:
        connection = connections[using]
        if connection.vendor != "postgresql":
            order = sorted(self.parts, key=lambda name: name != self.first)
            return {name: list(self.parts[name].build(**self._own(name, values)).using(using)) for name in order}
        shape = _shape(values)
        compiled = self._compiled.get((using, shape))
        if compiled is None:
            with self._lock:
                compiled = self._compiled.setdefault((using, shape), self._compile(using, shape))
        first, (name, sql, base, slots, parts) = compiled
        params = _filled(base, slots, values)
        fetched = {}
        if first is None:
            documents = _documents(connection, sql, params)
        else:
            first_name, statement, first_compiled = first
            first_params = _filled(first_compiled.params, first_compiled.slots, values)
            rows = opening_message(connection, (statement, first_compiled.sql, first_params), (name, sql, params))
            if rows is None:  # a transaction already open: the two statements, as any two
                fetched[first_name] = self.parts[first_name].all(using, **self._own(first_name, values))
                documents = _documents(connection, sql, params)
            else:
                fetched[first_name] = Prepared._built(first_compiled, rows[0], connection, using)
                documents = rows[1][0]
        for (part, model, attnames, parsed, plain), document in zip(parts, documents):
            rows = json.loads(document)  # each row a JSON array of the part's columns, in attnames' order
            for position, read in parsed:
                for row in rows:
                    row[position] = read(row[position])
            if plain:
                fetched[part] = [_instance(model, using, attnames, row) for row in rows]
            else:
                fetched[part] = [model.from_db(using, attnames, row) for row in rows]
        return fetched

    def _own(self, name: str, values: dict) -> dict:
        return {key: value for key, value in values.items() if key in self._takes[name]}

    def _compile(self, using: str, shape) -> tuple:
        selects, params, parts, all_slots = [], [], [], []
        quote = connections[using].ops.quote_name
        unused = {key for key, _ in shape} - set().union(*self._takes.values())
        if unused:
            raise ValueError(f"no part takes {', '.join(sorted(unused))}")
        first = None
        for name, part in self.parts.items():
            own = tuple((key, length) for key, length in shape if key in self._takes[name])
            compiled = part._compile(using, own)
            if name == self.first:
                first = (name, _statement_name(), compiled)
                continue
            if compiled.related:
                raise ValueError("Together runs plain model queries (no select_related)")
            model = compiled.model
            fields = {f.attname: f for f in model._meta.concrete_fields}
            readers = [_json_reader(fields[attname]) for attname in compiled.attnames]
            # A row as an array, not an object: no column name repeated in every row.
            columns = ", ".join(f"q.{quote(fields[attname].column)}" for attname in compiled.attnames)
            order = ", ".join(
                f"q.{quote(_field(model, key.lstrip('-')).column)} {'DESC' if key.startswith('-') else 'ASC'}"
                for key in _ordering(part.build, own)
            )
            selects.append(
                f"(SELECT COALESCE(json_agg(json_build_array({columns}){' ORDER BY ' + order if order else ''}), '[]')::text"
                f" FROM ({compiled.sql}) AS q)"
            )
            slots = tuple((len(params) + position, slot, index) for position, slot, index in compiled.slots)
            params.extend(compiled.params)
            parsed = tuple((position, read) for position, read in enumerate(readers) if read is not _keep)
            parts.append((name, model, compiled.attnames, parsed, compiled.plain))
            all_slots.extend(slots)
        return first, (_statement_name(), f"SELECT {', '.join(selects)}", tuple(params), tuple(all_slots), tuple(parts))


def _filled(base: Sequence, slots, values: dict) -> list:
    """A compiled query's parameters: ``base`` with each slot's value from ``values``."""
    params = list(base)
    for position, name, index in slots:
        params[position] = values[name] if index is None else values[name][index]
    return params


_statement_names = itertools.count(1)


def _statement_name() -> str:
    return f"casino_{next(_statement_names)}"


# The statements each session has prepared (``opening_message``), by psycopg connection: none
# is kept alive by it (a pooled connection lives as long as the pool keeps it).
_session_statements: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _documents(connection, sql: str, params: list) -> tuple:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def opening_message(connection, *statements: tuple[str, str, Sequence[int]]) -> list[list] | None:
    """Run the statements (``(name, sql, params)`` each: psycopg's placeholders in ``sql``,
    ids for parameters) in one round trip when they open the transaction of the atomic
    block they run in, with its ``BEGIN``; each one's rows. ``None`` when they do not (a
    transaction is open already, or none is wanted): the caller runs them its own way.

    PostgreSQL's simple query protocol runs a message's statements in turn, each (at READ
    COMMITTED) with a snapshot of its own, taken when it starts; the first error ends the
    message. The ``BEGIN`` psycopg would send in a round trip of its own heads the message,
    and psycopg is told to start no transaction (``autocommit``): Django commits or rolls
    back at the block's end, and psycopg's commit and rollback go by the server's
    transaction status.

    Each statement is sent as ``EXECUTE`` of a statement the session has prepared
    (``PREPARE``, once per session and statement, in a round trip of its own before), or
    with its parameters written in when the connection prepares nothing
    (``DB_PREPARED_STATEMENTS=0``, e.g. behind a transaction-pooling PgBouncer). psycopg
    deallocates every prepared statement of a session after a rollback: a message that
    finds one of its statements gone did nothing else in its transaction, so it is rolled
    back and sent again, the session's statements deallocated and its own prepared again.
    """
    if any(not _BIGINT_MIN <= param <= _BIGINT_MAX for _, _, params in statements for param in params):
        return None  # no id: sent as any statement's parameters (psycopg's numeric), they find nothing
    connection.ensure_connection()
    raw = connection.connection
    if not connection.in_atomic_block or raw.autocommit or raw.info.transaction_status != TransactionStatus.IDLE:
        return None
    raw.autocommit = True  # the message's BEGIN starts the transaction
    try:
        try:
            return _send_opening(connection, statements)
        except DatabaseError as error:
            if not isinstance(error.__cause__, psycopg_errors.InvalidSqlStatementName):
                raise
            raw.rollback()
            with connection.cursor() as cursor:  # none left, psycopg's own forgotten by it
                cursor.execute("DEALLOCATE ALL")
            _session_statements.pop(raw, None)
            return _send_opening(connection, statements)
    finally:
        if not raw.closed and raw.info.transaction_status == TransactionStatus.IDLE:
            raw.autocommit = False  # nothing began: the block's next statement has psycopg's BEGIN


_BIGINT_MIN, _BIGINT_MAX = -(2**63), 2**63 - 1


def _send_opening(connection, statements) -> list[list]:
    texts = [_begin(connection.connection), *(_statement(connection, *statement) for statement in statements)]
    with connection.cursor() as cursor:
        cursor.execute("; ".join(texts))
        rows = []
        for _ in statements:
            cursor.nextset()
            rows.append(cursor.fetchall())
    return rows


def _statement(connection, name: str, sql: str, params: Sequence) -> str:
    """``EXECUTE`` of the session's prepared statement (prepared now if need be), or the
    SQL with its parameters written in when the connection prepares nothing."""
    raw = connection.connection
    if raw.prepare_threshold is None:
        return _written(raw, sql, params)
    prepared = _session_statements.setdefault(raw, set())
    if name not in prepared:
        with connection.cursor() as cursor:
            cursor.execute(f"PREPARE {name} AS {_numbered(sql)}")
        prepared.add(name)
    return f"EXECUTE {name}({', '.join(_literal(raw, p) for p in params)})" if params else f"EXECUTE {name}"


def _begin(raw) -> str:
    """The ``BEGIN`` psycopg would send for the connection (its isolation level and modes)."""
    begin = "BEGIN"
    if raw.isolation_level is not None:
        begin += " ISOLATION LEVEL " + IsolationLevel(raw.isolation_level).name.replace("_", " ")
    if raw.read_only is not None:
        begin += " READ ONLY" if raw.read_only else " READ WRITE"
    if raw.deferrable is not None:
        begin += " DEFERRABLE" if raw.deferrable else " NOT DEFERRABLE"
    return begin


def _numbered(sql: str) -> str:
    """psycopg's placeholders as PostgreSQL's own: ``%s`` the next ``$n``, ``%%`` a ``%``."""
    numbers = itertools.count(1)
    return _PLACEHOLDER.sub(lambda match: "%" if match.group() == "%%" else f"${next(numbers)}", sql)


def _written(raw, sql: str, params: Sequence) -> str:
    """The SQL with its parameters written in."""
    values = iter(params)
    return _PLACEHOLDER.sub(lambda match: "%" if match.group() == "%%" else _literal(raw, next(values)), sql)


def _literal(raw, value) -> str:
    """An id as its digits; a text (a JSON document) quoted by libpq, of no type yet (the
    statement's placeholder types it)."""
    if type(value) is int:
        return str(value)
    if type(value) is str:
        return psycopg_sql.Literal(value).as_string(raw)
    raise TypeError(f"a statement sent as text takes ints and texts, not {value!r}")


def _shape(values: dict) -> tuple:
    for name, value in values.items():
        items = value if isinstance(value, (list, tuple)) else [value]
        if not all(type(item) is int for item in items):
            raise TypeError(f"query parameters are ints or lists of ints, not {name}={value!r}")
    return tuple(sorted((name, len(v) if isinstance(v, (list, tuple)) else None) for name, v in values.items()))


def _ordering(build: Callable[..., QuerySet], shape) -> tuple[str, ...]:
    """A part's ordering as field names (``-`` for descending): the query's, else its model's."""
    samples = {name: 0 if length is None else [0] * length for name, length in shape}
    query = build(**samples).query
    keys = tuple(query.order_by) or (tuple(query.get_meta().ordering) if query.default_ordering else ())
    for key in keys:
        if not isinstance(key, str) or "__" in key or key.lstrip("-") == "?":
            raise ValueError(f"Together orders by a model's own fields, not {key!r}")
    return keys


def _field(model: type[Model], name: str):
    return model._meta.pk if name == "pk" else model._meta.get_field(name)


def _json_reader(field) -> Callable:
    """How a column's value, as PostgreSQL writes it in JSON, becomes what the ORM reads."""
    kind = field.get_internal_type()
    if kind in _JSON_READERS and not (kind == "JSONField" and field.decoder is not None):
        return _JSON_READERS[kind]
    raise ValueError(f"Together does not read {kind} fields from JSON ({field})")


def _keep(value):
    return value


def _reading(parse: Callable) -> Callable:
    return lambda value: None if value is None else parse(value)


_JSON_READERS = {
    **dict.fromkeys(
        (
            "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField",
            "PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField", "CharField", "TextField",
            "BooleanField", "ForeignKey", "OneToOneField", "JSONField",
        ),
        _keep,
    ),
    "DateTimeField": _reading(datetime.fromisoformat),  # ISO 8601 in the session's zone, as the C loader reads it
    "DateField": _reading(date.fromisoformat),
}


def _detached(converter, ops) -> object:
    """The converter without the connection it was found on: a backend method by its name."""
    if getattr(converter, "__self__", None) is ops:
        return _BackendConverter(converter.__name__)
    return converter


def _convert(rows, converters, connection) -> list[list]:
    """What ``SQLCompiler.apply_converters`` does, with the backend's converters of ``connection``."""
    bound = [
        (position, [getattr(connection.ops, c.name) if type(c) is _BackendConverter else c for c in convs], expression)
        for position, convs, expression in converters
    ]
    converted = []
    for row in map(list, rows):
        for position, convs, expression in bound:
            value = row[position]
            for converter in convs:
                value = converter(value, expression, connection)
            row[position] = value
        converted.append(row)
    return converted


def json_rows(objs: Sequence[Model], fields: Sequence, connection, *, add: bool) -> str:
    """The ``fields`` of ``objs`` as one JSON array of objects keyed by column: one text
    parameter that PostgreSQL turns back into rows of the table's own column types
    (``jsonb_populate_recordset(NULL::table, …)``). The values are what the ORM sends:
    each field's ``pre_save`` (``add``: for an INSERT, so ``auto_now_add`` is set; else
    ``auto_now`` moves), then ``get_db_prep_save``; for a plain field (``_plain``: an
    integer, text, flag or key) both are the attribute itself, read as it is.

    One parameter, encoded by the C JSON encoder, where an array per column costs the
    driver's (pure Python) array adaptation once per column and statement.
    """
    plain = [(f.column, f.attname) for f in fields if _plain(f)]
    prepared = [f for f in fields if not _plain(f)]
    rows = []
    for obj in objs:
        row = {column: getattr(obj, attname) for column, attname in plain}
        for f in prepared:
            row[f.column] = _json_value(f.get_db_prep_save(f.pre_save(obj, add), connection))
        rows.append(row)
    return json.dumps(rows, separators=(",", ":"))


# Fields whose value the ORM sends as it is: ``pre_save`` is the attribute, and the
# database preparation an identity for an int, a string or a bool (or None). Their values
# go to JSON as they are (a value of another type would not be JSON for them either, and
# PostgreSQL's input of the column refuses it); every other field goes the ORM's way.
_PLAIN_FIELDS = (
    models.AutoField, models.BigAutoField, models.IntegerField, models.BigIntegerField, models.SmallIntegerField,
    models.PositiveIntegerField, models.PositiveBigIntegerField, models.PositiveSmallIntegerField,
    models.CharField, models.TextField, models.BooleanField, models.ForeignKey,
)


def _plain(field) -> bool:
    if type(field) not in _PLAIN_FIELDS:
        return False
    if isinstance(field, models.ForeignKey):  # its column is the target's: plain when the target's is
        return type(field.target_field) in _PLAIN_FIELDS and not isinstance(field.target_field, models.ForeignKey)
    return True


def _json_value(value):
    """A database value as JSON: what PostgreSQL's input of each column type reads back."""
    if value is None or isinstance(value, (int, str, float)):  # the driver's Int8 and kin are ints
        return value
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Jsonb):  # a JSONField's value: stays a JSON document in the column
        return value.obj
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"no JSON form for a database value of type {type(value).__name__}")


_update_sql: dict[tuple, tuple[str, str]] = {}  # (alias, held, (model, fields), …) -> SQL, its name; no connections


def rows_update(
    objs: Sequence[Model], fields: Sequence[str], using: str = DEFAULT_DB_ALIAS, *, with_commit: bool = False
) -> None:
    """Save ``fields`` of several rows of one model in one UPDATE on PostgreSQL.

    ``UPDATE t SET f = v.f, … FROM jsonb_populate_recordset(NULL::t, rows) AS v WHERE
    t.id IN (ids) AND t.id = v.id``, the rows as one JSON parameter (``json_rows``) and
    their keys as parameters of their own, so that PostgreSQL finds them by the primary key
    (it takes the JSON for a hundred rows, and joined on that alone it read every hand and
    seat ever dealt, at every step, until the tables outgrew the guess): one round trip for the
    four seats of a hand, where ``save()`` makes four and ``bulk_update`` spends more
    building its CASE expressions than the round trips cost (4.5 ms against 1.4 ms for four
    rows on the project's machine); for one row, the SQL is built once instead of at every
    ``save()``. No ``pre_save``/``post_save`` signal is sent, so a model with receivers
    must not use it. Elsewhere (SQLite): one ``save(update_fields=…)`` per row.
    ``with_commit``: it may go with the transaction's COMMIT (``rows_save``).
    """
    rows_update_together((objs, fields), using=using, with_commit=with_commit)


def rows_update_together(
    *batches: tuple[Sequence[Model], Sequence[str]], using: str = DEFAULT_DB_ALIAS, with_commit: bool = False
) -> None:
    """``rows_update`` of several models (``(objs, fields)`` each, one model each) in one
    statement: each UPDATE a data-modifying part of one ``WITH``, each checked for its row
    count as ``rows_update`` checks its own."""
    rows_save(update=batches, using=using, with_commit=with_commit)


@dataclass(frozen=True)
class Write:
    """Another module's data-modifying statement, run inside ``rows_save``'s: ``parts`` are
    its ``WITH`` parts (``name AS (…), …``, names of its own), ``result`` one value read from
    them, passed to ``done`` once the statement ran; ``key`` names its SQL (the statement
    is built once per key); ``params`` fill its placeholders, in order."""

    key: object
    parts: str
    result: str
    params: Sequence
    done: Callable[[object], None]


def rows_save(
    *,
    insert: Model | None = None,
    update: Sequence[tuple[Sequence[Model], Sequence[str]]] = (),
    also: Write | None = None,
    using: str = DEFAULT_DB_ALIAS,
    with_commit: bool = False,
) -> None:
    """Insert one new row (its ``pk`` is set) and update several models' rows, in one
    statement on PostgreSQL: each a data-modifying part of one ``WITH``, each UPDATE
    checked for its row count. Elsewhere (SQLite), ``save()`` for each. ``also``: another
    write in the same statement (PostgreSQL only: a ledger posting, ``wallets.services``).

    The new row may be of a model whose rows are updated too (a hand's last bet, dealt
    with the others): the updates never see it (one statement, one snapshot). A unique
    constraint that the new row could meet only after an update must not be written so:
    the parts of one statement run in no set order.

    ``with_commit``: the write may go with its transaction's ``COMMIT`` (``hold_write``),
    one round trip for both, when it is a step's last: it is held until the transaction's
    next statement or its ``COMMIT``, whichever comes first, so every statement still runs
    in the order written. The caller reads nothing it sets (the new row's ``pk``, what
    ``also`` is given) before the transaction commits, and a write that fails (a row
    missing, which PostgreSQL checks then: ``casino_rows_written``; a constraint) fails
    that statement or the commit, and the transaction is rolled back whole.
    """
    batches = tuple((list(objs), tuple(fields)) for objs, fields in update if objs)
    if insert is None and not batches and also is None:
        return
    updated = [type(objs[0]) for objs, _ in batches]
    if len(set(updated)) != len(updated):  # an insert may be of an updated model: its new row is no update's
        raise ValueError("one batch per model: two writes of one table in one statement see the same rows")
    connection = connections[using]
    if connection.vendor != "postgresql":
        if also is not None:
            raise ValueError("a write beside the rows' is PostgreSQL's (one statement)")
        if insert is not None:
            insert.save(force_insert=True, using=using)
        for objs, fields in batches:
            for obj in objs:
                obj.save(update_fields=fields, using=using)
        return
    held = with_commit and _holds(connection)
    columns = [[m._meta.pk, *(m._meta.get_field(name) for name in fields)] for m, (_, fields) in zip(updated, batches)]
    new_columns = [f for f in insert._meta.concrete_fields if not f.primary_key] if insert is not None else []
    key = (
        using,
        held,
        type(insert),
        also.key if also is not None else None,
        *((m, fields, len(objs)) for m, (objs, fields) in zip(updated, batches)),
    )
    compiled = _update_sql.get(key)
    if compiled is None:
        quote = connection.ops.quote_name
        updates = []
        for model, cols, (objs, _) in zip(updated, columns, batches):
            table, names = quote(model._meta.db_table), [quote(f.column) for f in cols]
            assignments = ", ".join(f"{name} = v.{name}" for name in names[1:])
            keys = ", ".join(["%s"] * len(objs))
            updates.append(
                f"UPDATE {table} AS t SET {assignments} "
                f"FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb) AS v "
                f"WHERE t.{names[0]} IN ({keys}) AND t.{names[0]} = v.{names[0]}"
            )
        if insert is None and also is None and len(updates) == 1 and not held:
            sql = updates[0]  # its row count is the cursor's
        else:  # each part's row count (the new row's key, the other write's value) in the one row returned
            parts = [f"u{i} AS ({update} RETURNING 1)" for i, update in enumerate(updates)]
            selects = [
                f"casino_rows_written((SELECT count(*) FROM u{i}), {len(objs)})" if held else f"(SELECT count(*) FROM u{i})"
                for i, (objs, _) in enumerate(batches)
            ]
            if insert is not None:
                table, names, pk = quote(insert._meta.db_table), ", ".join(quote(f.column) for f in new_columns), quote(insert._meta.pk.column)
                parts.append(
                    f"new AS (INSERT INTO {table} ({names}) "
                    f"SELECT {names} FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb) RETURNING {pk})"
                )
                selects.append(f"(SELECT {pk} FROM new)")
            if also is not None:  # its parts first: its placeholders come first
                parts.insert(0, also.parts)
                selects.append(also.result)
            sql = f"WITH {', '.join(parts)} SELECT {', '.join(selects)}"
        compiled = _update_sql[key] = (sql, _statement_name())
    sql, name = compiled
    params = [
        param
        for (objs, _), cols in zip(batches, columns)
        for param in (json_rows(objs, cols, connection, add=False), *(obj.pk for obj in objs))
    ]
    if insert is not None:
        params.append(json_rows([insert], new_columns, connection, add=True))
    if also is not None:
        params[:0] = also.params

    def written(results: list) -> None:
        if also is not None:
            also.done(results.pop())
        if insert is not None:
            insert.pk = results.pop()
            insert._state.adding, insert._state.db = False, using
        missing = sum(len(objs) - count for (objs, _), count in zip(batches, results))
        if missing:  # what save(update_fields=…) says when its row is gone
            raise DatabaseError(f"Save with update_fields did not affect {missing} of the rows.")

    if held:
        hold_write(connection, _Held(name, sql, params, written))
        return
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        single = len(batches) == 1 and insert is None and also is None
        written([cursor.rowcount] if single else list(cursor.fetchone()))


# --- a transaction's last write, sent with its COMMIT -------------------------------------


@dataclass(frozen=True)
class _Held:
    name: str  # its statement's name in a session (``PREPARE``)
    sql: str
    params: list
    written: Callable[[list], None]  # given the statement's one row


def _holds(connection) -> bool:
    """Whether a write may wait for the COMMIT: the connection's backend sends it then
    (``casino.postgres``), and a transaction is open that an atomic block will commit."""
    return getattr(connection, "holds_writes", False) and connection.in_atomic_block and not connection.needs_rollback


def hold_write(connection, write: _Held) -> None:
    """Hold ``write`` until the transaction's next statement (it is sent alone, before it)
    or its ``COMMIT`` (``commit_held``: both in one round trip); a rollback drops it."""
    send_held(connection)  # one held at most: an earlier one goes first
    connection.held_write = write
    # First of the wrappers, so that it sees every statement first; and a caller's
    # ``execute_wrapper()`` block, which removes the list's last, removes its own.
    connection.execute_wrappers.insert(0, _held_first)


def _held_first(execute, sql, params, many, context):
    send_held(context["connection"])
    return execute(sql, params, many, context)


def _take_held(connection) -> _Held | None:
    write = getattr(connection, "held_write", None)
    if write is not None:
        connection.held_write = None
        connection.execute_wrappers.remove(_held_first)
    return write


def send_held(connection) -> None:
    """Send the held write, if any, on its own (a statement is to run after it)."""
    write = _take_held(connection)
    if write is not None:
        with connection.cursor() as cursor:
            cursor.execute(write.sql, write.params)
            write.written(list(cursor.fetchone()))


def drop_held(connection) -> None:
    """The transaction is rolled back (or its connection closed): the held write is not sent."""
    _take_held(connection)


def commit_held(connection) -> bool:
    """Commit with the held write: ``EXECUTE`` of its statement and the ``COMMIT`` in one
    simple-protocol message (the first error ends it: nothing is committed, and the
    transaction is rolled back as any whose commit failed). ``False`` when none is held.

    The statement is the session's, prepared once (``PREPARE``); one the session lost
    since (psycopg deallocates every statement after a rollback, ``opening_message``)
    fails under a savepoint of the message, which is rolled back to, and the message is
    sent again with the statement prepared again. A connection that prepares nothing
    (``DB_PREPARED_STATEMENTS=0``) sends the statement with its parameters written in.
    """
    write = _take_held(connection)
    if write is None:
        return False
    raw = connection.connection
    with connection.cursor() as cursor:
        try:
            row = _send_with_commit(connection, cursor, write)
        except DatabaseError as error:
            if not isinstance(error.__cause__, psycopg_errors.InvalidSqlStatementName):
                raise
            cursor.execute(f"ROLLBACK TO SAVEPOINT {_HELD_SAVEPOINT}")
            cursor.execute("DEALLOCATE ALL")  # none left, psycopg's own forgotten by it
            _session_statements.pop(raw, None)
            row = _send_with_commit(connection, cursor, write)
    write.written(row)
    return True


_HELD_SAVEPOINT = "casino_held"


def _send_with_commit(connection, cursor, write: _Held) -> list:
    statement = _statement(connection, write.name, write.sql, write.params)
    if connection.connection.prepare_threshold is None:  # nothing to lose
        cursor.execute(f"{statement}; COMMIT")
    else:
        cursor.execute(f"SAVEPOINT {_HELD_SAVEPOINT}; {statement}; RELEASE SAVEPOINT {_HELD_SAVEPOINT}; COMMIT")
        cursor.nextset()
    return list(cursor.fetchone())


@contextmanager
def plans_for_the_values(using: str = DEFAULT_DB_ALIAS):
    """Run the queries inside planned for their values, each time, on PostgreSQL.

    The connection prepares a statement it runs twice (``prepare_threshold``), and after
    five runs PostgreSQL may keep one plan for any values. For a search by a text's parts
    (``icontains``: ``LIKE '%…%'``) that plan cannot use a trigram index, which needs the
    text, and reads the whole table. Inside this block (a transaction: ``SET LOCAL``; in
    a transaction already open, to its end) PostgreSQL plans every query for the values
    it is given; elsewhere it does nothing. Evaluate the queries inside it."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic(using=using):
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        yield
