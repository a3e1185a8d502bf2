"""Control characters in typed text: found and described, so that input holding one is
refused with a message rather than stored.

PostgreSQL refuses a NUL byte in any text column (the whole statement fails), and other
control characters (escape, backspace, bell…) are invisible in every page and export that
shows the text. Tabs and line breaks are ordinary whitespace and are let through.
"""

from __future__ import annotations

import unicodedata

#: Whitespace that text may hold (a name's is folded to single spaces).
ALLOWED = frozenset("\t\n\r")


def first_control_character(text: str) -> str | None:
    """The first control character of ``text`` other than a tab or a line break, described
    for a message ("U+0000 (a NUL byte) at character 3"); None when there is none."""
    for position, char in enumerate(text, start=1):
        if unicodedata.category(char) == "Cc" and char not in ALLOWED:
            what = " (a NUL byte)" if char == "\x00" else ""
            return f"U+{ord(char):04X}{what} at character {position}"
    return None
