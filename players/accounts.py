"""The account lifecycle (HackSoft style: keyword-only, ``<entity>_<verb>``): password change and
account deletion, each revoking the account's tokens (``players.tokens``).

Kept apart from ``players.services`` because deleting an account resigns its games: this module
uses ``games.services``, which itself uses ``players.services`` (no import cycle).
"""
import secrets
from typing import Any

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.db.models.functions import Cast
from django.utils import timezone
from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken, OutstandingToken

from games import services as game_services
from games.models import Game, GameReview, GameStatus, IdempotencyRecord
from games.services.actions import MatchEndedOnTime
from games.services.common import PLAYER_LOCK
from notifications.models import Event, PushSettings, WebhookEndpoint
from okgin_project.errors import ServiceError

from .models import DELETED_NAME_PREFIX, Player
from .authentication import auth_cache_forget
from .tokens import token_pair_for


class WrongPassword(ServiceError):
    """The current password sent to confirm an account operation is wrong (400 ``wrong_password``)."""

    code = "wrong_password"
    default_message = "The current password is wrong."


def _password_check(*, user, password: str) -> None:
    if not password or not user.check_password(password):
        raise WrongPassword()


def _tokens_revoke(*, user, player: Player | None) -> None:
    """Revoke every token of ``user``: blacklist its outstanding refresh tokens and increment the
    player's token generation (access tokens carry it and are checked on each request)."""
    outstanding = OutstandingToken.objects.filter(user=user, blacklistedtoken__isnull=True)
    BlacklistedToken.objects.bulk_create([BlacklistedToken(token=t) for t in outstanding], ignore_conflicts=True)
    if player is not None:
        Player.objects.filter(pk=player.pk).update(token_generation=models.F("token_generation") + 1)
        player.refresh_from_db(fields=["token_generation"])
    auth_cache_forget(user.pk)


def player_password_change(*, user, current_password: str, new_password: str) -> dict[str, str]:
    """Change ``user``'s password and revoke every token issued before (access and refresh).

    Returns a new token pair ``{"access", "refresh"}`` so the client that changed it stays logged
    in. Raises ``WrongPassword`` (400 ``wrong_password``), ``django.core.exceptions.ValidationError``
    (400 ``validation_error``: the new password is too weak). Nothing is written when it raises.
    """
    with transaction.atomic():
        _password_check(user=user, password=current_password)
        validate_password(new_password, user)
        player = Player.objects.select_for_update().filter(user=user).first()
        user.set_password(new_password)
        user.save(update_fields=["password"])
        _tokens_revoke(user=user, player=player)
        if player is not None:
            user.player = player
        return token_pair_for(user)


# The keys under which stored JSON (events' data, stored answers, reviews) holds a player's name:
# ``by`` (events), ``name`` (a game's seats), ``player`` (reviews, stats), ``opponent`` (pushes).
NAME_KEYS = frozenset({"by", "name", "player", "opponent"})


def _json_name_replace(value: Any, old: str, new: str, *, under_name_key: bool = False) -> Any:
    """``value`` (JSON) with ``old`` replaced by ``new`` wherever it is the value of a key in
    ``NAME_KEYS``, at any depth. Only there: a username may equal any other string of the API
    (``active``, ``knock``, ``invite``...), and those must not change."""
    if isinstance(value, str):
        return new if under_name_key and value == old else value
    if isinstance(value, list):
        return [_json_name_replace(v, old, new, under_name_key=under_name_key) for v in value]
    if isinstance(value, dict):
        return {k: _json_name_replace(v, old, new, under_name_key=k in NAME_KEYS) for k, v in value.items()}
    return value


