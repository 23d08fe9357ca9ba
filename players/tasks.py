"""Celery tasks of the players app (see ``okgin_project.celery``)."""
from __future__ import annotations

from django.core.management import call_command

from okgin_project.celery import SweepTask, app


@app.task(base=SweepTask, name="players.expired_tokens_flush", soft_time_limit=300, time_limit=330)
def expired_tokens_flush() -> int:
    """Delete expired refresh tokens from simplejwt's outstanding and blacklist tables (beat, daily:
    rotation writes one row per refresh). Returns how many outstanding tokens were deleted (their
    blacklist rows go with them). Single-flight (``SweepTask``): None when another run is in
    progress."""
    from rest_framework_simplejwt.token_blacklist.models import OutstandingToken

    before = OutstandingToken.objects.count()
    call_command("flushexpiredtokens")
    return before - OutstandingToken.objects.count()
