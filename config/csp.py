"""Content-Security-Policy: the site's policy and the narrow exceptions of the API docs.

Every page's scripts and style sheets are same-origin files (no inline ``<script>``,
``<style>`` or ``style=`` attribute), so the site-wide policy allows nothing else. Only the
API's two documentation viewers, third-party pages, get a policy of their own (see
``api/urls.py``), and the embeddable views may be framed by the origins their league lists
(``web/public/embed.py``).
"""

from __future__ import annotations

from django.utils.csp import CSP

SITE_POLICY: dict[str, list[str]] = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    # data: for the pages' empty favicon (href="data:,") and the admin's inline SVG icons.
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    # No framing, except the embed for the origins its league's organisers list
    # (embed_policy below).
    "frame-ancestors": [CSP.NONE],
}


def embed_policy(origins: list[str]) -> dict[str, list[str]]:
    """The site's policy with ``frame-ancestors`` naming ``origins`` ('none' when empty).

    The origins come checked from ``league.website`` (scheme, host and port only), so none
    can add a directive to the header.
    """
    return {**SITE_POLICY, "frame-ancestors": list(origins) or [CSP.NONE]}


# Swagger UI: drf-spectacular's page has one inline script (the viewer's set-up) and one
# inline style; they carry this response's nonce (templates/drf_spectacular/swagger_ui.html).
SWAGGER_UI_POLICY: dict[str, list[str]] = {
    **SITE_POLICY,
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
}

# Redoc renders its styles at run time into <style> elements it creates (styled-components),
# which no nonce can reach: inline styles are allowed here, scripts stay same-origin only;
# its search index runs in a worker built from a blob: URL.
REDOC_POLICY: dict[str, list[str]] = {
    **SITE_POLICY,
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "worker-src": [CSP.SELF, "blob:"],
}
