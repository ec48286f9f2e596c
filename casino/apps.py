from django.apps import AppConfig


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from casino import converters  # noqa: F401 - registers the <id:>, <player:> and <day:> path converters
        from casino.api import openapi  # noqa: F401 - registers the OpenAPI auth extension
        from casino.prepared_statements import keep_over_rollbacks

        # Every new PostgreSQL connection, web or Celery, keeps its prepared statements over rollbacks.
        connection_created.connect(keep_over_rollbacks, dispatch_uid="casino.keep_over_rollbacks")
