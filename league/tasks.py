"""Mail of player accounts, sent by Celery tasks, never in a request.

Each task makes the token it mails (only its digest reaches the database), so no usable
link waits in the broker. A mail server that fails or refuses makes the task retry with
growing delays (``MAIL_RETRIES`` times); the request that asked for the mail has long
answered, and nothing it wrote depends on the mail.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from league.invitations import new_token
from league.languages import mail_language
from league.models import Invitation

#: Attempts after the first before a mail is given up (and logged by Celery).
MAIL_RETRIES = 8
_RETRY = {
    "autoretry_for": (OSError,),  # smtplib.SMTPException is an OSError
    "retry_backoff": 5,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": MAIL_RETRIES,
    "acks_late": True,
    "ignore_result": True,
}


@shared_task(name="league.send_sign_in_links", **_RETRY)
def send_sign_in_links(email: str, next_url: str, base_url: str) -> int:
    """Mail a one-time sign-in link to every active account whose address is ``email``;
    return how many were sent (0 for an unknown address: nothing happens)."""
    from league.sign_in_links import accounts_with_email, create_link

    sent = 0
    minutes = f"{settings.SIGN_IN_LINK_MINUTES:g}"
    for user in accounts_with_email(email):
        _link, token = create_link(user, next_url)
        url = base_url.rstrip("/") + reverse("accounts:link_sign_in", args=[token])
        # Each account's own language: the mail is read by the account it signs in.
        with translation.override(mail_language([user.pk])):
            body = _(
                "Hello %(name)s,\n\n"
                "Open this link to sign in to Honest League as %(name)s:\n\n%(url)s\n\n"
                "It works once, for %(minutes)s minutes. If you did not ask for it, ignore this "
                "mail: nobody can sign in without the link.\n"
            ) % {"name": user.get_username(), "url": url, "minutes": minutes}
            subject = _("Your sign-in link")
        send_mail(subject, body, None, [user.email])
        sent += 1
    return sent


@shared_task(name="league.send_player_invitation", **_RETRY)
def send_player_invitation(invitation_id: int, base_url: str) -> bool:
    """Mail the invitation to claim a player record to its address; False when the
    invitation is no longer pending (revoked, used, expired) or has no address."""
    from league.sign_in_links import accounts_with_email

    invitation = (
        Invitation.objects.select_related("league", "player").filter(pk=invitation_id).first()
    )
    if invitation is None or not invitation.email or not invitation.is_pending():
        return False
    token = new_token(invitation)
    url = base_url.rstrip("/") + reverse("workspace:invitation", args=[token])
    assert invitation.player is not None
    context: dict[str, Any] = {
        "league": invitation.league.name,
        "player": invitation.player.display_name,
        "url": url,
        "days": f"{settings.INVITATION_DAYS:g}",
    }
    # The language of the accounts already at the address, else the league's default.
    accounts = [user.pk for user in accounts_with_email(invitation.email)]
    with translation.override(mail_language(accounts, invitation.league)):
        body = (
            _(
                "Hello,\n\n"
                "The organisers of %(league)s invite you to take your place as the player "
                "%(player)s: sign in, or create an account, and claim it with this link:\n\n"
                "%(url)s\n\n"
                "It works once, for %(days)s days. If you are not %(player)s, ignore this mail.\n"
            )
            % context
        )
        subject = _("Your place in %(league)s") % context
    send_mail(subject, body, None, [invitation.email])
    Invitation.objects.filter(pk=invitation.pk).update(sent_at=timezone.now())
    return True


def mail_invitation(invitation: Invitation, base_url: str) -> None:
    """Have ``invitation`` mailed to its address once the current transaction commits."""
    transaction.on_commit(lambda: send_player_invitation.delay(invitation.pk, base_url))


@shared_task(name="league.send_password_reset", **_RETRY)
def send_password_reset(subject: str, body: str, to_email: str) -> None:
    """Mail a password-reset message written by ``web.accounts.password_reset`` (the
    request renders it, with its one-time link; the worker only sends it)."""
    send_mail(subject, body, None, [to_email])
