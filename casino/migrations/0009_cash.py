"""Cash compliance (API.md "Credit and cash compliance", docs/cash.md): each cash transaction with a
player, the per-player day totals whose row serialises them (the CTR line is checked under its
lock), the identification on file and the refusals for want of it. New tables only; nothing
existing changes. Transfers are referenced (ledger 0013), tables only by id and name."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0008_count_team_role"),
        ("ledger", "0013_drop_count_marker_purposes"),
    ]

    operations = [
        migrations.CreateModel(
            name="CashDay",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("gaming_day", models.DateField()),
                ("cash_in", models.BigIntegerField(default=0)),
                ("cash_out", models.BigIntegerField(default=0)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="casino.player"
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["gaming_day"], name="cash_day_by_day")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("player", "gaming_day"), name="cash_day_one_per_player_day"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("cash_in__gte", 0), ("cash_out__gte", 0)),
                        name="cash_day_not_negative",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="CashRefusal",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("gaming_day", models.DateField()),
                (
                    "direction",
                    models.CharField(choices=[("in", "Cash in"), ("out", "Cash out")], max_length=3),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("cage_buy_in", "Buy-in at the cage"),
                            ("table_buy_in", "Cash buy-in at a table"),
                            ("marker_redemption", "Marker redeemed in cash"),
                            ("cage_cash_out", "Cash-out at the cage"),
                        ],
                        max_length=20,
                    ),
                ),
                ("amount", models.BigIntegerField()),
                (
                    "day_total",
                    models.BigIntegerField(
                        help_text="The direction's day total before the refused transaction"
                    ),
                ),
                ("where", models.CharField(max_length=120)),
                ("table_id", models.BigIntegerField(blank=True, null=True)),
                ("at", models.DateTimeField()),
                (
                    "by",
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
            ],
            options={
                "indexes": [models.Index(fields=["gaming_day", "at"], name="cash_refusal_by_day")],
            },
        ),
        migrations.CreateModel(
            name="CashTransaction",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("gaming_day", models.DateField()),
                (
                    "direction",
                    models.CharField(choices=[("in", "Cash in"), ("out", "Cash out")], max_length=3),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("cage_buy_in", "Buy-in at the cage"),
                            ("table_buy_in", "Cash buy-in at a table"),
                            ("marker_redemption", "Marker redeemed in cash"),
                            ("cage_cash_out", "Cash-out at the cage"),
                        ],
                        max_length=20,
                    ),
                ),
                ("amount", models.BigIntegerField()),
                (
                    "where",
                    models.CharField(help_text='"Cage" or the table\'s name, in words', max_length=120),
                ),
                ("table_id", models.BigIntegerField(blank=True, null=True)),
                ("at", models.DateTimeField()),
                (
                    "mtl",
                    models.BooleanField(default=False, help_text="A line of the multiple-transaction log"),
                ),
                (
                    "by",
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
                    "transfer",
                    models.OneToOneField(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="cash_transaction",
                        to="ledger.transfer",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["player", "gaming_day"], name="cash_by_player_day"),
                    models.Index(fields=["gaming_day", "at"], name="cash_by_day"),
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("amount__gt", 0)), name="cash_amount_positive"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(
                                ("direction", "in"),
                                ("kind__in", ["cage_buy_in", "table_buy_in", "marker_redemption"]),
                            ),
                            models.Q(("direction", "out"), ("kind", "cage_cash_out")),
                            _connector="OR",
                        ),
                        name="cash_kind_direction",
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="Identification",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("drivers_license", "Driver's licence"),
                            ("passport", "Passport"),
                            ("state_id", "State ID card"),
                            ("military_id", "Military ID"),
                            ("alien_registration", "Alien registration card"),
                            ("other", "Other government ID"),
                        ],
                        max_length=20,
                    ),
                ),
                ("number", models.CharField(max_length=60)),
                (
                    "issued_by",
                    models.CharField(blank=True, help_text="Issuing state or country", max_length=80),
                ),
                ("name", models.CharField(max_length=150)),
                ("birth_date", models.DateField()),
                ("address", models.CharField(max_length=300)),
                ("at", models.DateTimeField(auto_now_add=True)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="+", to="casino.player"
                    ),
                ),
                (
                    "recorded_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["player", "-at"], name="identification_newest")],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("number", ""), _negated=True),
                            models.Q(("name", ""), _negated=True),
                            models.Q(("address", ""), _negated=True),
                        ),
                        name="identification_complete",
                    )
                ],
            },
        ),
    ]
