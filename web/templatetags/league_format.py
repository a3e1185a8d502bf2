"""Template filters for the pages: signed changes with their colour."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from web.formatting import signed

register = template.Library()


@register.filter
def signed_change(value: float | None, places: int = 1) -> str:
    """``{{ change|signed_change:1 }}`` → ``<span class="up">+1.4</span>``."""
    text, css = signed(value, int(places))
    return format_html('<span class="{}">{}</span>', css, text) if css else text
