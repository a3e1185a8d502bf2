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


# --- what it keeps apart: a key that ignored too much would merge different players -------

ASCII = "abcdefghijklmnopqrstuvwxyz"
#: Names already in their key's form: lower-case ASCII words, single spaces.
plain_names = st.lists(st.text(alphabet=ASCII, min_size=1, max_size=8), min_size=1, max_size=4)


def _base_letter(char: str) -> str:
    """``char`` without its accents, in lower case (how a reader would compare letters)."""
    return unicodedata.normalize("NFD", char)[0].lower()


@given(plain_names)
def test_a_name_already_in_key_form_is_its_own_key(words):
    name = " ".join(words)
    assert name_key(name) == name


@given(names)
def test_every_letter_is_kept(name):
    letters = [char for char in name if not char.isspace()]
    assert len(name_key(name).replace(" ", "")) == len(letters)


@given(names, st.integers(min_value=0), st.sampled_from(ASCII))
def test_names_a_letter_apart_have_different_keys(name, at, replacement):
    positions = [index for index, char in enumerate(name) if not char.isspace()]
    index = positions[at % len(positions)]
    if _base_letter(name[index]) == replacement:
        replacement = ASCII[(ASCII.index(replacement) + 1) % len(ASCII)]
    other = name[:index] + replacement + name[index + 1 :]
    assert name_key(other) != name_key(name), (name, other)


@given(names, st.sampled_from(ASCII))
def test_a_name_with_one_more_letter_has_another_key(name, letter):
    assert name_key(name + letter) != name_key(name)
    assert name_key(letter + name) != name_key(name)


@given(plain_names.filter(lambda words: len(words[0]) > 1), st.integers(min_value=1))
def test_a_word_split_in_two_is_another_name(words, at):
    first = words[0]
    at = 1 + at % (len(first) - 1)
    split = [first[:at], first[at:], *words[1:]]
    assert name_key(" ".join(split)) != name_key(" ".join(words))


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Bob Baker", "bob baker"),
        ("  BOB\u00a0\u00a0baker ", "bob baker"),
        ("Bób Bäker", "bob baker"),
        ("Bob\u200bBaker", "bobbaker"),
        ("Zoë Ångström", "zoe angstrom"),
        ("Straße", "strasse"),
        ("\ufb01ona", "fiona"),  # the "fi" ligature is two letters
        ("\uff22\uff4f\uff42", "bob"),  # full-width letters
        ("Ann-Marie O'Neil", "ann-marie o'neil"),
        ("Chen Wei 陈伟", "chen wei 陈伟"),
        ("Ivo Novak 2", "ivo novak 2"),
    ],
)
def test_keys_of_names_written_by_hand(name, key):
    assert name_key(name) == key


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Bob Baker", "Rob Baker"),
        ("Ann Marie", "Annmarie"),
        ("Ivo Novak", "Ivo Novak 2"),
        ("Chen Wei", "Wei Chen"),
        ("Ann-Marie", "Ann Marie"),
    ],
)
def test_different_names_written_by_hand_have_different_keys(first, second):
    assert name_key(first) != name_key(second)
