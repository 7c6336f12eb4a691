"""How German pages write dates and times: ``04.12.2026 17:30`` (with seconds for ledgers
and audit trails); numbers and money are casino.money's (``1.234,50 €``)."""

DATE_FORMAT = "j. F Y"
SHORT_DATE_FORMAT = "d.m.Y"
DATETIME_FORMAT = "d.m.Y H:i:s"
SHORT_DATETIME_FORMAT = "d.m.Y H:i"
TIME_FORMAT = "H:i"
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "."
NUMBER_GROUPING = 3
