"""DRF's browsable API with a Content-Security-Policy of its own.

DRF's templates for it carry inline ``style=`` attributes and a ``<style>`` element, which
the site-wide policy refuses; this renderer allows inline styles on those HTML pages only
(scripts stay same-origin files). The JSON responses keep the site-wide policy.
"""

from __future__ import annotations

from typing import Any

from django.middleware.csp import get_nonce
from django.utils.csp import CSP, build_policy
from rest_framework import renderers

from config.csp import SITE_POLICY

BROWSABLE_API_POLICY: dict[str, list[str]] = {
    **SITE_POLICY,
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
}


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    """The browsable API; its response carries ``BROWSABLE_API_POLICY``."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: dict[str, Any] | None = None,
    ) -> Any:
        context = renderer_context or {}
        response, request = context.get("response"), context.get("request")
        if response is not None:
            # The CSP middleware leaves a Content-Security-Policy header a view already set.
            nonce = get_nonce(request) if request is not None else None
            response[str(CSP.HEADER_ENFORCE)] = build_policy(BROWSABLE_API_POLICY, nonce)
        return super().render(data, accepted_media_type, renderer_context)
