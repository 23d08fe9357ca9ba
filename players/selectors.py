"""Reads of players (HackSoft style)."""
from __future__ import annotations

from django.db.models import Value
from django.db.models.functions import Lower

from .models import Player


def player_find_by_name(*, name: str) -> Player | None:
    """The player whose name equals ``name`` ignoring letter case (as the database's ``lower()``
    compares them: the unique constraint ``player_name_unique_ci`` uses the same), or None. A
    deleted account's placeholder is not found (it cannot be invited or looked up)."""
    try:
        return Player.objects.alias(name_ci=Lower("name")).get(name_ci=Lower(Value(name)), deleted_at__isnull=True)
    except Player.DoesNotExist:
        return None
