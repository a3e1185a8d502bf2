"""Helpers shared by the API tests."""

from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


def token_client(user) -> APIClient:
    """An API client authenticated with ``user``'s token (``Authorization: Token <key>``)."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
