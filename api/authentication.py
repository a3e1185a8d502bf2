"""API authentication: ``Authorization: Token <secret>`` with an organiser's named token.

Named tokens (``league.api_tokens``, created on the workspace's token page) are tried first;
a token made with DRF's ``drf_create_token`` command still works.
"""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import TokenAuthentication

from league.api_tokens import user_for


class NamedTokenAuthentication(TokenAuthentication):
    """DRF's token header, checked against the named tokens' digests first."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        found = user_for(key)
        if found is not None:
            return found
        return super().authenticate_credentials(key)
