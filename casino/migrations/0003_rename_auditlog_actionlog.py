"""AuditLog becomes ActionLog: "audit" means the end-of-night audit only.

The table keeps its name (``casino_auditlog``, pinned by ``Meta.db_table``), so the rename runs
no DDL, locks nothing and leaves outside reports on the table working: pinning the name first
makes RenameModel's table rename a no-op (old name == new name). Django renames the content
type itself but not the permissions, so grants of ``view_auditlog`` and the like follow here.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

ACTIONS = ("add", "change", "delete", "view")


def _rename_permissions(apps: StateApps, old: str, new: str, label: str) -> None:
    permission = apps.get_model("auth", "Permission")
    for action in ACTIONS:
        permission.objects.filter(content_type__app_label="casino", codename=f"{action}_{old}").update(
            codename=f"{action}_{new}", name=f"Can {action} {label}"
        )


def forwards(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _rename_permissions(apps, "auditlog", "actionlog", "action log")


def backwards(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    _rename_permissions(apps, "actionlog", "auditlog", "audit log")


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("casino", "0002_user_username_skeleton"),
    ]

    operations = [
        migrations.AlterModelTable(name="auditlog", table="casino_auditlog"),
        migrations.RenameModel(old_name="AuditLog", new_name="ActionLog"),
        migrations.RunPython(forwards, backwards),
    ]
