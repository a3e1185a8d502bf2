"""Text cells of CSV files made safe for spreadsheets, and read back unchanged.

A spreadsheet opening a CSV file runs a cell that starts with ``=``, ``+``, ``-`` or ``@``
(and, in some, one that starts with a tab or a carriage return) as a formula: a player named
``=HYPERLINK("https://evil.example/","x")`` becomes a link in the organiser's spreadsheet.
OWASP's guidance ("CSV Injection") is to prefix such a cell with a single quote, which the
spreadsheet shows as text. ``neutralise`` does that for every text cell the app writes;
``restore`` undoes it when a file is imported, so an export imports as the same results.

Two rules keep the pair exact:

- a text cell that is a plain number (``-12.5``, ``+3``) is left alone: it is no formula,
  and a spreadsheet reads it as the number it is;
- a cell that already starts with quotes before a formula character gets one more quote,
  so that ``restore`` (which removes exactly one) gives back the original text.
"""

from __future__ import annotations

import re

#: The characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_STARTS = frozenset("=+-@\t\r")
#: The prefix that makes a spreadsheet show a cell as text.
PREFIX = "'"

_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _is_formula(text: str) -> bool:
    """Would a spreadsheet run ``text`` (quotes in front removed) as a formula?"""
    bare = text.lstrip(PREFIX)
    return bare[:1] in FORMULA_STARTS and not _PLAIN_NUMBER.fullmatch(bare)


def neutralise(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet runs as a formula (``restore`` undoes it)."""
    return PREFIX + text if _is_formula(text) else text


def restore(cell: str) -> str:
    """The text ``neutralise`` was given for ``cell`` (other cells are returned unchanged)."""
    if cell.startswith(PREFIX) and _is_formula(cell):
        return cell[len(PREFIX) :]
    return cell
