"""Players as users through the pages: sign-in by password and by e-mailed link, player
invitations, asking to join, "My account", privacy and its export, leaving, and /api/me/.

Mail goes through Django's e-mail framework in Celery tasks (eager in the suite) into the
test outbox; every bad input is answered with a clear message and changes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from league import services
from league.api_tokens import create_token
from league.models import Event, Invitation, JoinRequest, Player, SignInLink
from league.player_accounts import claim_player
from tests.functional.conftest import rank_everyone, rate

pytestmark = pytest.mark.django_db

PASSWORD = "pw-pat-1"
LINK = re.compile(r"http://testserver(/\S+)")


@pytest.fixture
def person(db):
    return get_user_model().objects.create_user("pat", email="pat@example.org", password=PASSWORD)


@pytest.fixture
def ann(league, organiser):
    return services.register_player(league, "Ann Archer", recorded_by=organiser)


@pytest.fixture
def bob(league, organiser):
    return services.register_player(league, "Bob Baker", recorded_by=organiser)


def signed_in_as(client: Client) -> str | None:
    response = client.get(reverse("api:me"))
    return response.json()["username"] if response.status_code == 200 else None


@pytest.fixture
def ask_link(django_capture_on_commit_callbacks):
    """Ask for a sign-in link as the page does; the mail task runs once the request's
    transaction commits (captured and run here: the suite's tests never commit)."""

    def ask(client: Client, email: str, next_url: str = ""):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(reverse("accounts:request_link"), {"email": email, "next": next_url})

    return ask


def link_in(message) -> str:
    (path,) = LINK.findall(message.body)
    return path


def state() -> tuple:
    return (
        list(Event.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
        list(Invitation.objects.order_by("pk").values()),
        list(JoinRequest.objects.order_by("pk").values()),
    )


# --- sign-in by password ---------------------------------------------------------------


def test_everyone_signs_in_with_a_password_and_returns_to_the_page(client, person, league):
    page = reverse("pages:league", args=[league.slug])
    form = client.get(reverse("accounts:sign_in"), {"next": page})
    assert form.status_code == 200
    assert 'id="send-link"' in form.text
    response = client.post(
        reverse("accounts:sign_in"), {"username": "pat", "password": PASSWORD, "next": page}
    )
    assert response.status_code == 302
    assert response["Location"] == page
    assert signed_in_as(client) == "pat"


def test_a_wrong_password_says_so_and_signs_in_nobody(client, person):
    response = client.post(reverse("accounts:sign_in"), {"username": "pat", "password": "nope"})
    assert response.status_code == 400
    assert "Please enter a correct username and password" in response.text
    assert signed_in_as(client) is None


def test_an_outside_next_address_is_not_followed(client, person):
    response = client.post(
        reverse("accounts:sign_in"),
        {"username": "pat", "password": PASSWORD, "next": "https://evil.example/"},
    )
    assert response["Location"] == reverse("accounts:home")


def test_workspace_pages_send_anonymous_visitors_to_the_new_sign_in(client, league):
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response["Location"].startswith(reverse("accounts:sign_in") + "?next=")


# --- sign-in by e-mailed link ----------------------------------------------------------


def test_a_link_is_mailed_and_signs_in_once(client, person, league, ask_link):
    page = reverse("pages:league", args=[league.slug])
    response = ask_link(client, "PAT@example.org", page)
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:link_sent")
    (message,) = mail.outbox
    assert message.to == ["pat@example.org"]
    path = link_in(message)
    token = path.rstrip("/").rsplit("/", 1)[-1]
    # Only the digest is stored.
    assert not SignInLink.objects.filter(digest=token).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM league_signinlink")
        assert token not in str(cursor.fetchall())

    # Opening the link uses nothing (mail scanners fetch links); pressing the button does.
    assert client.get(path).status_code == 200
    assert signed_in_as(client) is None
    used = client.post(path)
    assert used.status_code == 302
    assert used["Location"] == page
    assert signed_in_as(client) == "pat"

    again = Client().post(path)
    assert again.status_code == 410
    assert "cannot be used" in again.text


def test_an_expired_link_is_refused(client, person, ask_link):
    ask_link(client, "pat@example.org")
    path = link_in(mail.outbox[0])
    SignInLink.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    response = client.post(path)
    assert response.status_code == 410
    assert signed_in_as(client) is None


@pytest.mark.parametrize("token", ["x" * 43, "", "y" * 500])
def test_a_made_up_link_is_refused(client, person, token):
    response = client.post(f"/accounts/sign-in/link/{token or 'z'}/")
    assert response.status_code == 410
    assert signed_in_as(client) is None


def test_the_answer_is_the_same_for_a_known_and_an_unknown_address(person, ask_link):
    known = ask_link(Client(), "pat@example.org")
    unknown = ask_link(Client(), "nobody@example.org")
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert [message.to for message in mail.outbox] == [["pat@example.org"]]
    # The same page but for its script nonce, which differs on every response.
    nonce = re.compile(r' nonce="[^"]*"')
    sent_known = nonce.sub("", Client().get(known["Location"]).text)
    sent_unknown = nonce.sub("", Client().get(unknown["Location"]).text)
    assert sent_known == sent_unknown
    assert "If an account has this address" in sent_known


def test_a_bad_address_names_the_field(client, person, ask_link):
    response = ask_link(client, "not an address")
    assert response.status_code == 400
    assert 'id="id_email_error"' in response.text
    assert mail.outbox == []


@override_settings(SIGN_IN_LINK_RATE="2/hour")
def test_link_requests_are_limited_per_address_whether_known_or_not(person, ask_link):
    client = Client(REMOTE_ADDR="203.0.113.9")
    for email in ("pat@example.org", "nobody@example.org"):
        assert ask_link(client, email).status_code == 302
    for email in ("pat@example.org", "nobody@example.org"):
        paused = ask_link(client, email)
        assert paused.status_code == 429
        assert int(paused["Retry-After"]) > 0
    assert len(mail.outbox) == 1
    other = Client(REMOTE_ADDR="198.51.100.1")
    assert ask_link(other, "pat@example.org").status_code == 302


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=2)
def test_bad_links_count_as_failed_sign_ins_like_wrong_passwords(person, ask_link):
    ask_link(Client(), "pat@example.org")
    good = link_in(mail.outbox[0])
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    attacker.post(reverse("accounts:sign_in"), {"username": "pat", "password": "wrong"})
    attacker.post("/accounts/sign-in/link/" + "x" * 43 + "/")
    locked = attacker.post(good)
    assert locked.status_code == 429
    assert signed_in_as(attacker) is None
    # Another address still signs in with the same (unused) link.
    friend = Client(REMOTE_ADDR="198.51.100.20")
    assert friend.post(good).status_code == 302
    assert signed_in_as(friend) == "pat"


# --- player invitations ----------------------------------------------------------------


def organiser_client(organiser) -> Client:
    client = Client()
    client.force_login(organiser)
    return client


def test_an_organiser_invites_by_copied_link_and_the_person_claims_the_player(
    league, organiser, ann, person
):
    page = reverse("workspace:player_account", args=[league.slug, ann.slug])
    made = organiser_client(organiser).post(page, {"action": "invite", "label": "Ann"})
    assert made.status_code == 200
    assert made["Cache-Control"] == "no-store"
    link = re.search(r'value="http://testserver([^"]+)" id="invitation-link"', made.text)[1]
    token = link.rstrip("/").rsplit("/", 1)[-1]
    assert not Invitation.objects.filter(digest=token).exists()

    anonymous = Client().get(link)
    assert 'id="sign-in-to-accept"' in anonymous.text
    assert "Ann Archer" in anonymous.text

    client = Client()
    client.force_login(person)
    claimed = client.post(link)
    assert claimed.status_code == 302
    assert claimed["Location"] == reverse("accounts:home")
    assert Player.objects.get(pk=ann.pk).account == person
    assert Event.objects.filter(kind="player_claimed", player=ann, account=person).count() == 1
    assert "Ann Archer" in client.get(reverse("accounts:home")).text
    assert not league.is_organiser(person)

    # Used: nobody else can claim with it.
    other = get_user_model().objects.create_user("sam", password="pw-sam-1")
    thief = Client()
    thief.force_login(other)
    before = state()
    refused = thief.post(link)
    assert refused.status_code == 410
    assert "used already" in refused.text
    assert state() == before


def test_an_invitation_by_mail_is_sent_by_a_task_and_works(
    league, organiser, ann, person, django_capture_on_commit_callbacks
):
    page = reverse("workspace:player_account", args=[league.slug, ann.slug])
    # The mail task runs once the request's transaction commits (run here: tests never commit).
    with django_capture_on_commit_callbacks(execute=True):
        done = organiser_client(organiser).post(
            page, {"action": "invite", "email": "ann@example.org"}
        )
    assert done.status_code == 302
    (message,) = mail.outbox
    assert message.to == ["ann@example.org"]
    assert "Ann Archer" in message.body
    path = link_in(message)
    client = Client()
    client.force_login(person)
    assert client.post(path).status_code == 302
    assert Player.objects.get(pk=ann.pk).account == person
    assert Invitation.objects.get().sent_at is not None


def test_a_claim_refused_by_the_rules_says_why_and_keeps_the_link(
    league, organiser, ann, bob, person
):
    claim_player(bob, person, by=organiser)
    page = reverse("workspace:player_account", args=[league.slug, ann.slug])
    made = organiser_client(organiser).post(page, {"action": "invite"})
    link = re.search(r'value="http://testserver([^"]+)" id="invitation-link"', made.text)[1]
    client = Client()
    client.force_login(person)
    before = state()
    response = client.post(link)
    assert response.status_code == 400
    assert "already holds Bob Baker" in response.text
    assert state() == before
    assert Invitation.objects.get().accepted_at is None


@pytest.mark.parametrize(
    ("data", "field_text"),
    [
        ({"action": "invite", "email": "not-an-address"}, "Enter a valid email address"),
        ({"action": "explode"}, "Choose what to do"),
        ({"action": "forget"}, "Tick the box"),
    ],
)
def test_bad_input_on_the_player_account_page_changes_nothing(
    league, organiser, ann, data, field_text
):
    page = reverse("workspace:player_account", args=[league.slug, ann.slug])
    before = state()
    response = organiser_client(organiser).post(page, data)
    assert response.status_code == 400
    assert field_text in response.text
    assert state() == before


def test_only_organisers_open_the_player_account_page(league, other_organiser, ann, person):
    page = reverse("workspace:player_account", args=[league.slug, ann.slug])
    assert Client().get(page)["Location"].startswith(reverse("accounts:sign_in"))
    for user in (other_organiser, person):
        client = Client()
        client.force_login(user)
        before = state()
        assert client.post(page, {"action": "invite"}).status_code == 403
        assert state() == before


def test_an_organiser_unlinks_a_wrong_claim(league, organiser, ann, person):
    claim_player(ann, person, by=person)
    page = reverse("workspace:player_account", args=[league.slug, ann.slug])
    response = organiser_client(organiser).post(page, {"action": "release", "reason": "wrong"})
    assert response.status_code == 302
    assert Player.objects.get(pk=ann.pk).account is None


# --- asking to join --------------------------------------------------------------------


def test_a_league_that_takes_no_requests_says_so(client, league, person):
    client.force_login(person)
    before = state()
    response = client.post(reverse("accounts:join", args=[league.slug]), {"name": "Pat"})
    assert response.status_code == 403
    assert 'id="join-closed"' in response.text
    assert state() == before


def test_a_person_asks_to_join_and_an_organiser_accepts_as_a_new_player(league, organiser, person):
    organiser_client(organiser).post(
        reverse("workspace:join_requests", args=[league.slug]),
        {"action": "setting", "players_may_join": "on"},
    )
    client = Client()
    client.force_login(person)
    asked = client.post(
        reverse("accounts:join", args=[league.slug]), {"name": "Pat Player", "message": "hi"}
    )
    assert asked.status_code == 302
    again = client.post(reverse("accounts:join", args=[league.slug]), {"name": "Pat Again"})
    assert 'id="join-pending"' in again.text
    assert JoinRequest.objects.count() == 1

    join = JoinRequest.objects.get()
    page = reverse("workspace:join_requests", args=[league.slug])
    listing = organiser_client(organiser).get(page)
    assert "Pat Player" in listing.text
    accepted = organiser_client(organiser).post(
        page, {"action": "accept", "request": join.pk, "player": ""}
    )
    assert accepted.status_code == 302
    player = Player.objects.get(display_name="Pat Player")
    assert player.account == person
    join.refresh_from_db()
    assert (join.status, join.player) == ("accepted", player)
    assert 'id="join-member"' in client.get(reverse("accounts:join", args=[league.slug])).text


def test_an_organiser_links_a_request_to_a_listed_player_or_refuses_it(
    league, organiser, ann, person
):
    league.players_may_join = True
    league.save()
    client = Client()
    client.force_login(person)
    client.post(reverse("accounts:join", args=[league.slug]), {"name": "Ann A."})
    join = JoinRequest.objects.get()
    page = reverse("workspace:join_requests", args=[league.slug])
    organiser_client(organiser).post(
        page, {"action": "accept", "request": join.pk, "player": ann.pk}
    )
    assert Player.objects.get(pk=ann.pk).account == person
    assert not Player.objects.filter(display_name="Ann A.").exists()

    stranger = get_user_model().objects.create_user("sam", password="pw-sam-1")
    other = Client()
    other.force_login(stranger)
    other.post(reverse("accounts:join", args=[league.slug]), {"name": "Sam"})
    refused_join = JoinRequest.objects.get(account=stranger)
    organiser_client(organiser).post(page, {"action": "refuse", "request": refused_join.pk})
    refused_join.refresh_from_db()
    assert refused_join.status == "refused"
    before = state()
    twice = organiser_client(organiser).post(page, {"action": "refuse", "request": refused_join.pk})
    assert twice.status_code == 400
    assert "no such pending request" in twice.text
    assert state() == before


@pytest.mark.parametrize(
    ("data", "text"),
    [({"name": ""}, "This field is required"), ({"name": "x" * 121}, "at most 120")],
)
def test_bad_join_input_names_the_field(league, person, data, text):
    league.players_may_join = True
    league.save()
    client = Client()
    client.force_login(person)
    before = state()
    response = client.post(reverse("accounts:join", args=[league.slug]), data)
    assert response.status_code == 400
    assert text in response.text
    assert state() == before


# --- my account, privacy, leaving ------------------------------------------------------


@pytest.fixture
def rated(league, organiser, ann, bob, person):
    services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 2, 1)
    )
    rank_everyone(league)
    rate(league)
    claim_player(ann, person, by=person)
    return league


