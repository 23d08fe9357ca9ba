"""Rematches: after a match ends either player may offer one; the other accepts or declines.

One offer per match (``Game.rematch_status``): ``offered`` by a seat, then ``accepted`` (the new
match is ``Game.rematch``) or ``declined`` (final for that match). Only ``rematch_accept`` accepts:
an offer made while the opponent's offer is pending (two players pressing "rematch" at once) is
refused with 409 ``rematch_already_offered`` and writes nothing, so nobody is put into a new match
by a request that asked for something else; the answer names the offering seat, and the client
accepts explicitly. The rematch has the same rules
(variant, target score, options) and time control (``move_time_limit`` or the time bank,
``timeout_policy``, ``auto_play_limit``) with the seats swapped, and starts at once (both players agreed). Against the
AI the AI accepts at once and keeps seat 1. Every check happens under the finished game's row lock
before anything is written, so two racing accepts create one rematch.
"""
from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from notifications.models import EventKind
from notifications.services import Notice, events_create
from okgin_project.errors import Conflict, NotFound
from players.models import Player

from .. import notices as game_notices
from ..models import Game, GameKind, GameStatus, RematchStatus
from .common import _ai_turn_schedule_if_due, _game_lock, _game_players_lock, _match_start, _version_bump


def _finished_seat(game: Game, player: Player) -> int:
    seat = game.seat_of(player)
    if seat is None:
        raise NotFound("No such game.")
    if game.status != GameStatus.FINISHED:
        raise Conflict("A rematch can only follow a finished match.", code="game_not_finished")
    if game.rematch_status == RematchStatus.ACCEPTED:
        raise Conflict("This match already has its rematch.", code="rematch_exists",
                       detail={"rematch_game_id": game.rematch_id})
    if game.rematch_status == RematchStatus.DECLINED:
        raise Conflict("The rematch of this match was declined.", code="rematch_declined")
    if game.player_at(1 - seat).deleted_at is not None:
        raise Conflict("Your opponent deleted their account: there is nobody to play a rematch with.",
                       code="invalid_opponent")
    return seat


def _notice(game: Game, to_seat: int, kind: str) -> Notice:
    return Notice(game.player_at(to_seat), kind, game.pk, {
        "version": game.version, "by": game.player_at(1 - to_seat).name, "rematch_game_id": game.rematch_id})


def _rematch_start(*, game: Game, accepted_by: int) -> Game:
    """Create and start the rematch of the locked, finished ``game``; mark it accepted; write the
    events (``rematch_accepted`` to the offerer, ``your_turn`` to whoever acts first)."""
    if game.kind == GameKind.AI:
        people = (game.player0, game.player1)  # the AI keeps seat 1
    else:
        people = (game.player1, game.player0)  # seats swapped
    new = Game(kind=GameKind.AI if game.kind == GameKind.AI else GameKind.INVITE,
               player0=people[0], player1=people[1], rules=game.rules, variant=game.variant,
               move_time_limit=game.move_time_limit, timeout_policy=game.timeout_policy,
               time_bank_initial=game.time_bank_initial, time_bank_increment=game.time_bank_increment,
               time_bank_max=game.time_bank_max,
               auto_play_limit=game.auto_play_limit, rated=game.rated, version=1, status=GameStatus.ACTIVE)
    new.save()  # the rounds need its id
    _match_start(game=new)
    new.save()
    game.rematch = new
    game.rematch_status = RematchStatus.ACCEPTED
    _version_bump(game)
    game.save()
    offerer = 1 - accepted_by
    events_create(notices=game_notices.start_notices(new) + [_notice(game, offerer, EventKind.REMATCH_ACCEPTED)])
    _ai_turn_schedule_if_due(game=new)
    return new


