"""Control characters in typed text: found and described, so that input holding one is
refused with a message rather than stored.

PostgreSQL refuses a NUL byte in any text column (the whole statement fails), and other
control characters (escape, backspace, bell…) are invisible in every page and export that
shows the text. Tabs and line breaks are ordinary whitespace and are let through.
"""

from __future__ import annotations

import re

#: Whitespace that text may hold (a name's is folded to single spaces).
ALLOWED = frozenset("\t\n\r")


#: Unicode's control characters (category Cc: U+0000 to U+001F and U+007F to U+009F) but
#: for a tab and the line breaks: one search finds the first (a test checks the set).
CONTROL_CHARACTER = re.compile(
    "["
    + "".join(
        re.escape(chr(code))
        for code in (*range(0x20), *range(0x7F, 0xA0))
        if chr(code) not in ALLOWED
    )
    + "]"
)


def first_control_character(text: str) -> str | None:
    """The first control character of ``text`` other than a tab or a line break, described
    for a message ("U+0000 (a NUL byte) at character 3"); None when there is none."""
    found = CONTROL_CHARACTER.search(text)
    if found is None:
        return None
    char = found.group()
    what = " (a NUL byte)" if char == "\x00" else ""
    return f"U+{ord(char):04X}{what} at character {found.start() + 1}"
