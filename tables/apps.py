from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and hands"

    def ready(self) -> None:
        # The receivers by which a tier's or a pool's rule change reaches the tables.
        from tables.services import config  # noqa: F401

        # A hand's lines on the players' statements, in their words.
        from tables.statement import hand_statement_words
        from wallets.statement import statement_describer_register

        statement_describer_register(hand_statement_words)

        # The tables' deadlines join the registry every sweeper and countdown task serves.
        from tables import timers  # noqa: F401
