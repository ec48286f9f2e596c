from importlib import import_module

from django.apps import AppConfig

# Models declared in the domain's packages, loaded with the app's own (casino.models).
MODEL_MODULES = ("casino.cash.models",)


class CasinoConfig(AppConfig):
    name = "casino"
    verbose_name = "Casino floor"
    default_auto_field = "django.db.models.BigAutoField"

    def import_models(self) -> None:
        super().import_models()
        for module in MODEL_MODULES:
            import_module(module)

    def ready(self) -> None:
        from casino import converters  # noqa: F401 - registers the <id:>, <player:> and <day:> path converters
        from casino.api import openapi  # noqa: F401 - registers the OpenAPI auth extension
        from casino.evidence_signals import connect

        connect()
