"""JWT authentication that loads the user and their player profile in one query, and refuses a
token issued before the account's last password change (claim ``gen``, see ``players.tokens``).

The two requests of play, the action POST and the game view (views with ``auth_cache = True``),
reuse an account this web process read in the last ``OKGIN_AUTH_CACHE_SECONDS`` (default 10; 0:
off) instead of reading it again: about 0.3 ms of the web process's and PostgreSQL's CPU per
request (issue 14). They need only who the player is and that the token is still good, and a
change of the account is forgotten at once in every process: any save or deletion of the user
or its player, and the token revocation of ``players.accounts``, forgets it in this process and,
after its commit, publishes ``a<user id>`` through the live hub (``notifications.live``), whose
listener forgets it in every other web process, milliseconds later. So the cache is used only
while this process's Redis listener is subscribed (never with the local hub of the embedded
default), is emptied whenever the listener subscribes again (what was published meanwhile is
lost), and an account read while any account changed is not kept (it may be older than the
change). A revocation whose publish fails (Redis failing at that moment while the listeners stay
connected) holds in other processes after at most ``OKGIN_AUTH_CACHE_SECONDS`` (a listener cut off
without noticing, too: it notices within about 35 s, and entries expire before that). Every other view
reads the account at every request, as before.

Decoding an access token (its signature, ``exp`` and type) is done once per token in each process
and kept until its ``exp``; the account's state and the token's ``gen`` are checked at every
request, against the database or the cache above (``PlayerJWTAuthentication.get_validated_token``).
"""
import copy
import threading
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections
from rest_framework.exceptions import AuthenticationFailed
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import InvalidToken
from rest_framework_simplejwt.settings import api_settings

from okgin_project.rows import in_range, instance, model_columns, row_read

from .models import Player
from .tokens import token_is_current


class PlayerJWTAuthentication(JWTAuthentication):
    """simplejwt's authentication reading the user with its player (one SQL query per request,
    ``_user_read``).

    Raises 401 ``user_not_found`` / ``user_inactive`` (DRF's ``AuthenticationFailed``: simplejwt's
    own wraps the code in a dict that the API would answer as ``authentication_failed``), 401
    ``token_not_valid`` (expired, malformed, or revoked by a password change)."""

    def authenticate(self, request):
        """simplejwt's authentication; the account may come from this process's cache when the
        view declares ``auth_cache = True`` (the module docstring)."""
        self._cacheable = getattr((request.parser_context or {}).get("view"), "auth_cache", False)
        return super().authenticate(request)

    def get_validated_token(self, raw_token):
        """simplejwt's validation of ``raw_token`` (bytes: signature, ``exp``, type), done once per
        token in each process: a client sends the same access token with every request, and
        decoding it was about 4% of a web process's CPU under load (issue 14). A token is kept
        until its ``exp``, which is checked again at each use, so an expired token is refused as
        before (401 ``token_not_valid``; ``SIMPLE_JWT["LEEWAY"]`` counted as simplejwt counts
        it). Nothing else about a token can change while it is kept: access tokens are not
        blacklisted, and revocation by a password change (claim ``gen``) and the account's state
        are checked by ``get_user`` at every request. Refused tokens are not kept. Raises
        ``InvalidToken``."""
        hit = _validated.get(raw_token)
        if hit is not None and hit[0] > time.time():
            return hit[1]
        token = super().get_validated_token(raw_token)
        try:  # refused once exp <= now - leeway, as simplejwt's check_exp refuses it
            expires = float(token.payload["exp"]) + token.get_token_backend().get_leeway().total_seconds()
        except (KeyError, TypeError, ValueError):
            return token  # validation requires "exp"; a token without one is not kept
        with _recent_lock:
            if len(_validated) >= _VALIDATED_MAX:
                _validated.clear()
            _validated[raw_token] = (expires, token)
        return token

    def get_user(self, validated_token):
        try:
            user_id = validated_token[api_settings.USER_ID_CLAIM]
        except KeyError as exc:
            raise InvalidToken("Token contained no recognizable user identification") from exc
        user_model = get_user_model()
        try:
            user = _user_with_player(user_id, cacheable=getattr(self, "_cacheable", False))
        except user_model.DoesNotExist as exc:
            raise AuthenticationFailed("User not found", code="user_not_found") from exc
        if not user.is_active:
            raise AuthenticationFailed("User is inactive", code="user_inactive")
        if not token_is_current(validated_token, user):
            raise InvalidToken("Token was revoked (password changed).")
        return user


_validated: dict = {}  # raw access token (bytes) -> (its exp, seconds since the epoch; the validated token)
_VALIDATED_MAX = 10_000  # tokens kept at most; past it the cache starts again empty
_recent: dict = {}  # str(user id) (the token's claim is a string) -> (monotonic expiry, user with its player)
_recent_lock = threading.Lock()
_RECENT_MAX = 10_000  # users kept at most; past it the cache starts again empty
_changes = 0  # accounts forgotten in this process so far (under _recent_lock): see _user_with_player


