"""Refill every username skeleton: skeletons now fold the Latin lookalikes (I, l and 1; O and 0;
rn and m), so ``player.l`` is found as a lookalike of an existing ``player.1``."""

from typing import Any

from django.db import migrations


def refill_skeletons(apps: Any, schema_editor: Any) -> None:
    from casino.usernames import username_skeleton

    User = apps.get_model("casino", "User")
    changed = []
    for user in User.objects.only("pk", "username", "username_skeleton").iterator(chunk_size=1000):
        skeleton = username_skeleton(user.username)
        if skeleton != user.username_skeleton:
            user.username_skeleton = skeleton
            changed.append(user)
    User.objects.bulk_update(changed, ["username_skeleton"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("casino", "0005_sessions_with_their_user")]

    operations = [migrations.RunPython(refill_skeletons, migrations.RunPython.noop)]
