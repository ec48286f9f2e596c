# Issue 18 item 11: the ratings sweep finds settled rounds with no stats yet (their task was
# never sent, a broker outage) by walking the recently settled ones; this index is that walk.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0009_audit_heartbeat"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="round",
            index=models.Index(
                condition=models.Q(("status", "settled")),
                fields=["ended_at"],
                name="tables_round_settled_ended",
            ),
        ),
    ]
