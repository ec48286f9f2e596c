# Issue 18 item 13: the audit's send is recorded (sent_at, so a sweep re-sends what the broker
# never took), a running audit writes a heartbeat, and the sweep counts the restarts it made.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0008_corrections"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditreport",
            name="sent_at",
            field=models.DateTimeField(
                blank=True,
                help_text="when the broker took this task_id's message; empty: the sweep sends it",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="auditreport",
            name="heartbeat_at",
            field=models.DateTimeField(
                blank=True,
                help_text="a running audit's last sign of life (AUDIT_HEARTBEAT_SECONDS)",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="auditreport",
            name="restarts",
            field=models.PositiveIntegerField(
                default=0, help_text="runs of this request the sweep restarted after their worker died"
            ),
        ),
    ]
