"""Sign-in by an e-mailed one-time link, for people who do not want one more password.

Someone types an e-mail address; every active account with that address gets a link by
mail (a Celery task makes the token and sends it: ``league.tasks.send_sign_in_link``), and
the page answers the same whether or not any account has the address, so it tells nobody
which addresses are known. A link carries a random token (256 bits); only its SHA-256
digest is stored. It expires after ``settings.SIGN_IN_LINK_MINUTES`` and signs in once.

Using a link goes through ``django.contrib.auth.authenticate`` with the backend below,
behind django-axes: a bad, used or expired link is a failed sign-in of the client's address
exactly like a wrong password, and a locked-out address cannot sign in by link either.
Opening a link shows a button; only pressing it (a POST) uses it, so a mail scanner that
fetches links does not use them up.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import BaseBackend
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from league.models import SignInLink

#: Longest token looked up (a real one is 43 characters).
TOKEN_MAX = 100


def digest_of(token: str) -> str:
    """The SHA-256 digest under which a token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def accounts_with_email(email: str) -> list[Any]:
    """The active accounts whose address is ``email`` (compared without case)."""
    email = (email or "").strip()
    if not email:
        return []
    return list(get_user_model().objects.filter(email__iexact=email, is_active=True))


def create_link(user: Any, next_url: str = "") -> tuple[SignInLink, str]:
    """A new sign-in link for ``user`` and its token (to be mailed, never stored)."""
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    link = SignInLink.objects.create(
        user=user,
        digest=digest_of(token),
        next_url=next_url[: SignInLink._meta.get_field("next_url").max_length],
        created_at=now,
        expires_at=now + dt.timedelta(minutes=settings.SIGN_IN_LINK_MINUTES),
    )
    return link, token


def use_link(token: str) -> SignInLink | None:
    """Use up the pending link ``token`` opens and return it (None: unknown, used or
    expired). Of two simultaneous uses, one gets the link."""
    if not token or len(token) > TOKEN_MAX:
        return None
    with transaction.atomic():
        now = timezone.now()
        used = SignInLink.objects.filter(
            digest=digest_of(token), used_at__isnull=True, expires_at__gt=now
        ).update(used_at=now)
        if not used:
            return None
        return SignInLink.objects.select_related("user").get(digest=digest_of(token))


class SignInLinkBackend(BaseBackend):
    """``authenticate(request, sign_in_token=...)``: the account of a pending link."""

    def authenticate(
        self, request: HttpRequest | None, sign_in_token: str | None = None, **kwargs: Any
    ) -> Any:
        if sign_in_token is None:
            return None
        link = use_link(sign_in_token)
        if link is None or not link.user.is_active:
            return None
        request_next = link.next_url
        if request is not None:
            request.sign_in_next = request_next  # type: ignore[attr-defined]
        return link.user

    def get_user(self, user_id: Any) -> Any:
        user_model = get_user_model()
        user = user_model.objects.filter(pk=user_id).first()
        return user if user is not None and user.is_active else None
