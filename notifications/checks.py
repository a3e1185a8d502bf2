"""System checks of the messages' settings (``manage.py check --deploy``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Warning as CheckWarning


def check_site_url(app_configs: Any = None, **kwargs: Any) -> list[CheckWarning]:
    """Unsubscribe links must be https in production (RFC 8058)."""
    if settings.SITE_URL.startswith("https://"):
        return []
    return [
        CheckWarning(
            "LEAGUE_SITE_URL is not an https address: mail programs ignore one-click "
            "unsubscribe links that are not https.",
            hint="Set LEAGUE_SITE_URL to the site's https address, e.g. https://league.example.org.",
            id="notifications.W001",
        )
    ]
