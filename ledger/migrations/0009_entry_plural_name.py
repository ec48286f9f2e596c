"""The admin said "Entrys" (issue 21 item 13)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0008_cheaper_commit_checks"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="entry",
            options={"verbose_name_plural": "entries"},
        ),
    ]
