"""Drop boxes (API.md "The drop and the count"): the box under each table that takes the cash
players buy chips with at the table, and the markers the pit issues, until the count team removes
and counts it. A new table ``tables_dropbox`` (one box at a table at a time, a status that carries
its facts) and a nullable ``drop_box`` on slips (the markers in a box). Nothing existing changes:
the new column is empty on every slip written so far.

Like the slips, a box is part of the books: triggers keep it from being deleted, keep what it
says once written (its table, place, number, day) from changing, let ``recorded`` only grow
while the box is at the table, and move its status forward only. A slip's box, once set, stays.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

BOX_KEPT = """
CREATE FUNCTION tables_dropbox_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'a drop box is never deleted (box %)', OLD.number USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.table_id, NEW.sequence, NEW.number, NEW.gaming_day, NEW.placed_at)
       IS DISTINCT FROM (OLD.table_id, OLD.sequence, OLD.number, OLD.gaming_day, OLD.placed_at) THEN
        RAISE EXCEPTION 'drop box % keeps its table, number and day', OLD.number
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.recorded <> OLD.recorded AND (OLD.status <> 'at_table' OR NEW.recorded < OLD.recorded) THEN
        RAISE EXCEPTION 'cash is only ever added to drop box %, and only at its table', OLD.number
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NOT (NEW.status = OLD.status
            OR (OLD.status = 'at_table' AND NEW.status = 'removed')
            OR (OLD.status = 'removed' AND NEW.status = 'counted')) THEN
        RAISE EXCEPTION 'drop box % moves from the table to the count, never back', OLD.number
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status = 'counted' AND ROW(NEW.*) IS DISTINCT FROM ROW(OLD.*) THEN
        RAISE EXCEPTION 'drop box % is counted and says what it said', OLD.number
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER tables_dropbox_kept BEFORE UPDATE OR DELETE ON tables_dropbox
    FOR EACH ROW EXECUTE FUNCTION tables_dropbox_kept();

CREATE FUNCTION tables_slip_drop_box_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.drop_box_id IS NOT NULL AND NEW.drop_box_id IS DISTINCT FROM OLD.drop_box_id THEN
        RAISE EXCEPTION 'slip % stays in the drop box it went into', OLD.number
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER tables_slip_drop_box_kept BEFORE UPDATE OF drop_box_id ON tables_slip
    FOR EACH ROW EXECUTE FUNCTION tables_slip_drop_box_kept();
"""

UNKEEP = """
DROP TRIGGER tables_slip_drop_box_kept ON tables_slip;
DROP FUNCTION tables_slip_drop_box_kept();
DROP TRIGGER tables_dropbox_kept ON tables_dropbox;
DROP FUNCTION tables_dropbox_kept();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0008_count_team_role"),
        ("ledger", "0013_drop_count_marker_purposes"),
        ("tables", "0016_evidence"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DropBox",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("sequence", models.PositiveIntegerField(help_text="the table's boxes in order, from 1")),
                ("number", models.CharField(help_text="e.g. BOX-12-0007", max_length=32, unique=True)),
                (
                    "gaming_day",
                    models.DateField(db_index=True, help_text="the gaming day it went to the table"),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("at_table", "at the table"),
                            ("removed", "waiting for the count"),
                            ("counted", "counted"),
                        ],
                        default="at_table",
                        max_length=10,
                    ),
                ),
                (
                    "recorded",
                    models.BigIntegerField(
                        default=0, help_text="cents of cash recorded into it at the table"
                    ),
                ),
                ("counted", models.BigIntegerField(blank=True, help_text="cents the count found", null=True)),
                (
                    "seal",
                    models.CharField(
                        blank=True, help_text="the seal number it was removed under", max_length=40
                    ),
                ),
                ("placed_at", models.DateTimeField(auto_now_add=True)),
                ("removed_at", models.DateTimeField(blank=True, null=True)),
                ("counted_at", models.DateTimeField(blank=True, null=True)),
                (
                    "counted_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "count_transfer",
                    models.OneToOneField(
                        blank=True,
                        help_text="at the count: its cash from the box to the count room, a variance to over/short",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ledger.transfer",
                    ),
                ),
                (
                    "removed_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "slip",
                    models.OneToOneField(
                        blank=True,
                        help_text="the drop slip its count wrote",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="counted_box",
                        to="tables.slip",
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="drop_boxes",
                        to="tables.table",
                    ),
                ),
            ],
            options={
                "ordering": ["-id"],
            },
        ),
        migrations.AddField(
            model_name="slip",
            name="drop_box",
            field=models.ForeignKey(
                blank=True,
                help_text="the drop box a marker went into (the count lists them); set once, never moved",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="slips",
                to="tables.dropbox",
            ),
        ),
        migrations.AddIndex(
            model_name="dropbox",
            index=models.Index(fields=["status", "gaming_day"], name="tables_dropbox_status_day"),
        ),
        migrations.AddConstraint(
            model_name="dropbox",
            constraint=models.UniqueConstraint(
                fields=("table", "sequence"), name="tables_dropbox_one_per_place"
            ),
        ),
        migrations.AddConstraint(
            model_name="dropbox",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "at_table")),
                fields=("table",),
                name="tables_dropbox_one_at_table",
            ),
        ),
        migrations.AddConstraint(
            model_name="dropbox",
            constraint=models.CheckConstraint(
                condition=models.Q(("sequence__gte", 1)), name="tables_dropbox_sequence_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="dropbox",
            constraint=models.CheckConstraint(
                condition=models.Q(("recorded__gte", 0)), name="tables_dropbox_recorded_not_negative"
            ),
        ),
        migrations.AddConstraint(
            model_name="dropbox",
            constraint=models.CheckConstraint(
                condition=models.Q(("counted__isnull", True), ("counted__gte", 0), _connector="OR"),
                name="tables_dropbox_counted_not_negative",
            ),
        ),
        migrations.AddConstraint(
            model_name="dropbox",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("counted__isnull", True), ("removed_at__isnull", True), ("status", "at_table")),
                    models.Q(
                        ("counted__isnull", True),
                        ("removed_at__isnull", False),
                        ("status", "removed"),
                        models.Q(("seal", ""), _negated=True),
                    ),
                    models.Q(
                        ("counted__isnull", False),
                        ("counted_at__isnull", False),
                        ("removed_at__isnull", False),
                        ("slip__isnull", False),
                        ("status", "counted"),
                        models.Q(("seal", ""), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="tables_dropbox_status_has_its_facts",
            ),
        ),
        migrations.AddConstraint(
            model_name="dropbox",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("removed_at__isnull", True), ("removed_at__gte", models.F("placed_at")), _connector="OR"
                ),
                name="tables_dropbox_removed_after_placed",
            ),
        ),
        migrations.RunSQL(BOX_KEPT, UNKEEP),
    ]
