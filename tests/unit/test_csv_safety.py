"""Formula cells neutralised for spreadsheets and read back; control characters found."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.control_characters import first_control_character
from league.csv_safety import FORMULA_STARTS, neutralise, restore


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ('=HYPERLINK("https://evil.example/","x")', '\'=HYPERLINK("https://evil.example/","x")'),
        ("@SUM(1+1)", "'@SUM(1+1)"),
        ("+44 club", "'+44 club"),
        ("-Dash", "'-Dash"),
        ("\tTabbed", "'\tTabbed"),
        ("\rReturn", "'\rReturn"),
        ("'=already quoted", "''=already quoted"),
        ("''@twice", "'''@twice"),
    ],
)
def test_formula_cells_get_a_quote_and_lose_it_on_import(text, cell):
    assert neutralise(text) == cell
    assert restore(cell) == text


@pytest.mark.parametrize(
    "text",
    ["Ann Archer", "-12.5", "+3", "-1e5", ".5", "0.5", "3\u20131", "", "'", "'quoted", "O'Neil"],
)
def test_other_cells_are_written_and_read_unchanged(text):
    assert neutralise(text) == text
    assert restore(text) == text


@given(st.text())
def test_restore_undoes_neutralise(text):
    assert restore(neutralise(text)) == text


@given(st.text())
def test_no_neutralised_cell_starts_a_formula(text):
    cell = neutralise(text)
    if cell[:1] in FORMULA_STARTS:
        float(cell)  # only a plain number may start with a sign


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("A\x00nn", "U+0000 (a NUL byte) at character 2"),
        ("\x1b[31mred", "U+001B at character 1"),
        ("bell\x07", "U+0007 at character 5"),
        ("del\x7f", "U+007F at character 4"),
        ("c1\x85", "U+0085 at character 3"),
    ],
)
def test_control_characters_are_found_and_described(text, found):
    assert first_control_character(text) == found


@pytest.mark.parametrize("text", ["", "Ann", "two\twords", "line\nbreak\r\n", "\u00e9\u00b2\u2013"])
def test_tabs_line_breaks_and_printable_text_pass(text):
    assert first_control_character(text) is None


def test_the_control_character_pattern_is_unicodes_cc_category_but_tabs_and_line_breaks():
    import sys
    import unicodedata

    from league.control_characters import ALLOWED, CONTROL_CHARACTER

    found = {chr(c) for c in range(sys.maxunicode + 1) if CONTROL_CHARACTER.match(chr(c))}
    expected = {
        chr(c)
        for c in range(sys.maxunicode + 1)
        if unicodedata.category(chr(c)) == "Cc" and chr(c) not in ALLOWED
    }
    assert found == expected
    assert len(found) == 62
