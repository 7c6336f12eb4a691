"""Plain helpers the apps' data code shares: a row's public version, and rows as JSON (read
from and written by the SQL functions of a step's hot path)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from django.db import DEFAULT_DB_ALIAS, DatabaseError, models


class Versioned:
    """A model whose public ``version`` moves with each public change (a hand: the pages
    ask for a snapshot when they see a gap). ``save_version`` writes a change with one
    ``UPDATE … WHERE version = <the version read>``: under the row's lock it always finds
    its row; a write that finds none is a bug of the lock order, refused loudly.

    The version read is kept when the row is loaded (``from_db``, as Django's documentation
    shows for a model that remembers its loaded values) or saved."""

    version_read: int | None = None

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance.version_read = instance.__dict__.get("version")
        return instance

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        self.version_read = self.version

    def save_version(self, *fields: str) -> None:
        """Save ``version`` and ``fields`` (each as ``save()`` would: ``auto_now`` set)."""
        if self.version_read is None:
            raise DatabaseError(f"{type(self).__name__} {self.pk} was not read from the database")
        meta = self._meta
        values = {name: meta.get_field(name).pre_save(self, False) for name in ("version", *fields)}
        saved = type(self)._default_manager.filter(pk=self.pk, version=self.version_read).update(**values)
        if saved != 1:
            raise DatabaseError(f"{type(self).__name__} {self.pk} is no longer at version {self.version_read}")
        self.version_read = self.version


def model_from_json(model: type[models.Model], row: dict | None, using: str = DEFAULT_DB_ALIAS) -> models.Model | None:
    """An instance of ``model`` from its row as a JSON object of its columns (PostgreSQL's
    ``to_json(row)``), as the ORM builds one it read (``from_db``). JSON gives numbers,
    text, booleans and JSON columns as they are; timestamps and dates come as ISO text,
    parsed here. Numbers with a fraction must have been parsed as ``Decimal``
    (``json.loads(…, parse_float=Decimal)``)."""
    if row is None:
        return None
    columns = _columns.get(model)
    if columns is None:
        columns = _columns[model] = [(f.attname, f.column, _PARSERS.get(type(f))) for f in model._meta.concrete_fields]
        for field, (attname, column, parse) in zip(model._meta.concrete_fields, columns):
            if parse is None and not isinstance(field, _AS_JSON_GIVES):
                raise TypeError(f"{model.__name__}.{attname}: no JSON reader for {type(field).__name__}")
    values = []
    for _, column, parse in columns:
        value = row[column]
        values.append(parse(value) if parse is not None and value is not None else value)
    return model.from_db(using, [attname for attname, _, _ in columns], values)


def model_to_json(obj: models.Model, names, *, add: bool = False) -> dict:
    """``names`` of ``obj`` (its fields' names) as a JSON object of their columns, each value
    as ``save()`` would write it (``pre_save``: an ``auto_now`` field moves; ``add``: an
    insert's ``auto_now_add`` too); PostgreSQL reads it back with ``jsonb_populate_record``."""
    fields = obj._meta
    row = {}
    for name in names:
        field = fields.get_field(name)
        value = field.pre_save(obj, add)
        row[field.column] = (
            value.isoformat()
            if isinstance(value, (date, datetime))
            else str(value)
            if isinstance(value, Decimal)
            else value
        )
    return row


_PARSERS = {models.DateTimeField: datetime.fromisoformat, models.DateField: date.fromisoformat}
# Fields whose value JSON gives as Python holds it: numbers, text, booleans, JSON, keys.
_AS_JSON_GIVES = (
    models.IntegerField,
    models.CharField,
    models.TextField,
    models.BooleanField,
    models.JSONField,
    models.DecimalField,
    models.ForeignKey,
    models.AutoField,
)
_columns: dict = {}
