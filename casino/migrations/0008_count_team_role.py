"""The count team's role (API.md "The drop and the count"): the role column's choices and the
check constraint that holds a user to a known role gain ``count_team``."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("casino", "0007_sandbox"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="user",
            name="casino_user_role_valid",
        ),
        migrations.AlterField(
            model_name="user",
            name="role",
            field=models.CharField(
                choices=[
                    ("admin", "Admin"),
                    ("pit_boss", "Pit boss"),
                    ("dealer", "Dealer"),
                    ("cashier", "Cashier"),
                    ("auditor", "Auditor"),
                    ("count_team", "Count team"),
                    ("player", "Player"),
                ],
                default="player",
                max_length=10,
            ),
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "role__in",
                        ["admin", "pit_boss", "dealer", "cashier", "auditor", "count_team", "player"],
                    )
                ),
                name="casino_user_role_valid",
            ),
        ),
    ]
