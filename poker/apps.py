from django.apps import AppConfig


class PokerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "poker"
    verbose_name = "Poker room"

    def ready(self):
        from poker import services  # noqa: F401 - registers the poker deadlines with casino.live

        # The room's lines on the players' statements, in their words.
        from poker.statement import poker_statement_words
        from wallets.statement import statement_describer_register

        statement_describer_register(poker_statement_words)

        # The chips at its tables, on the players' wallet page.
        from poker.selectors import poker_chips_of_player
        from wallets.holdings import holdings_reader_register

        holdings_reader_register(poker_chips_of_player)
