"""Every error ``code`` the API answers, with its HTTP status and meaning: the source of the
table in ``docs/errors.md`` (``python -m okgin_project.error_codes`` prints it; a test checks the
page and that every code raised in the code is listed here)."""
from __future__ import annotations

ERROR_CODES: dict[str, tuple[int, str]] = {
    # request shape
    "malformed_json": (400, "The body is not JSON, is nested deeper than 32 levels, or has an unpaired surrogate."),
    "validation_error": (400, "A field, query parameter or header is missing or invalid (see `detail`)."),
    "bad_cursor": (400, "The `cursor` is not one this list gave out (or was given for another `ordering`)."),
    "bad_request": (400, "The request could not be read."),
    "malformed_action": (400, "The action does not fit its type: a field that type does not take, a missing field, a card code that cannot be read (an unknown type is a validation_error on type)."),
    "bad_card": (400, "A card code cannot be parsed (R1.2)."),
    "bad_rules": (400, "Unknown rule option or bad value."),
    "bad_deck": (400, "Staff deck order is not 52 distinct cards."),
    "bad_argument": (422, "The rules engine was called with an argument of the wrong type (engine used as a library; no request causes it)."),
    "bad_time_control": (400, "The time bank has an unknown field or a value out of range (initial 60 s to 60 days, increment 0 to 14 days, max from initial to 60 days)."),
    "time_control_conflict": (400, "A game has either `move_time_limit` or `time_bank`, not both."),
    "bad_ai_level": (400, "Unknown AI level (choose `random`, `simple` or `strong`)."),
    "bad_url": (400, "The webhook URL is malformed, not http(s), or carries a user name or password."),
    "bad_platform": (400, "Unknown device platform (fcm, apns or webpush)."),
    "bad_registration_id": (400, "The registration id is not a token of that platform."),
    "bad_time_zone": (400, "Not an IANA time zone name (e.g. Europe/Paris)."),
    "wrong_password": (400, "The current password sent to confirm a password change or an account deletion is wrong."),
    "webhook_url_forbidden": (400, "The webhook host is, or resolves to, a non-public address (also inside 6to4, NAT64 or Teredo forms), does not resolve, or the port is not 80/443."),
    "payload_too_large": (413, "The request body is larger than the limit (256 KiB)."),
    "unsupported_media_type": (415, "Send `Content-Type: application/json`."),
    "method_not_allowed": (405, "This method is not allowed on this URL."),
    "not_acceptable": (406, "The Accept header asks for something other than JSON."),
    # authentication and permission
    "not_authenticated": (401, "No credentials were sent."),
    "authentication_failed": (401, "The credentials are not valid."),
    "bad_authorization_header": (401, "The Authorization header is not `Bearer <token>`."),
    "no_active_account": (401, "Wrong username or password."),
    "token_not_valid": (401, "The JWT is expired, invalid, or revoked (logout, refresh rotation, password change)."),
    "user_not_found": (401, "The token's account no longer exists (deleted)."),
    "user_inactive": (401, "The token's user is inactive."),
    "permission_denied": (403, "You may not do this."),
    "staff_only": (403, "Only staff may choose decks or the first dealer."),
    "not_found": (404, "No such object, or you may not see it."),
    "review_not_requested": (404, "No review of this match was requested yet; POST `games/{id}/review/` first."),
    # conflicts with the current state
    "username_taken": (409, "The name is in use (in any letter case)."),
    "no_player": (409, "This account's name belongs to another player."),
    "stale_version": (409, "The game changed since the `version` you acted on; reload it."),
    "turn_expired": (409, "Your turn's time ran out first; the timeout was applied instead."),
    "game_not_active": (409, "The game is not in play."),
    "game_not_finished": (409, "Only a finished game can be exported, followed by a rematch or reviewed."),
    "review_failed": (409, "The game review failed (logged); POST `games/{id}/review/` again to retry."),
    "rematch_pending": (409, "Your rematch offer is still waiting for an answer."),
    "rematch_already_offered": (409, "Your opponent already offered a rematch of this match (`detail.offered_by`); accept or decline it."),
    "rematch_exists": (409, "This match already has its rematch (`detail.rematch_game_id`)."),
    "rematch_declined": (409, "The rematch of this match was declined; no further offer."),
    "no_rematch_offer": (409, "There is no rematch offer from your opponent to answer."),
    "vacation_already_on": (409, "You are already on vacation; turn it off first."),
    "vacation_not_on": (409, "You are not on vacation."),
    "vacation_no_days": (409, "Less than one whole day of vacation is left (days are credited at each month start)."),
    "not_invited": (409, "The game is not waiting for an answer."),
    "invitation_expired": (409, "The invitation has expired."),
    "own_challenge": (409, "You cannot accept your own challenge."),
    "invalid_opponent": (409, "Invite another person (play the AI with kind `ai`)."),
    "too_many_devices": (409, "You have the maximum number of push devices."),
    "webhook_exists": (409, "This webhook URL is already registered."),
    "too_many_webhooks": (409, "You have the maximum number of webhooks."),
    "not_your_turn": (409, "The other seat is to act (R5, R6)."),
    "wrong_phase": (409, "This kind of action is not possible in the current phase."),
    # rule violations of a well-formed action (422, with `rule`)
    "idempotency_key_reused": (422, "The Idempotency-Key was used for a different request."),
    "illegal_action": (422, "The rules forbid this action now."),
    "upcard_unavailable": (422, "The upcard cannot be taken now (R5)."),
    "card_not_in_hand": (422, "The card is not in your hand."),
    "discard_taken_card": (422, "The card just taken from the discard pile cannot be discarded (R6.3)."),
    "knock_over_limit": (422, "Your deadwood is over the knock limit (R7.2)."),
    "invalid_meld": (422, "A meld is not a valid set or run, or melds overlap (R2)."),
    "match_over": (422, "The match is over."),
    # load
    "throttled": (429, "Too many requests; wait `Retry-After` seconds."),
    "server_error": (500, "A bug on our side (logged); nothing is shown."),
    "live_unavailable": (503, "Waiting for live updates is not possible for a moment (Redis unreachable); retry after `Retry-After` seconds. Nothing changed."),
    "database_unavailable": (503, "The database cannot be reached (outage or restart); retry after `Retry-After` seconds. Nothing changed."),
    "busy": (503, "The embedded SQLite database is busy; retry after `Retry-After` seconds. Nothing changed."),
}

ERROR_CODE_CHOICES: list[str] = list(ERROR_CODES)  # the OpenAPI enum of ``error.code``


def markdown_table() -> str:
    """The table of ``docs/errors.md``: ``| code | HTTP | meaning |`` rows in the order above."""
    lines = ["| code | HTTP | meaning |", "| --- | --- | --- |"]
    lines += [f"| `{code}` | {status} | {meaning} |" for code, (status, meaning) in ERROR_CODES.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
