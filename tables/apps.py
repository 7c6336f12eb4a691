from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and hands"

    def ready(self) -> None:
        # The tables' deadlines join the registry every sweeper and countdown task serves.
        from tables import timers  # noqa: F401
