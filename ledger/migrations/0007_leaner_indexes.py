"""Fewer indexes on the two tables every transfer writes: 19 index entries per transfer become 10.

Under ``perf``, inserting index entries was about 8% of the database's CPU per transfer. These
indexes served no query:

* ``ledger_transfer``: Django's ``varchar_pattern_ops`` (LIKE) indexes on ``key`` and ``kind``
  (both are only compared for equality), ``kind`` and ``gaming_day`` alone (reports select by
  gaming day and kind, which ``ledger_transfer_day_kind`` serves) and ``created_at`` (nothing
  selects transfers by time; statements go through ``ledger_entry_account_time``);
* ``ledger_entry``: ``account_id`` alone (the first column of ``ledger_entry_account_time``),
  and ``hold_id`` for every entry, now a partial index over the entries that capture a hold.

The key keeps its unique index: the constraint is renamed, not rebuilt, and the foreign keys
are left in place (Django would drop and re-validate them to change ``db_index``), so on a
large ledger this migration only drops indexes and builds the small partial one.
"""

import django.db.models.deletion
from django.db import migrations, models

ENTRY_ACCOUNT_INDEX = "ledger_entry_account_id_e9f5e345"
ENTRY_HOLD_INDEX = "ledger_entry_hold_id_159f90a9"


def _drop(index: str, table: str, column: str, ops: str = "") -> migrations.RunSQL:
    """DROP INDEX, and the CREATE INDEX that brings it back."""
    return migrations.RunSQL(
        f'DROP INDEX IF EXISTS "{index}"',
        f'CREATE INDEX "{index}" ON "{table}" ("{column}"{" " + ops if ops else ""})',
    )


class Migration(migrations.Migration):
    dependencies = [("ledger", "0006_post_leg_function")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="entry",
                    name="account",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="ledger.account",
                    ),
                ),
                migrations.AlterField(
                    model_name="entry",
                    name="hold",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="captures",
                        to="ledger.hold",
                    ),
                ),
                migrations.AlterField(
                    model_name="transfer", name="key", field=models.CharField(max_length=200)
                ),
                migrations.AddConstraint(
                    model_name="transfer",
                    constraint=models.UniqueConstraint(fields=("key",), name="ledger_transfer_key_unique"),
                ),
            ],
            database_operations=[
                _drop(ENTRY_ACCOUNT_INDEX, "ledger_entry", "account_id"),
                _drop(ENTRY_HOLD_INDEX, "ledger_entry", "hold_id"),
                _drop("ledger_transfer_key_451b4b01_like", "ledger_transfer", "key", "varchar_pattern_ops"),
                migrations.RunSQL(
                    "ALTER TABLE ledger_transfer RENAME CONSTRAINT ledger_transfer_key_key TO ledger_transfer_key_unique",
                    "ALTER TABLE ledger_transfer RENAME CONSTRAINT ledger_transfer_key_unique TO ledger_transfer_key_key",
                ),
            ],
        ),
        migrations.AlterField(model_name="transfer", name="created_at", field=models.DateTimeField()),
        migrations.AlterField(model_name="transfer", name="gaming_day", field=models.DateField()),
        migrations.AlterField(model_name="transfer", name="kind", field=models.CharField(max_length=40)),
        migrations.AddIndex(
            model_name="entry",
            index=models.Index(
                condition=models.Q(("hold__isnull", False)), fields=["hold"], name="ledger_entry_hold"
            ),
        ),
    ]
