"""HTTP plumbing shared by the apps: the error family and its JSON shape, the API's parsers,
input validation, idempotency, the schema."""
