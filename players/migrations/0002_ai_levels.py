"""AI levels become exactly random / simple / strong (issue 4).

Old AI players are mapped: easy -> simple, medium -> strong, hard -> strong. When the target AI
player already exists, the old one's games are moved to it and the old row is deleted.
"""
from django.db import migrations, models

OLD_TO_NEW = {"easy": "simple", "medium": "strong", "hard": "strong"}


def forwards(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    Game = apps.get_model("games", "Game")
    for old, new in OLD_TO_NEW.items():
        old_player = Player.objects.filter(is_ai=True, ai_level=old).first()
        if old_player is None:
            continue
        target = Player.objects.filter(is_ai=True, ai_level=new).first()
        if target is None:
            old_player.ai_level = new
            old_player.name = f"ai-{new}"
            old_player.save(update_fields=["ai_level", "name"])
            continue
        Game.objects.filter(player0=old_player).update(player0=target)
        Game.objects.filter(player1=old_player).update(player1=target)
        old_player.delete()


class Migration(migrations.Migration):

    dependencies = [
        ("players", "0001_initial"),
        ("games", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="player",
            name="ai_level",
            field=models.CharField(
                blank=True,
                choices=[
                    ("random", "random legal actions"),
                    ("simple", "simple heuristics"),
                    ("strong", "strong (search within a time budget)"),
                ],
                default="",
                max_length=32,
            ),
        ),
    ]
