from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Chip ledger"
    default_auto_field = "django.db.models.BigAutoField"
