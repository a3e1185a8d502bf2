"""One error format for every API response that is not a success.

Every error body has the same three keys::

    {"detail": "Invalid input.", "code": "invalid", "errors": {"score_a": ["…"]}}

``detail`` is a human-readable summary, ``code`` a stable machine-readable code and
``errors`` maps a field name (or ``non_field_errors``, or a header name such as
``Idempotency-Key``) to a list of messages; it is ``{}`` when no field is at fault.
Django's own ``ValidationError`` (raised by the write services with a dict of field ->
messages) is translated here, so views can call services without catching it; so is
Django's ``RequestDataTooBig`` (a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``), which would
otherwise become Django's HTML "Bad Request (400)" page: it is a 413 here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.utils.translation import gettext
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from api.idempotency import HEADER, IDEMPOTENCY_CONFLICT, IdempotencyConflict, client_key_of

NON_FIELD = api_settings.NON_FIELD_ERRORS_KEY


class PayloadTooLarge(exceptions.APIException):
    """The request body is larger than the server reads (413)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"

    def __init__(self) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        super().__init__(
            f"The request body is larger than the {limit:,} bytes the API accepts."
            if limit is not None
            else "The request body is too large."
        )


def _single_errors(error: DjangoValidationError) -> list[DjangoValidationError]:
    """The one-message errors inside a Django ``ValidationError``, all fields together."""
    if hasattr(error, "error_dict"):
        return [e for errors in error.error_dict.values() for e in errors]
    return list(error.error_list)


def django_error_codes(error: DjangoValidationError) -> set[str]:
    """Every ``code`` found anywhere inside a Django ``ValidationError``."""
    return {e.code for e in _single_errors(error) if e.code is not None}


def django_error_messages(error: DjangoValidationError) -> dict[str, list[str]]:
    """A Django ``ValidationError`` as ``{field: [messages]}`` (non-field -> ``NON_FIELD``)."""
    if hasattr(error, "error_dict"):
        return {
            _field_name(field): [str(m) for m in messages]
            for field, messages in error.message_dict.items()
        }
    return {NON_FIELD: [str(m) for m in error.messages]}


def _field_name(path: str) -> str:
    """The ``errors`` key for a dotted error path.

    An object's own (non-field) errors belong to the object: ``results`` rather than
    ``results.non_field_errors``; at the top level they are ``non_field_errors``.
    """
    parent, _, last = path.rpartition(".")
    if last in (NON_FIELD, "__all__"):
        return parent or NON_FIELD
    return path or NON_FIELD


def _client_worded(error: DjangoValidationError) -> str:
    """One message, with the store key it names replaced by the key the client sent."""
    params = dict(error.params or {})
    if isinstance(params.get("key"), str):
        params["key"] = client_key_of(params["key"])
    return str(error.message % params) if params else str(error.message)


def translate_django_error(error: DjangoValidationError) -> exceptions.APIException:
    """Map a service's ``ValidationError`` to a 400, or to a 422 for an idempotency conflict."""
    if IDEMPOTENCY_CONFLICT in django_error_codes(error):
        return IdempotencyConflict([_client_worded(e) for e in _single_errors(error)])
    return exceptions.ValidationError(django_error_messages(error))


@contextmanager
def fields_renamed(names: Mapping[str, str]) -> Iterator[None]:
    """Re-key a write service's ``ValidationError`` by the field names the client sent.

    The service knows one ``played_at``; a client that sent ``played_on`` reads its error
    there (``names``: service key -> client key).
    """
    try:
        yield
    except DjangoValidationError as error:
        if not names or not hasattr(error, "error_dict"):
            raise
        renamed = {names.get(field, field): errors for field, errors in error.error_dict.items()}
        raise DjangoValidationError(renamed) from error


def _flatten(data: Any) -> dict[str, list[str]]:
    """Normalise DRF's nested error data to ``{field: [messages]}``.

    Nested errors (a round's rows, a nested object) are flattened to dotted names such
    as ``results.2.score_a`` so that every value is a flat list of strings.
    """
    flat: dict[str, list[str]] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, sub in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), sub)
        elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
            for index, sub in enumerate(value):
                if sub:
                    walk(f"{prefix}.{index}" if prefix else str(index), sub)
        elif isinstance(value, list):
            flat.setdefault(_field_name(prefix), []).extend(str(v) for v in value)
        else:
            flat.setdefault(_field_name(prefix), []).append(str(value))

    walk("", data)
    return flat


def _first_code(codes: Any) -> str | None:
    if isinstance(codes, str):
        return codes
    if isinstance(codes, dict):
        codes = list(codes.values())
    if isinstance(codes, list):
        for item in codes:
            found = _first_code(item)
            if found:
                return found
    return None


def error_body(detail: str, code: str, errors: dict[str, list[str]] | None = None) -> dict:
    """The JSON body of an error response."""
    return {"detail": detail, "code": code, "errors": errors or {}}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF ``EXCEPTION_HANDLER``: render every handled error in the one format above."""
    if isinstance(exc, DjangoValidationError):
        exc = translate_django_error(exc)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None

    if isinstance(exc, IdempotencyConflict):
        response.data = error_body(str(exc.detail), IDEMPOTENCY_CONFLICT, {HEADER: exc.messages})
    elif isinstance(exc, exceptions.ValidationError):
        response.data = error_body(
            gettext("Invalid input."),
            _first_code(exc.get_codes()) or "invalid",
            _flatten(exc.detail),
        )
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = _first_code(exc.get_codes()) if isinstance(exc, exceptions.APIException) else None
        if isinstance(detail, dict | list):
            response.data = error_body(
                gettext("Request refused."), code or "error", _flatten(detail)
            )
        else:
            response.data = error_body(str(detail), code or "error")
    return response
