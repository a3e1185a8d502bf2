"""How tie-break values and forecast chances are written (web/formatting.py)."""

from __future__ import annotations

import pytest

from web.formatting import format_chance, format_tiebreak


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "–"),
        (0.0, "0"),
        (5.0, "5"),
        (5.5, "5½"),
        (0.5, "½"),
        (2.75, "2¾"),
        (4.25, "4¼"),
        (1733, "1733"),
        (10 / 3, "3.33"),
        (-1.5, "-1½"),
    ],
)
def test_tiebreak_values(value, text):
    assert format_tiebreak(value) == text


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.0, "0 %"), (1.0, "100 %"), (0.004, "< 1 %"), (0.996, "> 99 %"), (0.375, "38 %")],
)
def test_forecast_chances(p, text):
    assert format_chance(p) == text
