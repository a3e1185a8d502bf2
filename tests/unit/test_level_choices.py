"""The interval picker offers each level once, with the one in use selected."""

from __future__ import annotations

import pytest

from engine.intervals import ConfidenceLevel
from ratings.selectors.standings import DEFAULT_LEVEL
from web.forms import LEVEL_CHOICES, level_choices, parse_level


@pytest.mark.parametrize(
    "level",
    [DEFAULT_LEVEL, *(parse_level(str(p)) for p in LEVEL_CHOICES), ConfidenceLevel.parse("z2")],
)
def test_each_level_is_offered_once_and_the_one_in_use_is_selected(level):
    # "95 %" appeared twice: the offered 95 % (z 1.95996…) beside the default (z 1.96).
    options = level_choices(level)
    labels = [option["label"] for option in options]
    assert len(labels) == len(set(labels)), labels
    assert sum(option["selected"] for option in options) == 1
    assert {"68 %", "90 %", "95 %", "99 %"} <= set(labels)
