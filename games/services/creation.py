"""Creating and joining games: ``game_create`` (against the AI, an invitation to a named player,
or an open challenge in the lobby) and the answers to an invitation or challenge
(``invitation_accept``, ``invitation_decline``, ``invitation_abort`` by its creator).

A game against the AI starts at once; otherwise it waits in status ``invited`` until accepted
(the match starts: first dealer R3.1, deal R4), declined, aborted, or expired
(``deadlines.invitations_expire``). Staff may preset the deck order and the first dealer.
"""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import engine
from notifications.models import EventKind
from notifications.services import events_create
from okgin_project.errors import Conflict, Forbidden, NotFound, ServiceError, field_errors
from players.models import Player
from players.selectors import player_find_by_name
from players.services import AI_LEVEL_DEFAULT, player_ai_get_or_create

from .. import notices as game_notices
from ..models import Game, GameKind, GameStatus, TimeoutPolicy
from .common import (_ai_turn_schedule_if_due, _game_lock, _game_players_lock, _match_start, _players_lock,
                     _version_bump)
from .deadlines import _invitation_expire


def _validate_decks(decks: list | None) -> list[list[str]]:
    out = []
    for deck in decks or []:
        try:
            out.append([c.code for c in engine.validate_deck(deck)])
        except engine.CardParseError as exc:
            raise ServiceError(exc.message, code="bad_deck", rule=exc.rule) from None
    return out


