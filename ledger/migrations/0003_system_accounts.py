"""The cage and rake accounts exist from the start, so no service has to race to create them."""

from django.db import migrations


def create_system_accounts(apps, schema_editor):
    Account = apps.get_model("ledger", "Account")
    Account.objects.get_or_create(
        code="cage",
        defaults={"name": "Cage", "kind": "asset", "purpose": "cage", "must_not_go_negative": False},
    )
    Account.objects.get_or_create(
        code="rake", defaults={"name": "Rake revenue", "kind": "revenue", "purpose": "rake_revenue"}
    )


class Migration(migrations.Migration):
    dependencies = [("ledger", "0002_ledger_triggers")]

    operations = [migrations.RunPython(create_system_accounts, migrations.RunPython.noop)]
