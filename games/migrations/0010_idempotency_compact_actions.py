"""Compact idempotency records for actions (issue 14): a record names the Move it applied
(``move_seq``) and keeps only the game row's version and times; the answer is rebuilt from the moves.

Records of actions written before this migration hold the whole answer and no ``move_seq``: they are
deleted. That is safe: an action carries the version it was sent at, so a retry of one of them
answers 409 ``stale_version`` (the game moved on) and applies nothing twice; the client reads the
game again. Records of the other operations keep their whole answer and stay as they are.
"""
from django.db import migrations, models


def old_action_records_delete(apps, schema_editor):
    apps.get_model("games", "IdempotencyRecord").objects.filter(operation="action").delete()


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_idempotency_created'),
    ]

    operations = [
        migrations.RunPython(old_action_records_delete, migrations.RunPython.noop, elidable=True),
        migrations.AddField(
            model_name='idempotencyrecord',
            name='move_seq',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddConstraint(
            model_name='idempotencyrecord',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('operation', 'action'), _negated=True), models.Q(('game__isnull', False), ('move_seq__isnull', False)), _connector='OR'), name='idempotency_action_has_move'),
        ),
    ]
