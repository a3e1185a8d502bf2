"""axe-core in a Playwright page: the WCAG 2.0, 2.1 and 2.2 A and AA rules, and what failed.

The engine is the vendored ``vendor/axe.min.js`` (see ``vendor/README.md`` for its version
and how to update it). ``install_axe`` adds it to a browser context as an init script: the
DevTools protocol runs it in every page before the page's own scripts, so no server serves
it and the site's Content-Security-Policy (``script-src 'self'``), which would refuse an
inline ``<script>``, needs no bypass.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

AXE_SCRIPT = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
#: The axe tags of the WCAG success criteria at levels A and AA, in all three versions.
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa")
#: The impacts a page may not have: axe's two highest.
BLOCKING_IMPACTS = frozenset({"serious", "critical"})
#: The elements a report names per rule and page (a table row's fault repeats on every row).
MAX_TARGETS = 8

# Runs axe on the whole document with only the WCAG A/AA rules; returns its violations
# reduced to what a failing test prints (every node's target, not just the first).
_RUN = """
async (tags) => {
  const results = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    helpUrl: v.helpUrl,
    targets: v.nodes.map((n) => n.target.join(" ")),
    summaries: v.nodes.map((n) => n.failureSummary || ""),
  }));
}
"""


@dataclass(frozen=True)
class Violation:
    """One axe rule broken on one page, with every element that breaks it."""

    rule: str
    impact: str
    help: str
    help_url: str
    targets: tuple[str, ...]
    summaries: tuple[str, ...]

    @property
    def blocking(self) -> bool:
        return self.impact in BLOCKING_IMPACTS

    def describe(self, where: str = "") -> str:
        """Rule, impact, help URL and each target with why it fails, for a test report."""
        head = f"{where}: " if where else ""
        lines = [f"{head}{self.rule} ({self.impact}): {self.help} <{self.help_url}>"]
        shown = list(zip(self.targets, self.summaries, strict=True))[:MAX_TARGETS]
        for target, summary in shown:
            why = " ".join(summary.split())
            lines.append(f"    {target}  {why[:300]}")
        if len(self.targets) > MAX_TARGETS:
            lines.append(f"    … and {len(self.targets) - MAX_TARGETS} more elements")
        return "\n".join(lines)


def install_axe(context: Any) -> None:
    """Make axe-core available in every page ``context`` opens from now on."""
    context.add_init_script(path=str(AXE_SCRIPT))


def axe_violations(page: Any) -> list[Violation]:
    """Every WCAG 2.0/2.1/2.2 A and AA violation axe finds in ``page`` as it stands.

    The page's context must have had ``install_axe``.
    """
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        raise AssertionError("axe-core is not in the page: call install_axe on its context")
    found = page.evaluate(_RUN, list(WCAG_TAGS))
    return [
        Violation(
            rule=item["rule"],
            impact=item["impact"] or "",
            help=item["help"],
            help_url=item["helpUrl"],
            targets=tuple(item["targets"]),
            summaries=tuple(item["summaries"]),
        )
        for item in found
    ]


def blocking_violations(page: Any) -> list[Violation]:
    """The serious and critical violations in ``page``: the ones no page may have."""
    return [violation for violation in axe_violations(page) if violation.blocking]
