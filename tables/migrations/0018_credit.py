"""Credit play (API.md "Credit and cash compliance"): a player's credit line (with its
markers-receivable ledger account and who set it), the markers drawn on it (each a ``marker``
slip, with what is still outstanding) and their redemptions at the cage. Three new tables;
nothing existing changes.

Like the slips, markers are part of the books: triggers keep a marker saying what it said when
issued (only ``outstanding`` moves, and only down) and keep markers and redemptions from being
deleted or a redemption from being changed.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MARKER_KEPT = """
CREATE FUNCTION tables_marker_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'a marker is never deleted (slip %)', OLD.slip_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.slip_id, NEW.credit_line_id, NEW.player_id, NEW.amount, NEW.issued_by_id, NEW.transfer_id, NEW.at)
       IS DISTINCT FROM (OLD.slip_id, OLD.credit_line_id, OLD.player_id, OLD.amount, OLD.issued_by_id, OLD.transfer_id, OLD.at)
       OR NEW.outstanding > OLD.outstanding THEN
        RAISE EXCEPTION 'marker (slip %) says what it said when issued; only payments lower what is owed', OLD.slip_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER tables_marker_kept BEFORE UPDATE OR DELETE ON tables_marker
    FOR EACH ROW EXECUTE FUNCTION tables_marker_kept();

CREATE FUNCTION tables_markerredemption_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a marker redemption is never changed or deleted (%)', OLD.id
        USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER tables_markerredemption_kept BEFORE UPDATE OR DELETE ON tables_markerredemption
    FOR EACH ROW EXECUTE FUNCTION tables_markerredemption_kept();
"""

MARKER_KEPT_REVERSE = """
DROP TRIGGER tables_markerredemption_kept ON tables_markerredemption;
DROP FUNCTION tables_markerredemption_kept();
DROP TRIGGER tables_marker_kept ON tables_marker;
DROP FUNCTION tables_marker_kept();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0008_count_team_role"),
        ("ledger", "0013_drop_count_marker_purposes"),
        ("tables", "0017_drop_boxes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="CreditLine",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("limit", models.BigIntegerField(help_text="cents")),
                ("set_at", models.DateTimeField()),
                (
                    "player",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="credit_line",
                        to="casino.player",
                    ),
                ),
                (
                    "receivable",
                    models.OneToOneField(
                        help_text="the player's markers-receivable account: its balance is what they owe",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ledger.account",
                    ),
                ),
                (
                    "set_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Marker",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("amount", models.BigIntegerField(help_text="cents, as issued")),
                ("outstanding", models.BigIntegerField(help_text="cents still owed on this marker")),
                ("at", models.DateTimeField(db_index=True)),
                (
                    "credit_line",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="markers",
                        to="tables.creditline",
                    ),
                ),
                (
                    "issued_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="casino.player"
                    ),
                ),
                (
                    "slip",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT, related_name="marker", to="tables.slip"
                    ),
                ),
                (
                    "transfer",
                    models.OneToOneField(
                        help_text="chips from the tray to the player, and the receivable",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="ledger.transfer",
                    ),
                ),
            ],
            options={
                "ordering": ["-id"],
            },
        ),
        migrations.CreateModel(
            name="MarkerRedemption",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("amount", models.BigIntegerField(help_text="cents")),
                ("method", models.CharField(choices=[("cash", "cash"), ("chips", "chips")], max_length=5)),
                ("at", models.DateTimeField(db_index=True)),
                (
                    "by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "marker",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="redemptions",
                        to="tables.marker",
                    ),
                ),
                (
                    "transfer",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="ledger.transfer"
                    ),
                ),
            ],
            options={
                "ordering": ["id"],
            },
        ),
        migrations.AddConstraint(
            model_name="creditline",
            constraint=models.CheckConstraint(
                condition=models.Q(("limit__gte", 0)), name="tables_creditline_limit_not_negative"
            ),
        ),
        migrations.AddIndex(
            model_name="marker",
            index=models.Index(fields=["player", "outstanding"], name="tables_marker_player_owed"),
        ),
        migrations.AddConstraint(
            model_name="marker",
            constraint=models.CheckConstraint(
                condition=models.Q(("amount__gt", 0)), name="tables_marker_amount_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="marker",
            constraint=models.CheckConstraint(
                condition=models.Q(("outstanding__gte", 0), ("outstanding__lte", models.F("amount"))),
                name="tables_marker_outstanding_within_amount",
            ),
        ),
        migrations.AddConstraint(
            model_name="markerredemption",
            constraint=models.CheckConstraint(
                condition=models.Q(("amount__gt", 0)), name="tables_markerredemption_amount_positive"
            ),
        ),
        migrations.RunSQL(MARKER_KEPT, MARKER_KEPT_REVERSE),
    ]
