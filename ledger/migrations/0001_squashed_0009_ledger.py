"""The ledger's schema as migrations 0001-0009 left it, in one migration.

The tables and their constraints; the invariants the database enforces whatever code (or raw
SQL) writes to the ledger:

* every transfer's entries sum to zero, and a transfer has entries: deferred constraint
  triggers, checked at COMMIT, so a transfer and its entries are written together (each check
  reads the transfer's entries in a loop, a plain index scan, and adds them up);
* transfers and entries are append-only: UPDATE and DELETE raise;
* a hold, once posted, voided or expired, never changes again; its amount never changes;
* no transfer can be dated into a closed gaming day, though a replay of a key already posted
  is let through (``post_transfer`` claims its key with ``INSERT … ON CONFLICT (key) DO
  NOTHING``; BEFORE INSERT triggers fire before the conflict is found, and the INSERT then does
  nothing);

and the cage and rake accounts, so no service has to race to create them.

The posting function is not here: migration 0010 creates it (and drops the old ones), so its
text is written once. A database migrated with the old files has all of 0001-0009 applied and
takes this migration as applied (``replaces``); a new database runs it, then 0010.
"""

import django.db.models.deletion
import django.db.models.expressions
from django.db import migrations, models

INVARIANTS = r"""
CREATE FUNCTION ledger_check_transfer_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tid bigint;
    total bigint := 0;
    n integer := 0;
    amount bigint;
BEGIN
    IF TG_TABLE_NAME = 'ledger_entry' THEN
        tid := NEW.transfer_id;
    ELSE
        tid := NEW.id;
    END IF;
    -- bigint arithmetic raises on overflow, so no sum can wrap around to zero.
    FOR amount IN SELECT e.amount FROM ledger_entry AS e WHERE e.transfer_id = tid LOOP
        total := total + amount;
        n := n + 1;
    END LOOP;
    IF n < 2 THEN
        RAISE EXCEPTION 'ledger_unbalanced: transfer % has % entries; a transfer needs at least two', tid, n
            USING ERRCODE = 'check_violation';
    END IF;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger_unbalanced: entries of transfer % sum to %, not 0', tid, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER ledger_entry_balanced
    AFTER INSERT ON ledger_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_transfer_balanced();

CREATE CONSTRAINT TRIGGER ledger_transfer_balanced
    AFTER INSERT ON ledger_transfer
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_transfer_balanced();

CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ledger_append_only: % on % is not allowed; post a reversing transfer instead',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER ledger_transfer_append_only
    BEFORE UPDATE OR DELETE ON ledger_transfer
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE TRIGGER ledger_entry_append_only
    BEFORE UPDATE OR DELETE ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE FUNCTION ledger_hold_final() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'ledger_append_only: holds are never deleted' USING ERRCODE = 'restrict_violation';
    END IF;
    IF OLD.status <> 'pending' THEN
        RAISE EXCEPTION 'ledger_hold_final: hold % is already %', OLD.id, OLD.status
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.amount <> OLD.amount OR NEW.account_id <> OLD.account_id OR NEW.key <> OLD.key
       OR NEW.captured < OLD.captured THEN
        RAISE EXCEPTION 'ledger_hold_final: a hold''s amount, account and key never change, and captures only grow'
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER ledger_hold_final
    BEFORE UPDATE OR DELETE ON ledger_hold
    FOR EACH ROW EXECUTE FUNCTION ledger_hold_final();

CREATE FUNCTION ledger_refuse_closed_day() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM ledger_closedgamingday WHERE day = NEW.gaming_day;
    -- A replay of a key already posted is let through: the INSERT then does nothing (0004).
    IF FOUND AND NOT EXISTS (SELECT 1 FROM ledger_transfer WHERE key = NEW.key) THEN
        RAISE EXCEPTION 'gaming_day_closed: gaming day % is closed', NEW.gaming_day
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER ledger_transfer_open_day
    BEFORE INSERT ON ledger_transfer
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_closed_day();
"""

