"""Strict serializer fields: accept exactly what the OpenAPI schema documents.

DRF's stock fields are lenient (a ``CharField`` takes ``12``, an ``IntegerField`` takes
``"12"`` or ``"12.0"``, a ``BooleanField`` takes ``"yes"``). The API promises that input
the schema calls invalid is refused, so JSON bodies and query strings go through these.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engine.errors import InvalidParameterError
from engine.intervals import ConfidenceLevel

_INTEGER = re.compile(r"-?[0-9]+")

# A confidence level as the schema states it, so that every string it allows is a level
# (``ConfidenceLevel.parse`` alone also reads spaces, Unicode digits, and "0" or "100" only
# to refuse them). A percent strictly between 0 and 100 with at most 12 decimals (more
# could round to 100), optionally followed by %; or deviations either side, above 0 and at
# most 10, as z2, z=1.5, 2z or 2sd (either case).
_PERCENT = r"(?:0*[1-9][0-9]?(?:\.[0-9]{1,12})?|0+\.[0-9]{0,11}[1-9][0-9]{0,11})"
_DEVIATIONS = r"(?:0*10(?:\.0{1,12})?|0*[1-9](?:\.[0-9]{1,12})?|0+\.[0-9]{0,11}[1-9][0-9]{0,11})"
LEVEL_PATTERN = rf"^(?:{_PERCENT}%?|[zZ]=?{_DEVIATIONS}|{_DEVIATIONS}(?:[zZ]|[sS][dD]))$"
LEVEL_MAX_LENGTH = 40


class StrictCharField(serializers.CharField):
    """A JSON string, and only a string."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true`` or ``false`` (not a string, not a number)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class StrictFloatField(serializers.FloatField):
    """A JSON number (not a string, not a boolean)."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer (not a string, not a boolean)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        if isinstance(data, float) and not data.is_integer():
            self.fail("invalid")
        return super().to_internal_value(int(data))


class QueryIntegerField(serializers.IntegerField):
    """A plain decimal integer in a query string (no ``1.0``, no spaces)."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not _INTEGER.fullmatch(data):
            self.fail("invalid")
        return super().to_internal_value(data)


class QueryBooleanField(serializers.BooleanField):
    """``true`` or ``false`` in a query string (no ``yes``/``on``/``1``)."""

    # DRF reads an absent checkbox as False; an absent query parameter is just absent.
    default_empty_html = serializers.empty

    def to_internal_value(self, data: Any) -> bool:
        if data not in ("true", "false"):
            self.fail("invalid", input=data)
        return data == "true"


@extend_schema_field({"type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.5})
class ScoreField(serializers.Field):
    """Player A's score: the JSON number 1 (win), 0.5 (draw) or 0 (loss)."""

    default_error_messages = {"invalid": _("Must be the number 1 (win), 0.5 (draw) or 0 (loss).")}

    def to_internal_value(self, data: Any) -> Decimal:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        if data not in (1, 0.5, 0):
            self.fail("invalid")
        return Decimal(str(float(data))).normalize()

    def to_representation(self, value: Any) -> float:
        return float(value)


class AwareDateTimeField(serializers.DateTimeField):
    """An RFC 3339 date-time string with a UTC offset (a naive one is ambiguous: refused)."""

    default_error_messages = {
        "naive": _("Give a UTC offset, e.g. 2024-05-01T19:30:00+01:00 or 2024-05-01T18:30:00Z."),
    }

    def to_internal_value(self, value: Any) -> dt.datetime:
        if not isinstance(value, str):
            self.fail("invalid", format="YYYY-MM-DDThh:mm:ss+hh:mm")
        try:
            naive = dt.datetime.fromisoformat(value).tzinfo is None
        except ValueError:
            naive = False  # the parent reports the bad format
        if naive:
            self.fail("naive")
        return super().to_internal_value(value)


@extend_schema_field({"type": "string", "pattern": LEVEL_PATTERN, "maxLength": LEVEL_MAX_LENGTH})
class QueryLevelField(serializers.Field):
    """A confidence level in a query string (``LEVEL_PATTERN``), as a ``ConfidenceLevel``."""

    default_error_messages = {
        "invalid": _(
            "Give a percent strictly between 0 and 100 (68, 95, 99.9, 99.9%) or a number "
            "of deviations either side, above 0 and at most 10 (z2, z=1.5, 2z, 2sd); "
            "got {input!r}."
        ),
    }

    def to_internal_value(self, data: Any) -> ConfidenceLevel:
        text = data if isinstance(data, str) else ""
        if len(text) > LEVEL_MAX_LENGTH or not re.fullmatch(LEVEL_PATTERN, text):
            self.fail("invalid", input=str(data)[:LEVEL_MAX_LENGTH])
        try:
            return ConfidenceLevel.parse(text)
        except InvalidParameterError:
            # The pattern admits levels only; kept so that no string can become a 500.
            self.fail("invalid", input=text)

    def to_representation(self, value: Any) -> str:
        return str(value)
