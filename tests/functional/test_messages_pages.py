"""The pages of messages: an account's e-mail choices, the unsubscribe link, the workspace's
webhook page. Bad input is refused with the field named and changes nothing."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from notifications.models import Preference, Topic, Webhook, WebhookDelivery
from notifications.preferences import unsubscribe_path, wants
from tests.messages_support import holder, http_receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann(league):
    return holder(league, "Ann Archer", "ann")


def test_the_preferences_page_needs_a_sign_in(client):
    answer = client.get(reverse("mail:preferences"))
    assert answer.status_code == 302
    assert "next=/accounts/notifications/" in answer["Location"]


def test_an_account_chooses_for_all_leagues_and_for_one(client, league, ann):
    client.force_login(ann.account)
    home = client.get(reverse("accounts:home"))
    assert b'href="/accounts/notifications/"' in home.content  # "My account" links the page
    page = client.get(reverse("mail:preferences"))
    assert page.status_code == 200
    assert b"In Riverside Chess Club" in page.content
    assert b"ann@example.org" in page.content
    data = {f"all_{topic}": "on" for topic in Topic.values if topic != Topic.RESULT}
    data[f"league_{league.pk}_{Topic.RESULT}"] = "on"
    data[f"league_{league.pk}_{Topic.FIXTURE}"] = "off"
    answer = client.post(reverse("mail:preferences"), data)
    assert answer.status_code == 302
    user = ann.account
    assert not wants(user.pk, None, Topic.RESULT)
    assert wants(user.pk, league, Topic.RESULT)  # the league's choice wins
    assert not wants(user.pk, league, Topic.FIXTURE)
    assert wants(user.pk, None, Topic.DIGEST)
    page = client.get(reverse("mail:preferences"))
    assert b'value="off" selected' in page.content


def test_a_choice_not_offered_is_refused_by_name_and_nothing_is_saved(client, league, ann):
    client.force_login(ann.account)
    field = f"league_{league.pk}_{Topic.FIXTURE}"
    answer = client.post(reverse("mail:preferences"), {"all_digest": "on", field: "sometimes"})
    assert answer.status_code == 400
    assert b"sometimes is not one of the available choices" in answer.content
    assert f'id="id_{field}_error"'.encode() in answer.content
    assert not Preference.objects.exists()


def test_the_preferences_form_needs_its_csrf_token(league, ann):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(ann.account)
    answer = client.post(reverse("mail:preferences"), {"all_digest": "on"})
    assert answer.status_code == 403
    assert not Preference.objects.exists()


def test_an_unsubscribe_link_asks_first_then_unsubscribes_without_sign_in(client, league, ann):
    path = unsubscribe_path(ann.account_id, Topic.RESULT, league.pk)
    page = client.get(path)
    assert page.status_code == 200
    assert b"Stop receiving" in page.content
    assert wants(ann.account_id, league, Topic.RESULT)  # a GET (a mail scanner) changes nothing
    done = client.post(path)
    assert done.status_code == 200
    assert b"Done: you will no longer receive" in done.content
    assert not wants(ann.account_id, league, Topic.RESULT)
    assert wants(ann.account_id, None, Topic.RESULT)  # only from that league


@pytest.mark.parametrize("mangle", [lambda t: t[:-3] + "abc", lambda t: "x" + t, lambda t: "nope"])
def test_a_mangled_unsubscribe_link_is_refused_and_changes_nothing(client, league, ann, mangle):
    token = unsubscribe_path(ann.account_id, Topic.RESULT, league.pk).rstrip("/").split("/")[-1]
    path = reverse("mail:unsubscribe", args=[mangle(token)])
    for answer in (client.get(path), client.post(path)):
        assert answer.status_code == 400
        assert b"not valid" in answer.content
    assert not Preference.objects.exists()


# --- the workspace's webhook page -------------------------------------------------------


def test_only_the_league_organisers_open_the_webhook_page(client, league, other_organiser):
    url = reverse("workspace:webhook", args=[league.slug])
    assert client.get(url).status_code == 302
    client.force_login(other_organiser)
    assert client.get(url).status_code == 403
    assert client.post(url, {"url": "http://127.0.0.1:9/x"}).status_code == 403
    assert client.post(reverse("workspace:webhook_test", args=[league.slug])).status_code == 403
    assert not Webhook.objects.exists()
    assert not WebhookDelivery.objects.exists()


def test_the_hub_lists_the_webhook_page(client, league, organiser):
    client.force_login(organiser)
    page = client.get(reverse("workspace:hub", args=[league.slug]))
    assert reverse("workspace:webhook", args=[league.slug]).encode() in page.content


def test_an_unsafe_address_is_refused_on_the_page(client, league, organiser, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    client.force_login(organiser)
    url = reverse("workspace:webhook", args=[league.slug])
    answer = client.post(url, {"url": "http://192.168.1.10/hook", "active": "on"})
    assert answer.status_code == 400
    assert b"private or local address" in answer.content
    assert b'id="id_url_error"' in answer.content
    assert not Webhook.objects.exists()


def test_an_organiser_sets_the_webhook_and_sends_a_test(
    client, league, organiser, django_capture_on_commit_callbacks
):
    client.force_login(organiser)
    url = reverse("workspace:webhook", args=[league.slug])
    with http_receiver() as receiver:
        answer = client.post(url, {"url": receiver.url, "secret": "", "active": "on"})
        assert answer.status_code == 200  # the page shows the secret it made, once
        webhook = Webhook.objects.get(league=league)
        assert webhook.secret.encode() in answer.content
        assert client.get(url).content.count(webhook.secret.encode()) == 0
        with django_capture_on_commit_callbacks(execute=True):
            sent = client.post(reverse("workspace:webhook_test", args=[league.slug]))
        assert sent.status_code == 302
    (call,) = receiver.calls
    body = json.loads(call.body)
    assert body["kind"] == "test"
    assert body["text"].startswith("Test from Riverside Chess Club: the webhook works.")
    page = client.get(url)
    assert b"HTTP 200" in page.content


def test_the_outbox_admin_is_for_the_operator_only(client, organiser, superuser):
    url = reverse("admin:notifications_message_changelist")
    organiser.is_staff = True
    organiser.save()
    client.force_login(organiser)
    assert client.get(url).status_code == 403
    client.force_login(superuser)
    assert client.get(url).status_code == 200
    assert client.get(reverse("admin:notifications_webhookdelivery_changelist")).status_code == 200
