"""Each user's username skeleton (casino.usernames), so a lookalike of a name is found by index."""

from typing import Any

from django.db import migrations, models


def fill_skeletons(apps: Any, schema_editor: Any) -> None:
    from casino.usernames import username_skeleton

    User = apps.get_model("casino", "User")
    users = list(User.objects.only("pk", "username"))
    for user in users:
        user.username_skeleton = username_skeleton(user.username)
    User.objects.bulk_update(users, ["username_skeleton"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("casino", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.CharField(default="", editable=False, max_length=600),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="user",
            index=models.Index(fields=["username_skeleton"], name="casino_user_skeleton"),
        ),
    ]
