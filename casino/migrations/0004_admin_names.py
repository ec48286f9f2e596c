"""The admin's names: "API tokens", and the action log's rows as its entries (issue 21 item 13)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0003_rename_auditlog_actionlog"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="actionlog",
            options={"verbose_name": "action log entry", "verbose_name_plural": "action log"},
        ),
        migrations.AlterModelOptions(
            name="apitoken",
            options={"verbose_name": "API token"},
        ),
    ]
