"""Request bodies: every problem of a body in one answer, and no field the API ignores.

DRF's ``Serializer`` stops early: ``validate()`` (the checks across fields) runs only once
every field is valid, and fields it does not declare are dropped without a word. A client
whose body had a bad score, the same player twice and a future date needed three round
trips, and a misspelt optional field (``notes`` for ``note``) was silently lost.
``BodySerializer`` answers once with all of it: unknown fields, each field's own errors, and
the checks of ``check()``, which sees every field that did parse.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.fields import SkipField, get_error_detail
from rest_framework.settings import api_settings

UNKNOWN_FIELD = "unknown_field"

FieldErrors = dict[str, list[Any]]


def add_error(errors: FieldErrors, field: str, message: str, code: str = "invalid") -> None:
    """Add one message for ``field`` (``code`` is its machine-readable code)."""
    errors.setdefault(field, []).append(ErrorDetail(message, code=code))


def add_django_errors(
    errors: FieldErrors, found: Mapping[str, list[DjangoValidationError]]
) -> None:
    """Add field -> Django ``ValidationError`` lists (a write-side ``Errors`` collector)."""
    for field, django_errors in found.items():
        errors.setdefault(field, []).extend(get_error_detail(DjangoValidationError(django_errors)))


class BodySerializer(serializers.Serializer):
    """A JSON object body: declared fields only, all of its errors reported together."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            message = self.error_messages["invalid"].format(datatype=type(data).__name__)
            raise serializers.ValidationError(
                {api_settings.NON_FIELD_ERRORS_KEY: [message]}, code="invalid"
            )
        errors: FieldErrors = {}
        attrs: dict[str, Any] = {}
        writable = list(self._writable_fields)
        for field in writable:
            try:
                value = field.run_validation(field.get_value(data))
            except serializers.ValidationError as exc:
                errors[field.field_name] = exc.detail
            except DjangoValidationError as exc:
                errors[field.field_name] = get_error_detail(exc)
            except SkipField:
                continue
            else:
                self.set_value(attrs, field.source_attrs, value)
        self.check(data, attrs, errors)
        known = ", ".join(field.field_name for field in writable)
        for name in sorted(set(data) - {field.field_name for field in writable}, key=str):
            add_error(errors, str(name), f"Unknown field; this body takes: {known}.", UNKNOWN_FIELD)
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    def check(self, data: Mapping[str, Any], attrs: dict[str, Any], errors: FieldErrors) -> None:
        """Checks across fields: add to ``errors``; ``attrs`` holds the fields that parsed.

        Runs even when some fields failed, so that its findings join theirs.
        """
