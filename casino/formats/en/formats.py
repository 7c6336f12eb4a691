"""How English pages write dates and times (the `date` filter's named formats).

DATETIME_FORMAT is the one with seconds (ledgers, audit trails), SHORT_DATETIME_FORMAT the
one without; numbers and money are casino.money's (``€1,234.50``).
"""

DATE_FORMAT = "j F Y"
SHORT_DATE_FORMAT = "Y-m-d"
DATETIME_FORMAT = "j M Y, H:i:s"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
