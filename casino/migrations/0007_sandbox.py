"""The sandbox mark: this database's play is made up (the demo's or simulated nights'), so the
demo and the simulation may add more; a database with play and no mark holds real play."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0006_username_skeletons_latin_lookalikes"),
    ]

    operations = [
        migrations.CreateModel(
            name="Sandbox",
            fields=[
                (
                    "id",
                    models.PositiveSmallIntegerField(
                        default=1, editable=False, primary_key=True, serialize=False
                    ),
                ),
                ("marked_by", models.CharField(max_length=40)),
                ("marked_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("id", 1)), name="casino_sandbox_one_row")
                ],
            },
        ),
    ]
