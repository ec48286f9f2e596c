"""A slip signature says whether its signer typed their password again.

A fill's or credit's approval (the cage's issue, the pit's release) may be sent without one, as
the one-step approval was; it is then signed by the signed-in session, and says so. Every
signature written before this column came through ``POST /slips/{id}/sign``, which takes the
password: they are true. A column with a constant default is added without rewriting rows, so
the trigger that keeps signatures from changing (0014) is not fired.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0014_slips"),
    ]

    operations = [
        migrations.AddField(
            model_name="slipsignature",
            name="password_confirmed",
            field=models.BooleanField(
                default=True, help_text="the signer typed their own password again to sign"
            ),
        ),
    ]
