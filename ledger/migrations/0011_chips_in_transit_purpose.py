"""An account purpose for chips in transit between the cage and a table (fills and credits on
their slips): only the choices change, nothing in the database."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0010_one_posting_function"),
    ]

    operations = [
        migrations.AlterField(
            model_name="account",
            name="purpose",
            field=models.CharField(
                choices=[
                    ("wallet", "Player wallet"),
                    ("tray", "Table tray"),
                    ("layout", "Chips on a layout"),
                    ("pot", "Player pot"),
                    ("cage", "Cage"),
                    ("house_bank", "House bank"),
                    ("rake_revenue", "Rake revenue"),
                    ("house_win", "House win"),
                    ("suspense", "Suspense"),
                    ("transit", "Chips in transit"),
                ],
                max_length=20,
            ),
        ),
    ]
