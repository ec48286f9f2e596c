from importlib import import_module

from django.apps import AppConfig

# Models of this app (label "tables", same database tables) declared in the packages whose code
# writes them. Django loads them with tables.models, so tables.models imports none of them and the
# import contracts need no exception for a model registry.
MODEL_MODULES = (
    "tables.audit.models",
    "tables.detection.models",
    "tables.ratings.models",
    "tables.slips.models",
    "tables.evidence.models",
    "tables.drop.models",
    "tables.credit.models",
)


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and games"
    default_auto_field = "django.db.models.BigAutoField"

    def import_models(self) -> None:
        super().import_models()
        for module in MODEL_MODULES:
            import_module(module)

    def ready(self) -> None:
        from tables.audit import checks  # noqa: F401 - registers the Celery/audit system checks
        from tables.evidence import checks as evidence_checks  # noqa: F401 - the signing key's deploy check