def test_a_player_hides_their_own_rating_from_themselves_only(rated, ann, person):
    client = Client()
    client.force_login(person)
    client.post(reverse("accounts:home"), {"action": "preferences", "hide_own_rating": "on"})
    board = client.get(reverse("pages:league", args=[rated.slug])).text
    assert board.count("my-hidden-rating") == 1
    mine = client.get(ann.get_absolute_url())
    assert 'id="rating-hidden"' in mine.text
    assert "RD now" not in mine.text
    others = Client().get(ann.get_absolute_url()).text
    assert "RD now" in others
    assert 'id="rating-hidden"' not in others
    assert "my-hidden-rating" not in Client().get(reverse("pages:league", args=[rated.slug])).text
    client.post(reverse("accounts:home"), {"action": "preferences"})
    assert "RD now" in client.get(ann.get_absolute_url()).text


def test_the_privacy_page_and_export_show_what_the_league_holds_about_me(rated, ann, bob, person):
    client = Client()
    client.force_login(person)
    page = client.get(reverse("accounts:privacy"))
    assert page.status_code == 200
    assert "Ann Archer" in page.text
    exported = client.get(reverse("accounts:privacy_export"))
    assert exported["Content-Type"].startswith("application/json")
    data = json.loads(exported.content)
    assert data["account"]["email"] == "pat@example.org"
    assert [p["name"] for p in data["players"]] == ["Ann Archer"]
    kinds = sorted(event["kind"] for event in data["events"])
    assert kinds == ["match_recorded", "player_claimed", "player_registered"]
    assert all(event["player_id"] != bob.pk for event in data["events"])
    assert (
        Client()
        .get(reverse("accounts:privacy_export"))["Location"]
        .startswith(reverse("accounts:sign_in"))
    )


