from django.apps import AppConfig


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from casino import converters  # noqa: F401 - registers the <id:>, <player:> and <day:> path converters
        from casino.api import openapi  # noqa: F401 - registers the OpenAPI auth extension
        from casino.evidence_signals import connect

        connect()
