from django.apps import AppConfig


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino"

    def ready(self) -> None:
        from casino import sessions  # noqa: F401  (connects the sign-in receiver)