def game_create(
    *,
    creator: Player,
    kind: str,
    opponent_name: str | None = None,
    ai_level: str = AI_LEVEL_DEFAULT,
    rules: dict | None = None,
    move_time_limit: int | None = None,
    time_bank: dict | None = None,
    timeout_policy: str = TimeoutPolicy.FORFEIT,
    auto_play_limit: int | None = None,
    invitation_ttl: int | None = None,
    decks: list | None = None,
    first_dealer: int | None = None,
    allow_preset_deal: bool = False,
    rated: bool | None = None,
) -> Game:
    """Create a match with ``creator`` in seat 0.

    ``kind``: ``"ai"`` (starts at once against the AI of ``ai_level``), ``"invite"`` (the player
    named ``opponent_name`` accepts or declines before ``invitation_ttl`` seconds) or ``"open"``
    (an open challenge any other player may accept from the lobby). ``rules``: a RuleSet dict
    (RULES.md options). ``move_time_limit``: seconds per turn (``OKGIN_MOVE_TIME_LIMIT_MIN`` to
    ``_MAX``: a minute to 14 days) or None; ``timeout_policy``: ``forfeit`` or ``auto_play`` (at most
    ``auto_play_limit`` consecutive auto-played turns, default ``OKGIN_AUTO_PLAY_LIMIT_DEFAULT``, then
    the next timeout forfeits). ``time_bank``: instead of ``move_time_limit``, a Fischer-style bank
    ``{"initial", "increment", "max"}`` in seconds (``common._set_turn``; ``docs/correspondence.md``;
    both: ``ServiceError`` 400 ``time_control_conflict``; out of range: 400 ``bad_time_control``).
    ``decks`` (52 card codes
    each, used for rounds 1, 2, ...) and ``first_dealer`` (0/1) are for staff only
    (``allow_preset_deal``). Raises ``ServiceError`` (``bad_rules``, ``bad_deck``, ``bad_ai_level``),
    ``NotFound`` (no such opponent), ``Forbidden`` (``staff_only``), ``Conflict`` (``invalid_opponent``),
    ``ServiceError`` ``validation_error`` (time limit or policy out of range; ``rated`` for a game
    against the AI or on staff decks). ``rated``: the result updates both players' Glicko-2
    ratings (``games.ratings``); default: yes between people on shuffled decks, never against the AI.
    """
    with transaction.atomic():
        if (decks or first_dealer is not None) and not allow_preset_deal:
            raise Forbidden("Only staff may choose the deck order or the first dealer.", code="staff_only")
        try:
            ruleset = engine.RuleSet.from_dict(rules or {})
        except engine.RuleSetError as exc:
            detail = field_errors({"rules": {exc.field: exc.message}}) if exc.field else None
            raise ServiceError(exc.message, code="bad_rules", rule=exc.rule, detail=detail) from None
        if kind not in GameKind.values:
            raise ServiceError("Unknown kind of game.", code="validation_error")
        if first_dealer is not None and first_dealer not in (0, 1):
            raise ServiceError("first_dealer must be 0 or 1.", code="validation_error")
        if move_time_limit is not None and not (
            settings.OKGIN_MOVE_TIME_LIMIT_MIN <= move_time_limit <= settings.OKGIN_MOVE_TIME_LIMIT_MAX
        ):
            raise ServiceError("move_time_limit must be from 60 seconds to 14 days.", code="validation_error")
        if time_bank is not None:
            if move_time_limit is not None:
                raise ServiceError("Choose either move_time_limit or time_bank, not both.",
                                   code="time_control_conflict")
            time_bank = {"max": time_bank["initial"], **time_bank}
            if set(time_bank) != {"initial", "increment", "max"} or not (
                    settings.OKGIN_MOVE_TIME_LIMIT_MIN <= time_bank["initial"] <= time_bank["max"]
                    <= settings.OKGIN_TIME_BANK_MAX_SECONDS
                    and 0 <= time_bank["increment"] <= settings.OKGIN_MOVE_TIME_LIMIT_MAX):
                raise ServiceError("Invalid time bank.", code="bad_time_control")
        if timeout_policy not in TimeoutPolicy.values:
            raise ServiceError("Unknown timeout_policy.", code="validation_error")
        if auto_play_limit is None:
            auto_play_limit = settings.OKGIN_AUTO_PLAY_LIMIT_DEFAULT
        if not 0 <= auto_play_limit <= 100:
            raise ServiceError("auto_play_limit must be from 0 to 100.", code="validation_error")
        can_be_rated = kind != GameKind.AI and not decks
        if rated and not can_be_rated:
            raise ServiceError("Games against the AI or on staff decks are unrated.", code="validation_error")
        game = Game(
            rated=can_be_rated if rated is None else rated,
            kind=kind,
            player0=creator,
            rules=ruleset.to_dict(),
            variant=ruleset.variant,
            move_time_limit=move_time_limit,
            time_bank_initial=time_bank and time_bank["initial"],
            time_bank_increment=time_bank and time_bank["increment"],
            time_bank_max=time_bank and time_bank["max"],
            timeout_policy=timeout_policy,
            auto_play_limit=auto_play_limit,
            preset_decks=_validate_decks(decks),
            first_dealer=first_dealer,
        )
        game.version = 1
        if kind == GameKind.AI:
            game.player0 = _players_lock(player_ids=[creator.pk])[creator.pk]  # its vacation, now (_match_start)
            game.player1 = player_ai_get_or_create(level=ai_level)
            game.status = GameStatus.ACTIVE
            game.save()  # the rounds need the game's id
            _match_start(game=game)
        else:
            if kind == GameKind.INVITE:
                if not opponent_name:
                    raise ServiceError("Name the player to invite.", code="validation_error")
                opponent = player_find_by_name(name=opponent_name)
                if opponent is None:
                    raise NotFound("No player with this name.")
                if opponent.pk == creator.pk or opponent.is_ai:
                    raise Conflict("Invite another person (play the AI with kind 'ai').", code="invalid_opponent")
                game.player1 = opponent
            ttl = invitation_ttl or settings.OKGIN_INVITATION_TTL_SECONDS
            game.status = GameStatus.INVITED
            game.invitation_expires_at = timezone.now() + timedelta(seconds=ttl)
        game.save()
        if kind == GameKind.INVITE:
            events_create(notices=game_notices.invitation_notice(game, EventKind.INVITATION_RECEIVED))
        elif kind == GameKind.AI:
            events_create(notices=game_notices.start_notices(game))
        _ai_turn_schedule_if_due(game=game)
        return game


