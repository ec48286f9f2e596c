# Issue 19 item 3: the round's figures carry the spread of win about theo, so the audit's band
# and the hold detector read it from RoundStat instead of replaying the bets themselves.
# Rounds rated before this migration read 0 until ``rebuild_ratings`` runs.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0010_round_settled_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="roundstat",
            name="theo_variance",
            field=models.BigIntegerField(
                default=0,
                help_text="cents²: Σ stake² x each decided Faro bet's variance, the spread of win about theo",
            ),
        ),
    ]
