"""``name_key``: the names it treats as one, for any name (Hypothesis)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.player_names import clean_name, name_key

pytestmark = pytest.mark.property

# Latin letters with and without accents, and spaces: case mappings round-trip for these
# (unlike, say, the Turkish dotless i, whose capital is the ordinary I).
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZàáâäçèéêëìíîïñòóôöùúûüÀÁÂÄÇÈÉÊËÑÖÜ"
names = st.text(alphabet=LETTERS + " ", min_size=1, max_size=30).filter(lambda s: s.strip())
INVISIBLES = ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u200e"]


@given(names)
def test_case_does_not_matter(name):
    assert name_key(name.upper()) == name_key(name.lower()) == name_key(name)


@given(names, st.integers(min_value=0, max_value=30), st.sampled_from(INVISIBLES))
def test_an_invisible_character_anywhere_does_not_matter(name, at, invisible):
    at = at % (len(name) + 1)
    assert name_key(name[:at] + invisible + name[at:]) == name_key(name)


@given(names)
def test_spacing_does_not_matter(name):
    assert name_key("  " + name.replace(" ", " \u00a0 ") + " ") == name_key(name)


@given(names)
def test_accents_and_composition_do_not_matter(name):
    stripped = "".join(
        c for c in unicodedata.normalize("NFD", name) if unicodedata.category(c) != "Mn"
    )
    assert name_key(unicodedata.normalize("NFD", name)) == name_key(name) == name_key(stripped)


@given(names)
def test_a_key_is_its_own_key_and_clean_names_keep_theirs(name):
    assert name_key(name_key(name)) == name_key(name)
    assert name_key(clean_name(name)) == name_key(name)