DROP_INVARIANTS = r"""
DROP TRIGGER IF EXISTS ledger_transfer_open_day ON ledger_transfer;
DROP FUNCTION IF EXISTS ledger_refuse_closed_day();
DROP TRIGGER IF EXISTS ledger_hold_final ON ledger_hold;
DROP FUNCTION IF EXISTS ledger_hold_final();
DROP TRIGGER IF EXISTS ledger_entry_append_only ON ledger_entry;
DROP TRIGGER IF EXISTS ledger_transfer_append_only ON ledger_transfer;
DROP FUNCTION IF EXISTS ledger_refuse_change();
DROP TRIGGER IF EXISTS ledger_transfer_balanced ON ledger_transfer;
DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_check_transfer_balanced();
"""


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
    initial = True

    replaces = [
        ("ledger", "0001_initial"),
        ("ledger", "0002_ledger_triggers"),
        ("ledger", "0003_system_accounts"),
        ("ledger", "0004_closed_day_allows_replays"),
        ("ledger", "0005_post_transfer_function"),
        ("ledger", "0006_post_leg_function"),
        ("ledger", "0007_leaner_indexes"),
        ("ledger", "0008_cheaper_commit_checks"),
        ("ledger", "0009_entry_plural_name"),
    ]

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="ClosedGamingDay",
            fields=[
                ("day", models.DateField(primary_key=True, serialize=False)),
                ("closed_at", models.DateTimeField(auto_now_add=True)),
                ("closed_by", models.CharField(blank=True, max_length=150)),
            ],
        ),
        migrations.CreateModel(
            name="Account",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("code", models.CharField(max_length=100, unique=True)),
                ("name", models.CharField(blank=True, max_length=200)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("asset", "Asset"),
                            ("liability", "Liability"),
                            ("equity", "Equity"),
                            ("revenue", "Revenue"),
                            ("expense", "Expense"),
                        ],
                        max_length=16,
                    ),
                ),
                (
                    "purpose",
                    models.CharField(
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
                        ],
                        max_length=20,
                    ),
                ),
                ("holder", models.CharField(blank=True, db_index=True, max_length=100)),
                ("must_not_go_negative", models.BooleanField(default=True)),
                ("debits_posted", models.BigIntegerField(default=0)),
                ("credits_posted", models.BigIntegerField(default=0)),
                ("balance", models.BigIntegerField(default=0)),
                ("held", models.BigIntegerField(default=0, help_text="Cents reserved by pending holds.")),
                ("version", models.BigIntegerField(default=0)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            ("must_not_go_negative", False), ("balance__gte", 0), _connector="OR"
                        ),
                        name="ledger_account_balance_not_negative",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("must_not_go_negative", False),
                            ("balance__gte", models.F("held")),
                            _connector="OR",
                        ),
                        name="ledger_account_holds_covered",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("held__gte", 0)), name="ledger_account_held_not_negative"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("debits_posted__gte", 0), ("credits_posted__gte", 0)),
                        name="ledger_account_totals_not_negative",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            (
                                "balance",
                                django.db.models.expressions.CombinedExpression(
                                    models.F("credits_posted"), "-", models.F("debits_posted")
                                ),
                            )
                        ),
                        name="ledger_account_balance_is_credits_minus_debits",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="Hold",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=200, unique=True)),
                ("amount", models.BigIntegerField()),
                ("captured", models.BigIntegerField(default=0)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("posted", "Posted"),
                            ("voided", "Voided"),
                            ("expired", "Expired"),
                        ],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("memo", models.CharField(blank=True, max_length=300)),
                ("meta", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("expires_at", models.DateTimeField(blank=True, null=True)),
                ("resolved_at", models.DateTimeField(blank=True, null=True)),
                (
                    "account",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="holds", to="ledger.account"
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Transfer",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=200)),
                ("kind", models.CharField(max_length=40)),
                ("memo", models.CharField(blank=True, max_length=300)),
                ("created_at", models.DateTimeField()),
                ("gaming_day", models.DateField()),
                ("meta", models.JSONField(blank=True, default=dict)),
                (
                    "fingerprint",
                    models.CharField(help_text="SHA-256 of the content, for replays.", max_length=64),
                ),
                (
                    "reverses",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="reversed_by",
                        to="ledger.transfer",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Entry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("leg", models.PositiveSmallIntegerField()),
                ("amount", models.BigIntegerField()),
                ("balance_after", models.BigIntegerField()),
                ("created_at", models.DateTimeField()),
                (
                    "account",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="ledger.account",
                    ),
                ),
                (
                    "hold",
                    models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="captures",
                        to="ledger.hold",
                    ),
                ),
                (
                    "transfer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="entries",
                        to="ledger.transfer",
                    ),
                ),
            ],
            options={"verbose_name_plural": "entries"},
        ),
        migrations.AddIndex(
            model_name="hold",
            index=models.Index(fields=["status", "expires_at"], name="ledger_hold_expiry"),
        ),
        migrations.AddConstraint(
            model_name="hold",
            constraint=models.CheckConstraint(
                condition=models.Q(("amount__gt", 0)), name="ledger_hold_amount_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="hold",
            constraint=models.CheckConstraint(
                condition=models.Q(("captured__gte", 0), ("captured__lte", models.F("amount"))),
                name="ledger_hold_captured_within_amount",
            ),
        ),
        migrations.AddIndex(
            model_name="transfer",
            index=models.Index(fields=["gaming_day", "kind"], name="ledger_transfer_day_kind"),
        ),
        migrations.AddIndex(
            model_name="entry",
            index=models.Index(fields=["account", "-created_at", "-id"], name="ledger_entry_account_time"),
        ),
        migrations.AddConstraint(
            model_name="entry",
            constraint=models.CheckConstraint(
                condition=models.Q(("amount", 0), _negated=True), name="ledger_entry_amount_not_zero"
            ),
        ),
        migrations.AddConstraint(
            model_name="transfer",
            constraint=models.UniqueConstraint(fields=("key",), name="ledger_transfer_key_unique"),
        ),
        migrations.AddIndex(
            model_name="entry",
            index=models.Index(
                condition=models.Q(("hold__isnull", False)), fields=["hold"], name="ledger_entry_hold"
            ),
        ),
        migrations.RunSQL(INVARIANTS, DROP_INVARIANTS),
        migrations.RunPython(create_system_accounts, migrations.RunPython.noop),
    ]
