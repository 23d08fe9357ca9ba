"""Player names become unique regardless of letter case, and ``ai-`` (any case) is for AI players.

Before the constraint is added, existing rows that would break it are renamed (the oldest keeps
its name): a person whose name starts with ``ai-`` in any case, and every later player whose name
equals an earlier one but for case, becomes ``renamed-<id>``. Their login (the user's username)
is unchanged.
"""
import django.db.models.functions.text
from django.conf import settings
from django.db import migrations, models


def forwards(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    seen = set()
    for player in Player.objects.order_by("id").only("id", "name", "is_ai"):
        key = player.name.lower()
        if key in seen or (not player.is_ai and key.startswith("ai-")):
            player.name = f"renamed-{player.pk}"
            player.save(update_fields=["name"])
            key = player.name
        seen.add(key)


class Migration(migrations.Migration):

    dependencies = [
        ("players", "0002_ai_levels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("name"), name="player_name_unique_ci"
            ),
        ),
    ]
