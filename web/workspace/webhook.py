"""The organisers' page for the league's webhook: its address and secret, a test call, and
the latest calls with what the receiver answered."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from notifications.models import Webhook, WebhookDelivery
from notifications.tasks import queue_deliveries
from notifications.webhooks import MIN_SECRET, set_webhook
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.forms import put_errors

#: Calls listed on the page.
RECENT = 20


def _secret_help() -> str:
    """The secret field's help in the active language (a form field's help is built once)."""
    return _(
        "Signs every call (X-League-Signature). Empty: keep the current one, or make one "
        "for a new webhook. At least %(min)s characters."
    ) % {"min": MIN_SECRET}


class WebhookForm(forms.Form):
    url = forms.CharField(
        label=gettext_lazy("Address"),
        required=False,
        max_length=500,
        help_text=gettext_lazy(
            "A Slack or Discord incoming-webhook address, or your own receiver's (https://…)."
        ),
    )
    secret = forms.CharField(
        label=gettext_lazy("Secret"),
        required=False,
        max_length=200,
        widget=forms.PasswordInput(render_value=False),
        help_text=lazy(_secret_help, str)(),
    )
    active = forms.BooleanField(
        label=gettext_lazy("Send new results and fixtures"), required=False, initial=True
    )


@require_http_methods(["GET", "POST"])
def webhook(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Show and change the league's webhook."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    current = Webhook.objects.filter(league=league).first()
    initial = {"url": current.url, "active": current.active} if current else {"active": True}
    form = WebhookForm(request.POST or None, initial=initial)
    made_secret = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                current, made_secret = set_webhook(
                    league,
                    url=form.cleaned_data["url"],
                    secret=form.cleaned_data["secret"],
                    active=form.cleaned_data["active"],
                    updated_by=request.user,
                )
            except ValidationError as error:
                put_errors(form, error)
                status = 400
            else:
                if made_secret is None:
                    messages.success(request, _("Saved: the next result or fixture is sent there."))
                    return redirect("workspace:webhook", league.slug)
                form = WebhookForm(initial={"url": current.url, "active": current.active})
        else:
            status = 400
    return render(
        request,
        "workspace/webhook.html",
        {
            "league": league,
            "form": form,
            "webhook": current,
            "made_secret": made_secret,
            "deliveries": WebhookDelivery.objects.filter(league=league)[:RECENT],
        },
        status=status,
    )


@require_POST
def send_test(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Queue a test call of the league's webhook (it goes even while switched off)."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    if not Webhook.objects.filter(league=league).exists():
        messages.error(request, _("Save the webhook's address first, then send a test."))
        return redirect("workspace:webhook", league.slug)
    with transaction.atomic():
        delivery = WebhookDelivery.objects.create(league=league, kind=WebhookDelivery.Kind.TEST)
        transaction.on_commit(lambda: queue_deliveries([delivery.pk]), robust=True)
    messages.success(
        request, _("Test sent: its outcome is listed below (reload the page in a moment).")
    )
    return redirect("workspace:webhook", league.slug)
