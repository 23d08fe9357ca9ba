"""Deadlines and timeouts: ending a turn whose time ran out (by the game's timeout policy), the
``deadline_near`` reminder, enforcing deadlines when a game is read, and expiring unanswered
invitations.

A person's turn under a time limit has a ``turn_deadline`` (set by ``common._set_turn``). The
timeout takes the game's row lock like an action, so a move arriving at the deadline and the
timeout never both apply: whichever locks first wins, the other finds the deadline moved (or the
version changed) and does nothing. The beat task ``games.tasks.deadlines_sweep`` queues
``turn_timeout`` for expired turns; without beat the timeout is applied the next time anyone reads
the game (``vacation.game_deadline_enforce``) or acts on it (``actions.action_submit``).
"""
from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from notifications.services import events_create

from .. import notices as game_notices
from ..models import EndReason, Game, GameStatus, TimeoutPolicy
from .ai import _ai_action_play
from .common import (_ai_turn_schedule_if_due, _game_lock, _match_finish, _turn_expired,
                     _version_bump)


def _turn_timeout_apply(*, game: Game) -> str:
    """End the expired turn of the locked ``game`` by its timeout policy; returns ``"forfeit"`` or
    ``"auto_played"``.

    ``forfeit``: the opponent wins the match (end reason ``timeout``). ``auto_play``: the AI
    (``OKGIN_AUTO_PLAY_LEVEL``, from the absent player's view only) plays the whole turn for them,
    each action applied like theirs; when they already had ``auto_play_limit`` consecutive
    auto-played turns the match is forfeited instead. Writes ``timeout`` (and ``match_over``) events.
    """
    seat = game.to_act_seat
    count = game.auto_played(seat)
    if game.timeout_policy == TimeoutPolicy.FORFEIT or count >= game.auto_play_limit:
        _match_finish(game=game, winner_seat=1 - seat, reason=EndReason.TIMEOUT)
        _version_bump(game)
        game.save()
        events_create(notices=game_notices.timeout_notices(game=game, seat=seat, result="forfeit")
                      + game_notices.match_over_notices(game))
        return "forfeit"
    game.auto_played_set(seat, count + 1)
    game.save(update_fields=["auto_played0", "auto_played1"])
    events_create(notices=game_notices.timeout_notices(game=game, seat=seat, result="auto_played"))
    turn = game.turn_started_at
    while game.status == GameStatus.ACTIVE and game.to_act_seat == seat and game.turn_started_at == turn:
        _ai_action_play(game=game, seat=seat, level=settings.OKGIN_AUTO_PLAY_LEVEL, auto_played=True)
    _ai_turn_schedule_if_due(game=game)
    return "auto_played"


def turn_timeout(*, game_id: int, expected_version: int | None = None) -> str | None:
    """End ``game_id``'s turn if its deadline has passed (and, given ``expected_version``, the game
    is still at it): see ``_turn_timeout_apply``. Takes the game's row lock, like an action, so a
    move that arrives at the deadline and the timeout never both apply: whichever locks first wins
    and the other finds the deadline moved (or the version changed) and does nothing.

    Returns ``"forfeit"``, ``"auto_played"``, or None when there was nothing to do.
    """
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        if expected_version is not None and game.version != expected_version:
            return None
        if not _turn_expired(game):
            return None
        return _turn_timeout_apply(game=game)


def deadline_reminder_send(*, game_id: int) -> bool:
    """Write the ``deadline_near`` event of ``game_id``'s current turn if its reminder time has
    passed and it was not sent yet (once per turn: ``turn_reminder_at`` is cleared). Returns True
    if sent."""
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        now = timezone.now()
        if game.status != GameStatus.ACTIVE or game.turn_reminder_at is None or game.turn_reminder_at > now:
            return False
        if game.turn_deadline is None or game.turn_deadline <= now:
            return False  # the timeout itself is due; it says more than a reminder
        game.turn_reminder_at = None
        game.save(update_fields=["turn_reminder_at"])
        events_create(notices=game_notices.deadline_near_notice(
            game, (game.turn_deadline - now).total_seconds()))
        return True


def invitations_expire(*, now=None) -> int:
    """Abort every invitation or open challenge still unanswered at its ``invitation_expires_at``
    (``invitation_expire``); returns how many. Run by the deadlines sweep; an expired invitation
    already cannot be answered (``invitation_expired``), and reading it expires it too
    (``vacation.game_deadline_enforce``)."""
    now = now or timezone.now()
    ids = list(Game.objects.filter(status=GameStatus.INVITED, invitation_expires_at__lte=now)
               .values_list("pk", flat=True)[:500])
    return sum(invitation_expire(game_id=game_id, now=now) for game_id in ids)


def invitation_expire(*, game_id: int, now=None) -> bool:
    """Expire the invitation or open challenge ``game_id`` if it is still unanswered at its
    ``invitation_expires_at`` (``_invitation_expire``, in a transaction of its own, the game
    locked and re-checked, so an acceptance that got there first wins); returns whether it did."""
    with transaction.atomic():
        return _invitation_expire(game=_game_lock(game_id=game_id), now=now or timezone.now())


def _invitation_expire(*, game: Game, now) -> bool:
    """Under the game's lock: if ``game`` is an unanswered invitation or challenge whose
    ``invitation_expires_at`` has passed at ``now``, abort it (status ``aborted``, end reason
    ``expired``, version bumped, ``invitation_expired`` to both players) and return True; else
    change nothing and return False."""
    if game.status != GameStatus.INVITED or not game.invitation_expires_at or game.invitation_expires_at > now:
        return False
    game.status = GameStatus.ABORTED
    game.end_reason = EndReason.INVITATION_EXPIRED
    _version_bump(game)
    game.save()
    events_create(notices=game_notices.invitation_expired_notices(game))
    return True