def _json_rows_scrub(rows: models.QuerySet, field: str, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in the JSON ``field`` of those ``rows`` whose JSON text holds
    ``"old"`` (a whole string value; names are ``[A-Za-z0-9_.-]``, never escaped in JSON)."""
    rows = rows.annotate(_text=Cast(field, models.TextField())).filter(_text__contains=f'"{old}"')
    for pk, value in rows.values_list("pk", field):
        rows.model.objects.filter(pk=pk).update(**{field: _json_name_replace(value, old, new)})


def _player_name_scrub(*, player: Player, user, old: str, new: str) -> None:
    """Replace the name ``old`` of ``player`` (being deleted) by ``new`` wherever stored data copied
    it, so that nothing written earlier shows the real name after the deletion:

    - events of the players it played (``data.by`` of invitations, rematch offers, vacations);
      webhook bodies and pushes are built from these when sent, so pending ones follow;
    - the stored answers of other players' idempotency keys (a game's seats name both players):
      those about its games, and those about no game (``game_create``) of the players it played;
    - reviews of its games (JSON results), for completeness;
    - the admin's log (the ``object_repr`` of its user and player rows).

    Its own registration's idempotency record (stored without a player) and django-axes' records
    of admin logins under its username are deleted. Call inside the deletion's transaction, after
    the games were resigned and invitations withdrawn (those write events too).
    """
    seated = Game.objects.filter(models.Q(player0=player) | models.Q(player1=player))
    games = list(seated.values_list("pk", flat=True))
    opponents = {pk for pair in seated.values_list("player0_id", "player1_id") for pk in pair} - {player.pk, None}
    _json_rows_scrub(Event.objects.filter(game_id__in=games), "data", old, new)
    _json_rows_scrub(IdempotencyRecord.objects.filter(
        models.Q(game_id__in=games) | models.Q(game__isnull=True, player_id__in=opponents)),
        "response_body", old, new)
    _json_rows_scrub(GameReview.objects.filter(game_id__in=games), "result", old, new)
    IdempotencyRecord.objects.filter(player__isnull=True, operation="register", response_body__name=old).delete()
    for model, pk in ((Player, player.pk), (get_user_model(), user.pk)):
        LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(model), object_id=str(pk)).update(
            object_repr=new)
    for axes_model in (AccessAttempt, AccessFailureLog, AccessLog):
        axes_model.objects.filter(username__iexact=old).delete()


def player_delete(*, user, password: str) -> Player | None:
    """Delete ``user``'s account (the app stores' "delete my account"), confirmed by ``password``.

    In one transaction: every active game of the player is resigned (the opponent wins, R10), its
    unanswered invitations and open challenges are withdrawn and invitations to it declined, and
    its pending rematch offers (made by or to it) closed as declined; its
    webhooks (with their deliveries), push devices, events, idempotency records and tokens are
    deleted; the user row goes. The ``Player`` row stays, anonymized (name ``deleted-<hex>``,
    ``deleted_at`` set, no user), so finished games stay in the other players' histories under
    that neutral name, and every copy of the real name in stored data (other players' events and
    idempotency answers, the admin's log...: ``_player_name_scrub``) becomes that name too. Returns that player (None for a user that never played). Raises
    ``WrongPassword`` (400 ``wrong_password``); nothing is written then.
    """
    with transaction.atomic():
        _password_check(user=user, password=password)
        # the services' player lock (players, then games), which lets rows referring to the player be written
        player = Player.objects.select_for_update(**PLAYER_LOCK).filter(user=user).first()
        if player is not None:
            seated = Game.objects.filter(models.Q(player0=player) | models.Q(player1=player))
            for game_id in seated.filter(status=GameStatus.ACTIVE).values_list("pk", flat=True):
                try:
                    game_services.game_resign(game_id=game_id, player=player)
                except MatchEndedOnTime:  # its deadline had passed: the match ended on time instead
                    pass
            for game in seated.filter(status=GameStatus.INVITED).only("pk", "player0_id"):
                if game.player0_id == player.pk:
                    game_services.invitation_abort(game_id=game.pk, player=player)
                else:
                    game_services.invitation_decline(game_id=game.pk, player=player)
            game_services.rematch_offers_close(player=player)
            WebhookEndpoint.objects.filter(player=player).delete()
            PushSettings.objects.filter(player=player).delete()
            Event.objects.filter(player=player).delete()
            IdempotencyRecord.objects.filter(player=player).delete()
            placeholder = DELETED_NAME_PREFIX + secrets.token_hex(6)
            _player_name_scrub(player=player, user=user, old=player.name, new=placeholder)
            player.user = None
            player.name = placeholder
            player.deleted_at = timezone.now()
            player.time_zone = "UTC"
            player.token_generation += 1
            player.save(update_fields=["user", "name", "deleted_at", "time_zone", "token_generation"])
        OutstandingToken.objects.filter(user=user).delete()
        user.delete()  # push devices (django-push-notifications, keyed by user) go with it
        return player
