from importlib import import_module

from django.apps import AppConfig

# Packages whose models belong to this app (label "tables") but live beside the code that uses
# them. Loaded with the app's own models, so tables.models need not import the packages above it.
MODEL_MODULES = ("tables.slips.models", "tables.evidence.models")


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
