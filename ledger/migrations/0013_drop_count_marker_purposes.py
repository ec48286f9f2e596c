"""Account purposes for cash the floor takes (a table's drop box, the count room) and for markers
owed by players on credit: only the choices change, nothing in the database."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0012_evidence_hashes"),
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
                    ("drop", "Cash in a drop box"),
                    ("count_room", "Cash in the count room"),
                    ("markers", "Markers receivable"),
                ],
                max_length=20,
            ),
        ),
    ]
