"""Limit/offset pagination that refuses bad ``limit``/``offset`` values instead of guessing."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

from api.fields import QueryIntegerField

MAX_LIMIT = 500
# Far past any real list, and well inside the database's 64-bit OFFSET.
MAX_OFFSET = 1_000_000_000


class StrictLimitOffsetPagination(LimitOffsetPagination):
    """``?limit=`` (1 to 500, default ``PAGE_SIZE``) and ``?offset=`` (0 to 10**9).

    DRF's stock class silently falls back to the default on ``?limit=abc``; a client
    with a typo would page through the wrong data without knowing, so this one says 400.
    """

    max_limit = MAX_LIMIT

    def _read(self, request: Request, name: str, minimum: int, maximum: int | None) -> int | None:
        raw = request.query_params.get(name)
        if raw is None:
            return None
        field = QueryIntegerField(min_value=minimum, max_value=maximum)
        try:
            return field.run_validation(raw)
        except ValidationError as error:
            raise ValidationError({name: error.detail}) from None

    def get_limit(self, request: Request) -> int | None:
        limit = self._read(request, self.limit_query_param, 1, self.max_limit)
        return self.default_limit if limit is None else limit

    def get_offset(self, request: Request) -> int:
        offset = self._read(request, self.offset_query_param, 0, MAX_OFFSET)
        return offset or 0

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        bounds = {
            self.limit_query_param: {"minimum": 1, "maximum": self.max_limit},
            self.offset_query_param: {"minimum": 0, "maximum": MAX_OFFSET},
        }
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters
