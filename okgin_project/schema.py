"""The OpenAPI contract: the one error component, the statuses and headers every operation can
answer, strict request bodies and one ``Action`` schema for both directions.

``OkginAutoSchema`` (``DEFAULT_SCHEMA_CLASS``) adds to every operation what the middleware,
throttles and handlers can answer whatever the view declares: 400 (a bad URL or query), 401 (when
the operation needs credentials), 404 (paths with parameters), 406 (an Accept header that is not
JSON), 413/415 (operations with a body), 429 ``throttled`` and 503 ``busy`` (the embedded SQLite
database's lock; both with ``Retry-After``). Request bodies are closed objects
(``additionalProperties: false``), as the server refuses unknown fields. ``unify_action_schema``
(a post-processing hook) makes requests and responses share the ``Action`` component.
"""
from __future__ import annotations

import json
import re

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, build_array_type
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import AllowAny

from okgin_project.error_codes import ERROR_CODES
from okgin_project.params import IDEMPOTENCY_KEY_PATTERN


class FieldErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text='Why the value was refused, e.g. "required", "invalid", '
                                           '"unknown_field", "not_a_string", "max_length", "not_applicable" (a field that does '
                                           'not apply with the other fields sent), "repeated" (a query '
                                           'parameter given twice).')
    message = serializers.CharField(help_text="The same in English.")


FIELD_ERRORS_SCHEMA = {
    "type": "object",
    "description": 'Field errors (codes validation_error, bad_rules, malformed_action): field name (nested '
                   'fields dotted, e.g. "rules.gin_bonus", list items by index, "decks.0.51"; "non_field_errors" '
                   "for the body as a whole) to its errors.",
    "additionalProperties": {"type": "array", "items": {"$ref": "#/components/schemas/FieldError"}},
}


class StaleVersionDetailSerializer(serializers.Serializer):
    current_version = serializers.IntegerField(help_text="The game's version now: reload the game.")


class RematchExistsDetailSerializer(serializers.Serializer):
    rematch_game_id = serializers.IntegerField(help_text="The match's rematch, already there.")


class RematchOfferedDetailSerializer(serializers.Serializer):
    offered_by = serializers.IntegerField(help_text="The seat whose rematch offer is waiting for your answer.")


@extend_schema_field({
    "oneOf": [{"$ref": "#/components/schemas/FieldErrors"}, {"$ref": "#/components/schemas/StaleVersionDetail"},
              {"$ref": "#/components/schemas/RematchExistsDetail"},
              {"$ref": "#/components/schemas/RematchOfferedDetail"}],
    "description": "Only some codes carry it: validation_error, bad_rules and malformed_action field "
                   "errors; stale_version the game's current version; rematch_exists the rematch's id; "
                   "rematch_already_offered the seat that offered.",
})
class ErrorDetailField(serializers.JSONField):
    """Output only: the ``detail`` of an error (see the schema above)."""


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=list(ERROR_CODES), help_text="Stable machine-readable code.")
    message = serializers.CharField(help_text="English explanation (may change; match on code).")
    rule = serializers.CharField(required=False, help_text='Rule of RULES.md broken, e.g. "R7.2".')
    detail = ErrorDetailField(required=False)


class ErrorSerializer(serializers.Serializer):
    """Every error answer: ``{"error": {"code", "message", "rule"?, "detail"?}}``."""

    error = ErrorBodySerializer()


RETRY_AFTER = OpenApiParameter("Retry-After", OpenApiTypes.INT, OpenApiParameter.HEADER, response=["429", "503"],
                               required=True, description="Seconds to wait before retrying.")
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER,
    description="The ETag of the answer you have: 304 without a body when nothing changed.",
)
ETAG = OpenApiParameter("ETag", OpenApiTypes.STR, OpenApiParameter.HEADER, response=["200", "304"],
                        required=True, description="Send it back as If-None-Match.")
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER, pattern=f"^{IDEMPOTENCY_KEY_PATTERN}$",
    description="Any unique string of 1-200 printable ASCII characters (no space first or last): a retry with the same key and "
    "body returns the first answer (with Idempotent-Replayed: true) without doing anything again; the same "
    "key with another body is 422 idempotency_key_reused.",
)
IDEMPOTENT_REPLAYED = OpenApiParameter(
    "Idempotent-Replayed", OpenApiTypes.STR, OpenApiParameter.HEADER, enum=["true"], response=["200", "201"],
    description="Present (true) when this answer is the stored first answer to an earlier request with the "
    "same Idempotency-Key.",
)


