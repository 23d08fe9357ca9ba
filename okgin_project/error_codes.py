"""Every error ``code`` the API answers, with its HTTP status and meaning: the source of the
README's "Error codes" table (``python -m okgin_project.error_codes`` prints it; a test checks the
README and that every code raised in the code is listed here)."""
from __future__ import annotations

ERROR_CODES: dict[str, tuple[int, str]] = {
    # request shape
    "malformed_json": (400, "The body is not JSON, is nested deeper than 32 levels, or has an unpaired surrogate."),
    "validation_error": (400, "A field, query parameter or header is missing or invalid (see `detail`)."),
    "bad_request": (400, "The request could not be read."),
    "malformed_action": (400, "The action is not of a known shape (unknown type, missing or extra fields)."),
    "bad_card": (400, "A card code cannot be parsed (R1.2)."),
    "bad_rules": (400, "Unknown rule option or bad value."),
    "bad_deck": (400, "Staff deck order is not 52 distinct cards."),
    "bad_ai_level": (400, "Unknown AI level."),
    "bad_url": (400, "The webhook URL is not an http(s) URL."),
    "webhook_url_forbidden": (400, "The webhook host is, or resolves to, a non-public address (or does not resolve)."),
    "payload_too_large": (413, "The request body is larger than the limit (256 KiB)."),
    "unsupported_media_type": (415, "Send `Content-Type: application/json`."),
    "method_not_allowed": (405, "This method is not allowed on this URL."),
    "not_acceptable": (406, "The Accept header asks for something other than JSON."),
    # authentication and permission
    "not_authenticated": (401, "No credentials were sent."),
    "authentication_failed": (401, "The credentials are not valid."),
    "no_active_account": (401, "Wrong username or password."),
    "token_not_valid": (401, "The JWT is expired or invalid."),
    "user_not_found": (401, "The token's user no longer exists."),
    "user_inactive": (401, "The token's user is inactive."),
    "permission_denied": (403, "You may not do this."),
    "staff_only": (403, "Only staff may choose decks or the first dealer."),
    "not_found": (404, "No such object, or you may not see it."),
    # conflicts with the current state
    "username_taken": (409, "The name is in use (in any letter case)."),
    "no_player": (409, "This account's name belongs to another player."),
    "stale_version": (409, "The game changed since the `version` you acted on; reload it."),
    "turn_expired": (409, "Your turn's time ran out first; the timeout was applied instead."),
    "game_not_active": (409, "The game is not in play."),
    "game_not_finished": (409, "Only a finished game can be exported."),
    "not_invited": (409, "The game is not waiting for an answer."),
    "invitation_expired": (409, "The invitation has expired."),
    "own_challenge": (409, "You cannot accept your own challenge."),
    "invalid_opponent": (409, "Invite another person (play the AI with kind `ai`)."),
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
    "busy": (503, "The embedded SQLite database is busy; retry after `Retry-After` seconds. Nothing changed."),
}


def markdown_table() -> str:
    """The README table: ``| code | HTTP | meaning |`` rows in the order above."""
    lines = ["| code | HTTP | meaning |", "| --- | --- | --- |"]
    lines += [f"| `{code}` | {status} | {meaning} |" for code, (status, meaning) in ERROR_CODES.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table())
