from django.apps import AppConfig


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino"

    def ready(self) -> None:
        from django.urls import register_converter

        from casino import i18n  # noqa: F401  (connects the sign-in receivers)
        from casino.access import sessions  # noqa: F401  (connects the sign-in receivers)
        from casino.http.validation import IdConverter

        register_converter(IdConverter, "id")  # <id:…> in URLs: an id that fits the database