def rematch_offer(*, game_id: int, player: Player) -> tuple[Game, Game | None]:
    """``player`` offers a rematch of finished match ``game_id``. Against the AI the AI accepts
    at once. Returns ``(game, rematch or None)``.

    Raises ``NotFound`` (not seated), ``Conflict`` ``game_not_finished``, ``rematch_pending`` (your
    offer is waiting), ``rematch_already_offered`` (the opponent's offer is waiting: accept it with
    ``rematch_accept``; ``detail.offered_by`` is their seat), ``rematch_exists``,
    ``rematch_declined``, ``invalid_opponent`` (the opponent deleted their account). Nothing is
    written when it raises.
    """
    with transaction.atomic():
        _game_players_lock(game_id=game_id)  # the AI's acceptance starts the rematch (_rematch_start)
        game = _game_lock(game_id=game_id)
        seat = _finished_seat(game, player)
        if game.rematch_status == RematchStatus.OFFERED:
            if game.rematch_offered_by == seat:
                raise Conflict("Your rematch offer is waiting for an answer.", code="rematch_pending")
            raise Conflict("Your opponent already offered a rematch; accept or decline it.",
                           code="rematch_already_offered", detail={"offered_by": game.rematch_offered_by})
        game.rematch_status = RematchStatus.OFFERED
        game.rematch_offered_by = seat
        if game.player_at(1 - seat).is_ai:
            return game, _rematch_start(game=game, accepted_by=1 - seat)
        _version_bump(game)
        game.save()
        events_create(notices=[_notice(game, 1 - seat, EventKind.REMATCH_OFFERED)])
        return game, None


def _offer_to(game: Game, player: Player) -> int:
    seat = _finished_seat(game, player)
    if game.rematch_status != RematchStatus.OFFERED or game.rematch_offered_by == seat:
        raise Conflict("There is no rematch offer for you to answer.", code="no_rematch_offer")
    return seat


def rematch_accept(*, game_id: int, player: Player) -> Game:
    """Accept the opponent's rematch offer of ``game_id``; returns the new, started match.

    Raises ``NotFound``, ``Conflict`` ``game_not_finished``, ``no_rematch_offer``,
    ``rematch_exists``, ``rematch_declined``, ``invalid_opponent``; nothing is written when it raises.
    """
    with transaction.atomic():
        _game_players_lock(game_id=game_id)  # players, then the game: see common._players_lock
        game = _game_lock(game_id=game_id)
        seat = _offer_to(game, player)
        return _rematch_start(game=game, accepted_by=seat)


def rematch_decline(*, game_id: int, player: Player) -> Game:
    """Decline the opponent's rematch offer of ``game_id`` (final for this match); returns the game.

    Raises like ``rematch_accept``.
    """
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        seat = _offer_to(game, player)
        game.rematch_status = RematchStatus.DECLINED
        _version_bump(game)
        game.save()
        events_create(notices=[_notice(game, 1 - seat, EventKind.REMATCH_DECLINED)])
        return game


def rematch_offers_close(*, player: Player) -> int:
    """Close every pending rematch offer of ``player``'s finished matches, made by or to them, as
    declined (final for that match), so that no rematch can start against ``player`` once its
    account is deleted (``players.accounts.player_delete`` calls this inside its transaction, with
    the player's row locked). The offerer of an offer made to ``player`` is told
    (``rematch_declined``). Returns how many offers were closed.
    """
    pending = Game.objects.filter(Q(player0=player) | Q(player1=player), status=GameStatus.FINISHED,
                                  rematch_status=RematchStatus.OFFERED).values_list("pk", flat=True)
    closed = 0
    for game_id in list(pending):
        game = _game_lock(game_id=game_id)
        if game.rematch_status != RematchStatus.OFFERED:
            continue
        seat = game.seat_of(player)
        game.rematch_status = RematchStatus.DECLINED
        _version_bump(game)
        game.save()
        if game.rematch_offered_by != seat:
            events_create(notices=[_notice(game, 1 - seat, EventKind.REMATCH_DECLINED)])
        closed += 1
    return closed