def _wait_schema() -> dict:
    from django.conf import settings

    return {"type": "integer", "minimum": 0, "maximum": settings.OKGIN_LIVE_WAIT_MAX}


WAIT = OpenApiParameter(
    "wait", _wait_schema(),
    description="Long-poll (0-30 s): while there is nothing new (a page without results, or the resource "
    "still matching If-None-Match), wait up to this many seconds and answer as soon as it changes. "
    "503 live_unavailable when waiting is not possible for a moment.")
NOT_MODIFIED = OpenApiResponse(description="Not modified: the answer you have (its ETag) is current.")


def replayed_response(body, response, *, location: str | None = None):
    """A DRF Response of an idempotent operation's ``response`` (``games.idempotency``), with
    ``Idempotent-Replayed: true`` when it is a stored answer and ``Location`` for a create."""
    from rest_framework.response import Response

    headers = {"Idempotent-Replayed": "true"} if response.replayed else {}
    if location:
        headers["Location"] = location
    return Response(body, status=response.status, headers=headers)


def location_header(what: str) -> OpenApiParameter:
    """The ``Location`` response header of a 201 (``what`` the URL points at)."""
    return OpenApiParameter("Location", OpenApiTypes.URI, OpenApiParameter.HEADER, response=["201"],
                            required=True, description=f"URL of {what}.")


_ERROR_DESCRIPTIONS = {
    "400": "Bad request (see error.code and error.detail).",
    "401": "No or invalid credentials.",
    "403": "Not allowed.",
    "404": "No such object, or you may not see it.",
    "406": "The Accept header excludes JSON.",
    "409": "Conflicts with the current state.",
    "413": "The body is too large.",
    "415": "Not JSON in UTF-8.",
    "422": "Refused by the rules (or an Idempotency-Key reused for another body).",
    "429": "Too many requests: wait Retry-After seconds.",
    "503": "The embedded database is busy: retry after Retry-After seconds; nothing changed.",
}


class OkginAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema with the statuses, headers and strictness described above."""

    def _needs_credentials(self) -> bool:
        return not any(isinstance(p, AllowAny) for p in self.view.get_permissions())

    def _default_error_codes(self) -> list[str]:
        codes = ["400", "406", "429", "503"]
        if self._needs_credentials() or getattr(self.view, "may_answer_401", False):
            codes.append("401")
        if "{" in self.path:
            codes.append("404")
        if self.method in ("POST", "PUT", "PATCH") and self._get_request_body():
            codes += ["413", "415"]
        return codes

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for part in (FieldErrorSerializer, StaleVersionDetailSerializer,  # referenced by ErrorDetailField
                     RematchExistsDetailSerializer, RematchOfferedDetailSerializer):
            self.resolve_serializer(part(), "response")
        self.registry.register_on_missing(ResolvedComponent(
            name="FieldErrors", type=ResolvedComponent.SCHEMA, schema=FIELD_ERRORS_SCHEMA, object="FieldErrors"))
        for code in self._default_error_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(ErrorSerializer, code, direction=direction)
        for code, response in responses.items():
            if code >= "400" and not response.get("description"):
                response["description"] = _ERROR_DESCRIPTIONS.get(code, "")
        return dict(sorted(responses.items()))

    def _get_request_body(self, direction="request"):
        body = super()._get_request_body(direction)
        if body and isinstance(self.get_request_serializer(), PolymorphicProxySerializer):
            body["required"] = True  # a oneOf of objects (e.g. the device platforms): never absent
        return body

    def get_override_parameters(self):
        return [*super().get_override_parameters(), RETRY_AFTER]

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "request":
            schema["additionalProperties"] = False  # unknown fields are refused (400)
        return schema

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        # A list of serializers whose items may be null (e.g. an open challenge's empty seat):
        # drf-spectacular drops the child's allow_null, so build the array of nullable refs here.
        if (isinstance(field, serializers.ListField) and isinstance(field.child, serializers.Serializer)
                and field.child.allow_null):
            component = self.resolve_serializer(field.child, direction)
            schema = build_array_type({"allOf": [component.ref], "nullable": True},
                                      min_length=field.min_length, max_length=field.max_length)
            return schema
        return super()._map_serializer_field(field, direction, bypass_extensions)


def unify_action_schema(result, generator, request, public):
    """Post-processing hook: request bodies refer to ``Action`` and its variants (the schema of
    legal actions and moves) instead of twins ``ActionRequest``, ``DiscardActionRequest``...; each
    twin is the same object (checked here), closed (``additionalProperties: false``)."""
    schemas = result.get("components", {}).get("schemas", {})

    def without_min_length(node):  # the request side adds minLength 1 to non-blank strings
        if isinstance(node, dict):
            return {k: without_min_length(v) for k, v in node.items() if k != "minLength"}
        return [without_min_length(v) for v in node] if isinstance(node, list) else node

    renames = {}
    for name in [n for n in schemas if n == "Action" or (n.endswith("Action") and f"{n}Request" in schemas)]:
        twin, action = schemas.get(f"{name}Request"), schemas[name]
        if twin is None:
            continue
        comparable = {k: v for k, v in twin.items() if k != "additionalProperties"}
        if name == "Action":
            comparable = json.loads(json.dumps(comparable).replace('Request"', '"'))
        assert without_min_length(comparable) == without_min_length(action), \
            f"{name}Request and {name} differ: {comparable} {action}"
        if "properties" in action:
            action["additionalProperties"] = False
        renames[f"#/components/schemas/{name}Request"] = f"#/components/schemas/{name}"

    def replace(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref" and value in renames:
                    node[key] = renames[value]
                elif key == "mapping" and isinstance(value, dict):
                    node[key] = {k: renames.get(v, v) for k, v in value.items()}
                else:
                    replace(value)
        elif isinstance(node, list):
            for value in node:
                replace(value)

    for ref in renames:
        del schemas[ref.rsplit("/", 1)[1]]
    replace(result)
    return result


def enum_var_names(values: list[str]) -> list[str]:
    """A distinct identifier per enum value for generated clients (``x-enum-varnames``):
    ``Etc/GMT+5`` is ``ETC_GMT_PLUS_5``, ``Etc/GMT-5`` ``ETC_GMT_MINUS_5``, ``America/Port-au-Prince``
    ``AMERICA_PORT_AU_PRINCE`` (a name met twice gets its position appended)."""
    names: list[str] = []
    for i, value in enumerate(values):
        text = re.sub(r"-(?=[0-9])", "_MINUS_", value.replace("+", "_PLUS_"))
        name = re.sub(r"[^A-Z0-9]+", "_", text.upper()).strip("_") or f"VALUE_{i}"
        if name[0].isdigit():
            name = f"VALUE_{name}"
        names.append(f"{name}_{i}" if name in names else name)
    return names


def name_enum_values(result, generator, request, public):
    """Post-processing hook: a string enum whose values a client generator would name alike
    (``GMT+0``, ``GMT-0`` and ``GMT0`` are all ``GMT0`` once punctuation is dropped) gets
    ``x-enum-varnames``, one distinct identifier per value (``enum_var_names``)."""
    for schema in result.get("components", {}).get("schemas", {}).values():
        values = schema.get("enum")
        if not values or not all(isinstance(v, str) for v in values):
            continue
        plain = [re.sub(r"[^A-Za-z0-9]", "", v).upper() for v in values]
        if len(set(plain)) < len(plain):
            schema["x-enum-varnames"] = enum_var_names(values)
    return result
