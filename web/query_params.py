"""The pages' and exports' query parameters read safely: any text in, a usable value out.

A query string is typed by anyone. ``str.isdigit`` is true for "²" and "١٢", ``int`` reads
"1_000" and refuses a 5,000-digit number with its own error, and a number past the
database's 64-bit integers fails in SQL; a NUL byte in a text compared with a column fails
the whole statement on PostgreSQL. These readers accept ASCII digits (or a slug's ASCII
characters) only and bound what they return, so no query string reaches a query it can break.
"""

from __future__ import annotations

import re

from django.http import Http404

from league.control_characters import CONTROL_CHARACTER
from league.event_log import MAX_PAGE

# Longest run of digits read as a number: more than any page or version, less than 2**63.
_MAX_DIGITS = 18
_DIGITS = re.compile(r"[0-9]+")
# A slug as the site makes them (players, seasons, leagues): ASCII only, so never a control
# character; as long as the longest slug column.
_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,140}")
# Configuration versions are stored in a 32-bit column.
MAX_VERSION = 2**31 - 1


def _digits(raw: str | None) -> str | None:
    """``raw`` (spaces around removed) if it is ASCII digits only, else None."""
    text = (raw or "").strip()
    return text if _DIGITS.fullmatch(text) else None


def page_number(raw: str | None, default: int = 1) -> int:
    """``?page=`` as a page from 1 to ``MAX_PAGE``; ``default`` when absent or not a number.

    A page past the end is clamped (the selectors then show the last page), as is one
    with more digits than any page number has.
    """
    digits = _digits(raw)
    if digits is None:
        return default
    if len(digits) > _MAX_DIGITS:
        return MAX_PAGE
    return max(1, min(int(digits), MAX_PAGE))


def version_number(raw: str | None) -> int | None:
    """``?version=`` (or ``?a=``, ``?b=``) as a version number; None when absent or empty.

    Raises ``Http404`` naming the value when it is not a version number at all.
    """
    if raw is None or not raw.strip():
        return None
    digits = _digits(raw)
    if digits is None or len(digits) > _MAX_DIGITS or not 1 <= int(digits) <= MAX_VERSION:
        raise Http404(f"No configuration version {raw[:40]!r} (versions are numbered 1, 2, 3…).")
    return int(digits)


def slug_param(raw: str | None) -> str | None:
    """``?a=``, ``?season=``, ``?player=``… as a slug to look up (spaces around removed);
    None when absent or when it cannot be a slug (a control character, a NUL byte, any
    other character a slug never has, too long), so it is never sent to the database."""
    text = (raw or "").strip()
    return text if _SLUG.fullmatch(text) else None


def shown_param(raw: str) -> str:
    """``raw`` cut short, its control characters written as escapes ("\\x00"), for a
    message that names a value the page ignores."""
    return CONTROL_CHARACTER.sub(
        lambda found: found.group().encode("unicode_escape").decode(), raw.strip()[:40]
    )
