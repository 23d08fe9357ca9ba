"""The one request body parser of the API: JSON, bounded in size, depth and content.

Answers (as DRF errors, rendered in the one error shape): 413 ``payload_too_large`` for a body
over ``OKGIN_MAX_BODY_BYTES`` bytes; 400 ``malformed_json`` for text that is not JSON (also not
UTF-8), nesting deeper than ``MAX_DEPTH`` arrays/objects, or a string with a lone UTF-16
surrogate (``"\\ud800"``: it could not be stored or echoed back), or an object with the same key
twice (which one would count is undefined); 400 ``validation_error`` for a NUL character in a string
(PostgreSQL cannot store it); 415 ``unsupported_media_type`` for a ``charset`` other than UTF-8.
"""
from __future__ import annotations

import json

from django.conf import settings
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"
    default_detail = "The request body is too large."


def _malformed(message: str) -> exceptions.ParseError:
    return exceptions.ParseError(message, code="malformed_json")


def _check(value) -> None:
    """Walk ``value`` (iteratively: no recursion) checking depth and strings."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise _malformed(f"JSON nested deeper than {MAX_DEPTH} levels.")
            children = list(item.keys()) + list(item.values()) if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise _malformed("JSON string with an unpaired UTF-16 surrogate.") from None
            if "\x00" in item:
                raise exceptions.ValidationError("Strings must not contain NUL characters.")


class StrictJSONParser(JSONParser):
    """DRF's JSON parser with the limits above."""

    def parse(self, stream, media_type=None, parser_context=None):
        params = {
            name.strip().lower(): value
            for name, value in (part.split("=", 1) for part in (media_type or "").split(";")[1:] if "=" in part)
        }
        charset = params.get("charset", "utf-8").strip().strip('"').lower()
        if charset not in ("utf-8", "utf8"):
            raise exceptions.UnsupportedMediaType(media_type, detail="Send JSON in UTF-8 (charset=utf-8).")
        limit = settings.OKGIN_MAX_BODY_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge(f"The request body is larger than {limit} bytes.")
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=self._reject_constant,
                              object_pairs_hook=self._object_without_duplicates)
        except RecursionError:
            raise _malformed(f"JSON nested deeper than {MAX_DEPTH} levels.") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise _malformed(f"The body is not valid JSON: {exc}") from None
        _check(data)
        return data

    @staticmethod
    def _object_without_duplicates(pairs):
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen, twice = set(), set()
            for key, _value in pairs:
                if key in seen:
                    twice.add(key)
                seen.add(key)
            raise ValueError(f"duplicate key(s) in an object: {', '.join(sorted(twice))}")
        return obj

    @staticmethod
    def _reject_constant(name):
        raise ValueError(f"{name} is not JSON")
