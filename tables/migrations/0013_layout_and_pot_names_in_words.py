"""Layouts and pots already opened get the names new ones get (issue 44 item 16).

A refusal names an account by its name ("Layout of player 9 at table 2 has $0.00 available"):
a person reads "Wyatt Earp's layout at Faro 1". The ledger keeps a name as opened, so the
accounts opened before are renamed here, from the same functions that name new ones.
"""

from typing import Any

from django.db import migrations

from tables.accounts import LAYOUT, POT, layout_name, pot_account_name, read_code


def name_in_words(apps: Any, schema_editor: Any) -> None:
    Account = apps.get_model("ledger", "Account")
    Table = apps.get_model("tables", "Table")
    Player = apps.get_model("casino", "Player")
    accounts = list(Account.objects.filter(purpose__in=["layout", "pot"]).only("pk", "code", "name"))
    parts = {account.pk: read_code(account.code) for account in accounts}
    tables = dict(Table.objects.values_list("pk", "name"))
    player_ids = {int(p.ref) for p in parts.values() if p.kind == LAYOUT and p.ref.isdigit()}
    players = {
        pk: name or username
        for pk, name, username in Player.objects.filter(pk__in=player_ids).values_list(
            "pk", "user__name", "user__username"
        )
    }
    renamed = []
    for account in accounts:
        kind, table_id, ref = parts[account.pk]
        table = tables.get(table_id)
        if table is None:
            continue
        if kind == LAYOUT and ref.isdigit() and int(ref) in players:
            account.name = layout_name(player=players[int(ref)], table=table)
        elif kind == POT:
            account.name = pot_account_name(name=ref, table=table)
        else:
            continue
        renamed.append(account)
    Account.objects.bulk_update(renamed, ["name"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0012_trayrequest_admin_names"),
        ("ledger", "0001_squashed_0009_ledger"),
        ("casino", "0005_sessions_with_their_user"),
    ]

    operations = [migrations.RunPython(name_in_words, migrations.RunPython.noop)]
