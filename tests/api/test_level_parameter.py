"""The standings' ``level`` parameter: the schema's pattern and the API accept the same texts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from api.fields import LEVEL_MAX_LENGTH, LEVEL_PATTERN, QueryLevelField
from engine.intervals import MAX_Z


@pytest.mark.property
@given(st.from_regex(LEVEL_PATTERN, fullmatch=True).filter(lambda t: len(t) <= LEVEL_MAX_LENGTH))
def test_every_level_the_schema_allows_is_read(text):
    level = QueryLevelField().to_internal_value(text)
    # Ten deviations cover 100 % to a float's precision (the label says "> 99.99 %").
    assert 0 < level.percent <= 100
    assert 0 < level.z <= MAX_Z


@pytest.mark.parametrize(
    ("text", "z"),
    [("95", 1.959963985), ("99.9%", 3.290526731), ("z2", 2.0), ("Z=1.5", 1.5), ("2sd", 2.0),
     ("10z", 10.0), ("0.5", 0.006266571), ("099.999999999999", 7.7399)],
)  # fmt: skip
def test_levels_in_each_form_are_read(text, z):
    assert QueryLevelField().to_internal_value(text).z == pytest.approx(z, abs=1e-3)


@pytest.mark.parametrize(
    "text",
    ["0", "0.0", "100", "100.0", "150", "z0", "z10.5", "z11", "-5", ".5", " 95", "95 ", "95 %",
     "z = 2", "\u0669\u0665", "99.9999999999999", "1e1", "lots", "", "0" * 39 + "95"],
)  # fmt: skip
def test_texts_outside_the_pattern_are_refused(text):
    assert not re.fullmatch(LEVEL_PATTERN, text) or len(text) > LEVEL_MAX_LENGTH
    with pytest.raises(ValidationError):
        QueryLevelField().to_internal_value(text)