def _user_with_player(user_id, *, cacheable: bool = False):
    """The user ``user_id`` with its player (``select_related``): with ``cacheable`` (a view with
    ``auth_cache``) from this process's cache of the last ``OKGIN_AUTH_CACHE_SECONDS`` while
    account changes reach this process (``notifications.live.live_listening``), else one query;
    each request gets its own copies. A read is kept only if no account was forgotten while it
    ran (it could hold what a change had just replaced). Raises the user model's
    ``DoesNotExist``."""
    from notifications.live import live_listener_start, live_listening

    ttl = settings.OKGIN_AUTH_CACHE_SECONDS
    if not cacheable or ttl <= 0:
        return _user_read(user_id)
    if not live_listening():
        live_listener_start()  # the cache is used once this process hears of account changes
        return _user_read(user_id)
    key, now = str(user_id), time.monotonic()
    with _recent_lock:
        hit, seen = _recent.get(key), _changes
    if hit is not None and hit[0] > now:
        return _copied(hit[1])
    user = _user_read(user_id)
    with _recent_lock:
        if _changes == seen:
            if len(_recent) >= _RECENT_MAX:
                _recent.clear()
            _recent[key] = (now + ttl, user)
    return _copied(user)


def _user_read(user_id, using: str = DEFAULT_DB_ALIAS):
    """The user whose ``USER_ID_FIELD`` is ``user_id`` with its player (None if it has none) cached
    as ``select_related("player")`` caches it, by SQL written once (``okgin_project.rows``: the ORM
    compiled that join at every request, issue 14). Raises the user model's ``DoesNotExist``."""
    user_model = get_user_model()
    id_field = user_model._meta.get_field(api_settings.USER_ID_FIELD)
    connection = connections[using]

    def build(connection):
        qn = connection.ops.quote_name
        user_cols, user_converters = model_columns(connection, "u", user_model)
        player_cols, player_converters = model_columns(connection, "p", Player)
        return (f"SELECT {', '.join(user_cols + player_cols)} FROM {qn(user_model._meta.db_table)} u"
                f" LEFT JOIN {qn(Player._meta.db_table)} p ON p.{qn(Player._meta.get_field('user').column)}"
                f" = u.{qn(user_model._meta.pk.column)} WHERE u.{qn(id_field.column)} = %s",
                user_converters + player_converters)

    value = id_field.get_db_prep_value(user_id, connection)
    values = None
    if not isinstance(value, int) or in_range(connection, id_field, value):
        values = row_read(using, "user_with_player", build, [value])
    if values is None:
        raise user_model.DoesNotExist(f"{user_model._meta.object_name} matching query does not exist.")
    n_user = len(user_model._meta.concrete_fields)
    user, player = instance(user_model, using, values[:n_user]), instance(Player, using, values[n_user:])
    user_model._meta.get_field("player").set_cached_value(user, player)
    if player is not None:
        Player._meta.get_field("user").set_cached_value(player, user)
    return user


def _copied(user):
    """A copy of ``user`` and of its cached player, so a request never changes another's objects."""
    mine = copy.copy(user)  # Django copies the instance state and its cache of related objects
    player = user._state.fields_cache.get("player")
    if player is not None:
        player = copy.copy(player)
        player._state.fields_cache["user"] = mine
        mine._state.fields_cache["player"] = player
    return mine


def auth_cache_forget(user_id) -> None:
    """Forget ``user_id``'s account in this process's cache now and, once the current transaction
    commits, here again (a request of this process may have read and kept the account as it was
    before the commit) and in every web process: ``a<user id>`` goes to ``_forget_published``
    here at the commit and, through the live hub, in every other process. Call it on any change
    of a user or its player (``players.apps`` does for saves and deletions)."""
    if user_id is None:
        return
    _forget_here(user_id)
    from notifications.live import live_keys_publish_after_commit

    live_keys_publish_after_commit({f"{AUTH_KEY_PREFIX}{user_id}"})


AUTH_KEY_PREFIX = "a"  # live key of an account change: "a<user id>"


def _forget_here(user_id) -> None:
    """Forget ``user_id``'s cached account in this process (and count the change)."""
    global _changes
    with _recent_lock:
        _recent.pop(str(user_id), None)
        _changes += 1


def _forget_published(key: str) -> None:
    """The live listener's callback for a published ``a<user id>``: forget that account here."""
    _forget_here(key[len(AUTH_KEY_PREFIX):])


def _forget_all() -> None:
    """The live listener's callback when it (re)subscribes: changes published while it was away
    are lost, so forget every cached account."""
    global _changes
    with _recent_lock:
        _recent.clear()
        _changes += 1


def auth_cache_listen() -> None:
    """Have this process's live listener forget the accounts changed in other processes (called
    once, by ``players.apps``)."""
    from notifications.live import live_keys_listen

    live_keys_listen(AUTH_KEY_PREFIX, _forget_published, _forget_all)
