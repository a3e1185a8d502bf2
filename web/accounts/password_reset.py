"""Password reset with Django's own views (``django.contrib.auth.views``), under
``/accounts/password-reset/``.

Django's form answers the same page whether an account has the address, and its link is
signed with the account's password hash and last sign-in, so it works once. The mail goes
out through the same Celery mail task path as sign-in links, after the request commits.
Requests are limited per client address at the sign-in links' rate
(``settings.SIGN_IN_LINK_RATE``), counted apart from them, so the form cannot be used to
flood someone's mailbox.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import forms as auth_forms
from django.contrib.auth import views as auth_views
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import render
from django.template import loader
from django.urls import reverse_lazy

from league.tasks import send_password_reset
from web.accounts.views import SignInLinkThrottle


class PasswordResetThrottle(SignInLinkThrottle):
    """Reset requests per client address, at the sign-in links' rate."""

    scope = "password_reset"


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form whose mail is sent by the Celery mail task."""

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        """Render the message now (the context holds the account) and queue its sending."""
        subject = "".join(loader.render_to_string(subject_template_name, context).splitlines())
        body = loader.render_to_string(email_template_name, context)
        transaction.on_commit(lambda: send_password_reset.delay(subject, body, to_email))


class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset link by address."""

    form_class = PasswordResetForm
    template_name = "accounts/password_reset_form.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    def form_valid(self, form: auth_forms.PasswordResetForm) -> HttpResponse:
        """Send the mail unless this client address asked too often (429, nothing sent)."""
        throttle = PasswordResetThrottle()
        if not throttle.allow_request(self.request, None):
            wait = max(1, int(throttle.wait() or 60))
            response = render(
                self.request,
                "accounts/password_reset_paused.html",
                {"minutes": max(1, -(-wait // 60))},
                status=429,
            )
            response["Retry-After"] = str(wait)
            return response
        return super().form_valid(form)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    """The one answer to every request for a reset link."""

    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The mailed link: choose a new password (an invalid or used link says so)."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    """The password is changed: sign in with it."""

    template_name = "accounts/password_reset_complete.html"
