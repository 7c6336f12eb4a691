from django.apps import AppConfig


class JackpotConfig(AppConfig):
    name = "jackpot"
    verbose_name = "Progressive jackpot"
