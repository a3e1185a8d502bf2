"""Dates are written one way on every page, feed message and error: a day as "1 Jan 2024",
a moment as "1 Jan 2024, 18:30" (``league.calendar.day_text`` / ``moment_text``, the
templates' ``date:"j M Y"`` / ``date:"j M Y, H:i"``); ISO dates only in inputs, files and
machine-readable attributes. Translated pages write them in the active language's own
formats instead (``DATE_FORMAT`` / ``TIME_FORMAT``, the ``day`` and ``clock`` filters of
``web.locale_format``), which English renders the same way."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from zoneinfo import ZoneInfo

from league.calendar import day_text, moment_text

ROOT = Path(__file__).resolve().parents[2]
# Formats the templates may give Django's date filter: a day, a moment, a fixture's round
# (the same with its weekday), the active language's own day format and a weekday before it
# ("DATE_FORMAT", "D"), and ISO 8601 ("c", "Y-m-d") for datetime="" attributes.
TEMPLATE_FORMATS = {"j M Y", "j M Y, H:i", "D j M Y, H:i", "DATE_FORMAT", "D", "c", "Y-m-d"}
# A strftime day written by hand (zero-padded "01 Jan 2024" or "1 Jan 2024" pieced together).
HAND_MADE = re.compile(r"%d %b|%b %Y")


def test_a_day_and_a_moment_are_written_one_way():
    assert day_text(dt.date(2024, 1, 2)) == "2 Jan 2024"
    assert day_text(dt.date(2024, 11, 30)) == "30 Nov 2024"
    moment = dt.datetime(2024, 3, 5, 18, 7, tzinfo=ZoneInfo("Europe/London"))
    assert moment_text(moment) == "5 Mar 2024, 18:07"


def test_no_template_or_module_writes_a_date_its_own_way():
    found = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        for fmt in re.findall(r"""\|date:["']([^"']*)["']""", path.read_text()):
            if fmt not in TEMPLATE_FORMATS:
                found.append(f"{path.relative_to(ROOT)}: date:{fmt!r}")
    for package in ("web", "league", "ratings", "api"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name == "calendar.py" and path.parent.name == "league":
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if HAND_MADE.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)
