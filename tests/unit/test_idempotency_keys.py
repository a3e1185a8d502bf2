"""Keys derived from a client's key (``league.idempotency_keys``): no database."""

from __future__ import annotations

from league.idempotency_keys import correction_void_key, new_key, round_row_key, scoped_key


def test_derived_keys():
    assert correction_void_key("fix-1") == "fix-1/void"
    assert round_row_key("round-7", 2) == "round-7/2"
    assert scoped_key("round", "abc", 3, 0) == "round:abc:3:0"
    assert scoped_key("match", "abc") == "match:abc"


def test_no_key_derives_no_key():
    assert correction_void_key(None) is None
    assert correction_void_key("") is None
    assert round_row_key(None, 0) is None
    assert scoped_key("void", None) is None


def test_each_rendered_form_gets_a_new_key():
    keys = {new_key() for _ in range(100)}
    assert len(keys) == 100
