"""A player's results are paged by whole rating periods (``period_pages``)."""

from __future__ import annotations

import pytest

from ratings.selectors.players import period_pages


@pytest.mark.parametrize(
    ("keys", "per_page", "starts"),
    [
        ([], 3, [0]),
        ([5, 4, 4, 4, 3, 2, 1], 3, [0, 1, 4]),  # the run of three 4s stays together
        ([5, 5, 5, 5, 5, 4], 3, [0, 5]),  # a run longer than a page is a page of its own
        ([3, 2, 1], 3, [0]),
        ([None, None, 1], 2, [0, 2]),  # results before the first period group together
    ],
)
def test_pages_start_only_where_a_period_starts(keys, per_page, starts):
    assert period_pages(keys, per_page) == starts
    for start in starts[1:]:
        assert keys[start] != keys[start - 1]
