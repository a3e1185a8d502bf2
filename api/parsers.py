"""The API's JSON body parser: DRF's, with a nesting limit.

Python's JSON decoder recurses once per level, so a body of 100,000 nested ``[`` would
raise ``RecursionError`` (a 500). No request of the API nests deeper than three levels (a
round: object, ``results`` list, row object); anything past ``MAX_DEPTH`` is refused as
malformed with a 400 in the API's error format, before any view sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32
TOO_DEEP = f"JSON parse error - the body is nested deeper than {MAX_DEPTH} levels."


def nesting_depth(value: Any) -> int:
    """How many objects and arrays deep ``value`` is (a scalar is 0), without recursion."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, Mapping) else item
        if not isinstance(item, Mapping | list):
            continue
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in children)
    return deepest


class JSONBodyParser(JSONParser):
    """``application/json`` bodies up to ``MAX_DEPTH`` levels deep; deeper ones are a 400."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            # The decoder gave up before our limit could be checked: the body is far too deep.
            raise ParseError(TOO_DEEP) from None
        if nesting_depth(data) > MAX_DEPTH:
            raise ParseError(TOO_DEEP)
        return data
