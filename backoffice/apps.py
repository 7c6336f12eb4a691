from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    name = "backoffice"
    verbose_name = "Back office (cashier, manager, auditor)"
