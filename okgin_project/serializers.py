"""Strict request fields and serializers shared by every app: the API reads JSON as typed.

DRF turns a JSON number into a string for a ``CharField`` and drops unknown fields silently; here a
string field takes only a JSON string (else the field error ``not_a_string``), an integer field
only a JSON integer, and a serializer refuses fields it does not know (``unknown_field``).
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from rest_framework import serializers

from okgin_project.errors import ServiceError, field_errors


class _StringOnly:
    """Mixin for string fields: the JSON value must be a string."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        return super().to_internal_value(data)


_NOT_A_STRING = {"not_a_string": "Must be a JSON string."}
FIELD_UNKNOWN = "unknown_field"  # a field error code (FieldError.code), not an error code
FIELD_INVALID = "invalid"  # a field error code: a value of the right type the field refuses (Django's)
FIELD_REPEATED = "repeated"  # a field error code: a query parameter given more than once
FIELD_NOT_APPLICABLE = "not_applicable"  # a field error code: the field does not apply with the others


class StrictCharField(_StringOnly, serializers.CharField):
    default_error_messages = _NOT_A_STRING


class StrictRegexField(_StringOnly, serializers.RegexField):
    """A string that matches ``regex`` as a whole, as a client's ECMAScript check of the schema's
    ``pattern`` does: Python's ``$`` also matches before a final newline, so ``"bob\\n"`` passed
    ``^[a-z]{3}$`` (with ``trim_whitespace=False``); here it is ``invalid``."""

    default_error_messages = _NOT_A_STRING

    def __init__(self, regex, **kwargs):
        super().__init__(regex, **kwargs)
        self._whole = re.compile(regex) if isinstance(regex, str) else regex

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if self._whole.fullmatch(value) is None:
            self.fail("invalid")
        return value


class StrictEmailField(_StringOnly, serializers.EmailField):
    default_error_messages = _NOT_A_STRING


class StrictURLField(_StringOnly, serializers.URLField):
    default_error_messages = _NOT_A_STRING


class StrictChoiceField(_StringOnly, serializers.ChoiceField):
    """A choice among strings: only a JSON string can be one."""

    default_error_messages = _NOT_A_STRING


class StrictIntegerField(serializers.IntegerField):
    """An integer that must be a JSON integer: ``"1"``, ``1.0`` and ``true`` are refused."""

    def to_internal_value(self, data):
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A boolean that must be JSON ``true`` or ``false`` (not ``"yes"``, ``1``...)."""

    def to_internal_value(self, data):
        if type(data) is not bool:
            self.fail("invalid")
        return data


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses fields it does not know (DRF drops them silently): 400 with the
    field error ``unknown_field`` for each. With ``unknown_field_code`` set the error's code is that
    (e.g. ``bad_rules``), else ``validation_error``."""

    unknown_field_code: str | None = None

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            writable = {name for name, field in self.fields.items() if not field.read_only}
            extra = sorted(str(k) for k in set(data) - writable)
            errors = {k: [serializers.ErrorDetail("Unknown field.", code=FIELD_UNKNOWN)] for k in extra}
            if extra and self.unknown_field_code:  # raised past the parents: name the full path
                raise ServiceError(f"Unknown field(s): {', '.join(extra)}.", code=self.unknown_field_code,
                                   detail=field_errors(errors, prefix=self._path().rstrip(".")))
            if extra:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)

    def _path(self) -> str:
        """``"rules."`` for a serializer nested as the field ``rules`` (dotted for deeper ones)."""
        names, node = [], self
        while getattr(node, "parent", None) is not None and node.field_name:
            names.append(node.field_name)
            node = node.parent
        return "".join(f"{n}." for n in reversed(names))


class NoBodyMixin:
    """Mix into an ``APIView`` (before it) whose POST takes no body (``request=None`` in its schema):
    a body holding any field is refused like a ``StrictSerializer`` refuses unknown fields (400
    ``validation_error``, the field error ``unknown_field`` for each; a body that is not a JSON
    object: 400 ``validation_error``), after authentication and throttling and before anything is
    read or written. No body, or ``{}``, is accepted."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.method == "POST":
            StrictSerializer(data=request.data).is_valid(raise_exception=True)


class CodedFieldMixin:
    """Mix into a field: a value the field refuses (a bad choice, a malformed URL, null, not a
    string) raises ``ServiceError`` 400 with the field's own ``error_code`` and ``error_message``
    (the field errors in ``detail``) instead of ``validation_error``: a stable code clients can act
    on. A missing required field stays a ``validation_error``."""

    error_code: str = "validation_error"
    error_message: str = "Invalid value."

    def run_validation(self, data=serializers.empty):
        if data is serializers.empty:
            return super().run_validation(data)
        try:
            return super().run_validation(data)
        except serializers.ValidationError as exc:
            raise ServiceError(self.error_message, code=self.error_code,
                               detail=field_errors({self.field_name: exc.detail})) from None


class AiLevelField(CodedFieldMixin, StrictChoiceField):
    """An AI level (``choices``); anything else is 400 ``bad_ai_level``."""

    error_code = "bad_ai_level"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.error_message = f"Unknown AI level; choose one of {', '.join(str(c) for c in self.choices)}."


class WebhookUrlField(CodedFieldMixin, StrictURLField):
    """A URL; a malformed one is 400 ``bad_url`` (the scheme and host are checked by the service)."""

    error_code = "bad_url"
    error_message = "The webhook URL is not a valid http(s) URL."
