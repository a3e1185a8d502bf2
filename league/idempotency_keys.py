"""Idempotency keys made on the write side: every key scheme in one place.

A form gets a fresh key each time it is rendered (``new_key``), so a double submission
stores one result. A client gives one key per submission; a submission that stores several
events derives a key for each of them from it, so that a retry maps every event to the
same stored one:

- a correction stores its void under ``<key>/void`` (``correction_void_key``);
- a round entered in the admin stores row ``i`` under ``<key>/<i>`` (``round_row_key``).

``scoped_key`` builds ``<scope>:<key>[:<part>…]`` keys, for an entry point that keeps the
keys of different kinds of request apart (the API's ``match:``, ``void:`` and ``round:``
keys have this shape).
"""

from __future__ import annotations

import uuid

VOID_SUFFIX = "/void"


def new_key() -> str:
    """A fresh key for one rendered form."""
    return uuid.uuid4().hex


def correction_void_key(key: str | None) -> str | None:
    """The key of the void a correction keyed ``key`` stores (None without a key)."""
    return f"{key}{VOID_SUFFIX}" if key else None


def round_row_key(key: str | None, index: int) -> str | None:
    """The key of row ``index`` (from 0) of a round submitted under ``key``."""
    return f"{key}/{index}" if key else None


def scoped_key(scope: str, key: str | None, *parts: object) -> str | None:
    """``<scope>:<key>`` followed by ``:<part>`` for each part (None without a key).

    The scope keeps keys of different kinds of request apart, so that a client reusing a
    key for another kind of request is never mistaken for a retry.
    """
    if key is None:
        return None
    return ":".join([scope, key, *(str(part) for part in parts)])