def test_a_player_leaves_by_unlinking_or_by_being_forgotten(rated, ann, person):
    client = Client()
    client.force_login(person)
    page = reverse("accounts:leave", args=[ann.pk])
    before = state()
    unconfirmed = client.post(page, {"action": "forget"})
    assert unconfirmed.status_code == 400
    assert state() == before
    forgotten = client.post(page, {"action": "forget", "confirm": "forget"})
    assert forgotten.status_code == 302
    assert Player.objects.get(pk=ann.pk).display_name == f"Forgotten player {ann.pk}"
    assert 'id="no-players"' in client.get(reverse("accounts:home")).text


def test_nobody_leaves_for_someone_else(rated, ann, organiser):
    stranger = get_user_model().objects.create_user("sam", password="pw-sam-1")
    client = Client()
    client.force_login(stranger)
    before = state()
    page = reverse("accounts:leave", args=[ann.pk])
    assert client.post(page, {"action": "forget", "confirm": "forget"}).status_code == 404
    assert state() == before


# --- the API ---------------------------------------------------------------------------


def test_the_api_names_my_players_by_session_or_token(league, other_league, ann, person):
    olga = services.register_player(other_league, "Olga")
    claim_player(ann, person, by=person)
    claim_player(olga, person, by=person)
    assert Client().get(reverse("api:me")).status_code == 401
    _token, secret = create_token(person, "phone")
    by_token = Client().get(reverse("api:me"), HTTP_AUTHORIZATION=f"Token {secret}")
    assert by_token.status_code == 200
    body = by_token.json()
    assert body["username"] == "pat"
    assert {(p["league"], p["display_name"]) for p in body["players"]} == {
        ("riverside", "Ann Archer"),
        ("hilltop", "Olga"),
    }
    assert body["hide_own_rating"] is False
    session = Client()
    session.force_login(person)
    assert session.get(reverse("api:me")).json() == body