def invitation_accept(*, game_id: int, player: Player) -> Game:
    """Accept an invitation addressed to ``player`` or an open challenge; the match starts (R3.1, R4).

    Raises ``NotFound`` (not invited; also for any game ``player`` is not seated in, whatever its
    kind, unless it is an open challenge still waiting: nothing reveals that a game id exists),
    ``Conflict`` ``not_invited`` (not waiting for an answer), ``invitation_expired`` (its time ran
    out first: it is expired instead), ``own_challenge``.
    Locks both players' rows, then the game's (``common._players_lock``): a player turning vacation
    on at the same instant either is seen here (the match starts paused) or sees the started match
    (and pauses it).
    """
    with transaction.atomic():
        _game_players_lock(game_id=game_id, joining=player)
        game = _game_lock(game_id=game_id)
        waiting_challenge = game.kind == GameKind.OPEN and game.status == GameStatus.INVITED
        if game.seat_of(player) is None and not waiting_challenge:
            raise NotFound("No such invitation.")
        if game.kind == GameKind.INVITE and player.pk != game.player1_id:
            raise NotFound("No such invitation.")
        if game.kind == GameKind.OPEN and player.pk == game.player0_id:
            raise Conflict("You cannot accept your own challenge.", code="own_challenge")
        if game.status != GameStatus.INVITED or game.kind == GameKind.AI:
            raise Conflict("This game is not waiting for an answer.", code="not_invited")
        if not _invitation_expire(game=game, now=timezone.now()):
            if game.kind == GameKind.OPEN:
                game.player1 = player
            _match_start(game=game)
            game.invitation_expires_at = None
            _version_bump(game)
            game.save()
            events_create(notices=game_notices.invitation_notice(game, EventKind.INVITATION_ACCEPTED)
                          + game_notices.start_notices(game))
            return game
    raise _Expired()


class _Expired(Conflict):
    """409 ``invitation_expired``: the invitation's time ran out before the answer arrived; the
    expiry was applied instead (committed, unless an outer transaction rolls it back: an
    Idempotency-Key's; then the next read or the sweep applies it)."""

    code = "invitation_expired"
    default_message = "This invitation has expired."


def invitation_decline(*, game_id: int, player: Player) -> Game:
    """Decline an invitation addressed to ``player``. Raises ``NotFound``, ``Conflict``
    ``not_invited``, ``invitation_expired`` (its time ran out first: it is expired instead)."""
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        if game.kind != GameKind.INVITE or player.pk != game.player1_id:
            raise NotFound("No such invitation.")
        if game.status != GameStatus.INVITED:
            raise Conflict("This game is not waiting for an answer.", code="not_invited")
        if not _invitation_expire(game=game, now=timezone.now()):
            game.status = GameStatus.DECLINED
            _version_bump(game)
            game.save()
            events_create(notices=game_notices.invitation_notice(game, EventKind.INVITATION_DECLINED))
            return game
    raise _Expired()


def invitation_abort(*, game_id: int, player: Player) -> Game:
    """The creator withdraws an unanswered invitation or open challenge.

    Raises ``NotFound`` (not the creator's), ``Conflict`` ``not_invited`` (already started or
    answered), ``invitation_expired`` (its time ran out first: it is expired instead).
    """
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        if player.pk != game.player0_id:
            raise NotFound("No such invitation.")
        if game.status != GameStatus.INVITED:
            raise Conflict("Only an unanswered invitation can be aborted.", code="not_invited")
        if not _invitation_expire(game=game, now=timezone.now()):
            game.status = GameStatus.ABORTED
            _version_bump(game)
            game.save()
            events_create(notices=game_notices.invitation_withdrawn_notice(game))
            return game
    raise _Expired()
