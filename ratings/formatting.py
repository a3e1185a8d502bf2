"""Number formatting shared by the page views and templates."""

from __future__ import annotations

DASH = "\u2013"


def signed(value: float | None, places: int) -> tuple[str, str]:
    """A change as text with its CSS class: ("+12", "up"), ("-3", "down"), ("\u2013", "muted").

    A change that rounds to zero at ``places`` is shown as a plain zero, without a sign or a
    colour, so that "-0.0" never reads as a loss.
    """
    if value is None:
        return DASH, "muted"
    text = f"{value:+.{places}f}"
    if float(text) == 0:
        return f"{0:.{places}f}", ""
    return text, "up" if value > 0 else "down"
