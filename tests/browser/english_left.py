"""What a page in German, French or Spanish may not show: English words of the site's own text
left untranslated, and a page wider than the phone it is read on.

Shared by the language tests (``test_languages_browser.py``) and the axe walks in each
language (``test_accessibility_browser.py``), which read every page they already load.
"""

from __future__ import annotations

import re
from typing import Any

#: Words of the pages' English that no German, French or Spanish text contains; any of them
#: left in the rendered text means a string was missed ("Score", "Page" and "versions" are
#: French too, "provisional" Spanish, "Partner" German, "organise" and "change" French, so
#: they are not here).
ENGLISH = frozenset(
    re.findall(
        r"\w+",
        """the and of with after before by is are only every more over next previous first
    player players rating ratings ranked rank standings period periods result results
    interval show season seasons opponent opponents why last played games game
    head league leagues matches fixtures volatility draw win loss expected filters search
    apply reset sign listed separately inactive current download events
    compare skip content computed chart never unrated partners rules
    since may dec""",
    )
)

#: The text a reader reads, the names (team, league, season and language names are data,
#: not the site's words; so is the site's own name) cut out of it: every text node of the
#: page and every title, aria-label and alt. Its argument: more names to cut (``data_names``).
PAGE_TEXT = r"""
(extra) => {
  const names = new Set(["Honest League", ...(extra || [])]);
  const dataSelectors = [
    "a[href*='/players/']", ".brand", "h1", ".h-sub", ".league-about", ".league-sport",
    ".league-description", "#language-select option", "#id_season option",
    ".featured h2 a", ".card h2 a", ".breadcrumb a", "td:first-child a", ".fixture__label"
  ];
  for (const element of document.querySelectorAll(dataSelectors.join(","))) {
    const text = element.textContent.trim();
    if (text) names.add(text);
  }
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent && parent.closest("script, style, template")) continue;
    parts.push(node.textContent);
  }
  for (const element of document.querySelectorAll("[title], [aria-label], [alt]")) {
    for (const name of ["title", "aria-label", "alt"]) {
      if (element.hasAttribute(name)) parts.push(element.getAttribute(name));
    }
  }
  let text = parts.join(" ");
  // Longest first, so "Saint Vincent and the Grenadines" goes before any shorter name in it.
  for (const name of [...names].sort((a, b) => b.length - a.length)) {
    text = text.split(name).join(" ");
  }
  // What sticks out past the right edge (outside any box that scrolls): the innermost few.
  const out = [];
  for (const element of document.body.querySelectorAll("*")) {
    const box = element.getBoundingClientRect();
    // Its box, or the text it lets run out of it (white-space: nowrap in a narrow block).
    const style = getComputedStyle(element);
    const reach = style.overflowX === "visible" ? box.left + element.scrollWidth : box.right;
    if (Math.max(box.right, reach) <= window.innerWidth + 1 || box.width === 0) continue;
    let clipped = false;
    for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") { clipped = true; break; }
    }
    if (!clipped) out.push(element);
  }
  const wide = out.filter((e) => !out.some((o) => o !== e && e.contains(o))).slice(0, 4)
    .map((e) => {
      const id = e.id ? "#" + e.id : "";
      const css = e.classList.length ? "." + [...e.classList].join(".") : "";
      const box = e.getBoundingClientRect();
      const right = Math.round(Math.max(box.right, box.left + e.scrollWidth));
      return `${e.tagName.toLowerCase()}${id}${css} (to ${right} px)`;
    });
  return {
    text: text,
    wide: wide,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    lang: document.documentElement.lang,
  };
}
"""


#: What is not prose though it sits in it: addresses, paths, parameters, header and time zone
#: names (``/api/…``, ``?rows=20``, ``X-League-Signature``, ``America/Swift_Current``).
_NOT_WORDS = re.compile(r"\S*[/_=@?]\S*|\bX-[\w-]+")
#: Terms of the trade kept in every language: German writes "Log-Loss" too.
_TERMS = re.compile(r"log-loss", re.IGNORECASE)


def english_words(text: str) -> list[str]:
    """The words of ``text`` that are English (``ENGLISH``), as they appear."""
    text = _TERMS.sub(" ", _NOT_WORDS.sub(" ", text))
    # Whole words, accented letters included: "signé" is French, not "sign" and "é".
    return sorted({word for word in re.findall(r"[^\W\d_]+", text) if word.lower() in ENGLISH})


def data_names() -> list[str]:
    """Every name and note the database holds (players, teams, leagues, seasons, events,
    divisions, tokens, fixtures' labels, matches' and versions' notes): what organisers
    typed is not the site's text, whatever language it is in."""
    from league import models as league
    from league.tiebreaks import TIEBREAKS
    from ratings.models import RatingConfig

    fields = (
        (league.Player, "display_name"),
        (league.League, "name"),
        (league.League, "description"),
        (league.League, "sport"),
        (league.Season, "name"),
        (league.Competition, "name"),
        (league.Team, "name"),
        (league.Division, "name"),
        (league.ApiToken, "name"),
        (league.JoinRequest, "name"),
        (league.Fixture, "label"),
        (league.Fixture, "venue"),
        (league.Event, "note"),
        (league.Event, "display_name"),
        (RatingConfig, "note"),
    )
    names: set[str] = set(TIEBREAKS)  # FIDE's codes (WIN, BH, SB): the same in every language
    for model, field in fields:
        names.update(model.objects.exclude(**{field: ""}).values_list(field, flat=True))
    return sorted(name for name in names if name and len(name) > 2)


NOT_PROSE = """
() => document.querySelectorAll(
  "code, pre, kbd, samp, textarea[readonly], #id_file_helptext, a[href$='.csv']"
).forEach(element => element.remove())
"""


def _contexts(text: str, words: list[str], limit: int = 4) -> list[str]:
    """Up to ``limit`` snippets of ``text`` around the English words, to find them by."""
    found = []
    for match in re.finditer(r"\b(" + "|".join(words) + r")\b", text):
        found.append(" ".join(text[max(0, match.start() - 50) : match.end() + 50].split()))
        if len(found) == limit:
            break
    return found


def language_problems(
    page: Any, where: str, width: int, names: list[str] | tuple[str, ...] = ()
) -> list[str]:
    """English left in ``page``'s text and sideways scrolling wider than ``width``.

    Reads the page as it stands after its folds (``<details>``) are opened and what is not
    prose (``NOT_PROSE``) and the ``names`` are cut out: call it after any check that needs
    the page intact.
    """
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    page.evaluate(NOT_PROSE)
    seen = page.evaluate(PAGE_TEXT, list(names))
    problems = []
    left = english_words(seen["text"])
    if left:
        snippets = "".join(f"\n      … {snippet} …" for snippet in _contexts(seen["text"], left))
        problems.append(f"{where}: English left: {left}{snippets}")
    if seen["scrollWidth"] > width:
        problems.append(
            f"{where}: scrolls sideways to {seen['scrollWidth']} px: {', '.join(seen['wide'])}"
        )
    return problems
