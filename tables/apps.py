from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tables.audit import checks  # noqa: F401 - registers the Celery/audit system checks
