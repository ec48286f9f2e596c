"""A tray request is a fill or a credit, as the floor says it (issue 21 item 13)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0011_roundstat_theo_variance"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="trayrequest",
            options={"verbose_name": "fill or credit", "verbose_name_plural": "fills and credits"},
        ),
    ]
