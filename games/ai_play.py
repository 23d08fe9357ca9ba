"""Where the AI's turn is dispatched once a transaction that made it the AI's turn commits.

Embedded default / today: the AI plays in-process right away. The async issue replaces the body of
``ai_turn_dispatch`` with queueing a Celery task that calls ``games.services.ai_turn_play`` (which
checks ``expected_version``, so a duplicate delivery is a no-op).
"""
import logging

logger = logging.getLogger(__name__)


def ai_turn_dispatch(*, game_id: int, expected_version: int) -> None:
    """Run the AI's turn for ``game_id`` at ``expected_version`` (in-process for now)."""
    from .services import ai_turn_play

    ai_turn_play(game_id=game_id, expected_version=expected_version)
