from django.apps import AppConfig


class PokerConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "poker"
    verbose_name = "Poker room"

    def ready(self):
        from poker import services  # noqa: F401 - registers the poker deadlines with casino.live
