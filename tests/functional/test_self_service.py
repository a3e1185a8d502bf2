"""A club starts from the browser: sign-up, a new league, co-organiser invitations, the hub's
checklist, and the operator's limits (sign-up closed, leagues per account, sign-up rate).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from league.invitations import create_invitation
from league.models import Invitation, League
from ratings.eligibility import new_league_rules
from ratings.models import RankingRules, RatingConfig, Replay

pytestmark = pytest.mark.django_db

PASSWORD = "a-Long-club-pass-93"
User = get_user_model()


@pytest.fixture(autouse=True)
def _fresh_throttle():
    # The sign-up throttle counts in the default cache, shared by the tests of a process; the
    # home page's sign-up link is in the page cache.
    cache.clear()
    caches["pages"].clear()
    yield
    cache.clear()
    caches["pages"].clear()


def sign_up(client: Client, username: str = "ann", password: str = PASSWORD, **extra):
    return client.post(
        reverse("workspace:sign_up"),
        {"username": username, "email": "", "password1": password, "password2": password, **extra},
    )


def start_league(client: Client, slug: str = "riverside-chess", **extra):
    data = {
        "name": "Riverside Chess",
        "slug": slug,
        "sport": "Chess",
        "results_only": "on",
        "match_format": "singles",
        "time_zone": "Europe/London",
        "start_date": "",
        **extra,
    }
    return client.post(reverse("workspace:new_league"), data)


def invitation_link(response) -> str:
    match = re.search(r'id="invitation-link" type="text" readonly value="([^"]+)"', response.text)
    assert match, response.text
    return match.group(1)


# --- sign-up --------------------------------------------------------------------------------


def test_sign_up_creates_an_account_signs_it_in_and_goes_on_to_a_new_league(client):
    response = sign_up(client)
    assert response.status_code == 302
    assert response["Location"] == reverse("workspace:new_league")
    user = User.objects.get(username="ann")
    assert user.check_password(PASSWORD)
    assert user.is_staff
    assert not user.is_superuser
    assert client.get(reverse("workspace:new_league")).status_code == 200
    # The site's sign-in page admits the account afterwards.
    other = Client()
    assert other.login(username="ann", password=PASSWORD)


def test_sign_up_applies_the_password_validators_and_creates_nothing(client):
    response = sign_up(client, password="12345678")
    assert response.status_code == 200
    assert "This password is too common." in response.text
    assert "This password is entirely numeric." in response.text
    assert not User.objects.filter(username="ann").exists()


def test_sign_up_goes_back_to_a_local_next_only(client):
    response = sign_up(client, next="/accounts/invitations/abc/")
    assert response["Location"] == "/accounts/invitations/abc/"
    response = sign_up(Client(), username="bob", next="https://evil.example/")
    assert response["Location"] == reverse("workspace:new_league")


@override_settings(OPEN_SIGNUP=False)
def test_sign_up_closed_shows_a_page_saying_so_and_creates_nothing(client):
    page = client.get(reverse("workspace:sign_up"))
    assert page.status_code == 403
    assert "Sign-up is closed" in page.text
    response = sign_up(client)
    assert response.status_code == 403
    assert not User.objects.filter(username="ann").exists()
    assert reverse("workspace:sign_up") not in client.get(reverse("pages:home")).text


@override_settings(OPEN_SIGNUP=False)
def test_with_sign_up_closed_a_pending_invitation_still_lets_its_person_sign_up(ann):
    _invitation, token = create_invitation(ann, ann.organisers.get())
    path = reverse("workspace:invitation", args=[token])
    sam = Client()
    assert sam.get(reverse("workspace:sign_up"), {"next": path}).status_code == 200
    assert sign_up(sam, username="sam", next=path)["Location"] == path
    sam.post(path)
    assert ann.is_organiser(User.objects.get(username="sam"))
    # The link is used now: it opens sign-up no more.
    assert sign_up(Client(), username="tim", next=path).status_code == 403
    assert not User.objects.filter(username="tim").exists()


def test_the_home_and_sign_in_pages_offer_sign_up_while_it_is_open(client):
    assert reverse("workspace:sign_up") in client.get(reverse("pages:home")).text
    sign_in = client.get(reverse("admin:login"), {"next": "/accounts/invitations/abc/"})
    assert 'id="signup-offer"' in sign_in.text
    assert "/accounts/sign-up/?next=/accounts/invitations/abc/" in sign_in.text
    with override_settings(OPEN_SIGNUP=False):
        assert 'id="signup-offer"' not in client.get(reverse("admin:login")).text


@override_settings(SIGNUP_RATE="3/hour")
def test_sign_up_attempts_are_limited_per_address():
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for attempt in range(3):
        assert sign_up(attacker, username=f"bot{attempt}", password="1").status_code == 200
    paused = sign_up(attacker, username="bot9")
    assert paused.status_code == 429
    assert "Sign-up paused" in paused.text
    assert int(paused["Retry-After"]) > 0
    assert not User.objects.filter(username="bot9").exists()
    # Another address is not affected.
    assert sign_up(Client(REMOTE_ADDR="198.51.100.4")).status_code == 302


def test_sign_up_requires_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    assert sign_up(client).status_code == 403
    assert not User.objects.filter(username="ann").exists()


# --- a new league ---------------------------------------------------------------------------


def test_a_new_league_has_its_creator_as_organiser_a_first_configuration_and_new_club_rules(
    client,
):
    sign_up(client)
    response = start_league(client)
    league = League.objects.get(slug="riverside-chess")
    assert response["Location"] == reverse("workspace:hub", args=[league.slug])
    user = User.objects.get(username="ann")
    assert list(league.organisers.all()) == [user]
    assert league.created_by == user
    assert (league.name, league.sport, league.records_points) == ("Riverside Chess", "Chess", False)
    assert league.time_zone == "Europe/London"
    config = RatingConfig.objects.get(league=league)
    assert (config.version, config.created_by) == (1, user)
    rules = RankingRules.objects.get(league=league)
    expected = new_league_rules(config)
    assert (rules.min_games, rules.active_periods, rules.max_rd, rules.rank_by) == (
        expected["min_games"],
        expected["active_periods"],
        expected["max_rd"],
        expected["rank_by"],
    )
    assert Replay.objects.filter(config=config, kind=Replay.Kind.FULL).exists()


def test_a_new_league_form_names_each_bad_field_and_creates_nothing(client, league):
    sign_up(client)
    response = start_league(client, slug=league.slug, name="  ")
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "name" in errors
    response = start_league(client, slug="accounts")
    assert "an address the site itself uses" in response.text
    response = start_league(client, slug=league.slug)
    assert "already exists" in response.text
    response = start_league(client, slug="bell", name="Bell\x07 Club")
    assert "control character" in response.context["form"].errors["name"][0]
    response = start_league(client, slug="bell", sport="Chess\x00")
    assert "sport" in response.context["form"].errors  # the form itself refuses a NUL byte
    response = start_league(client, slug="teams", match_format="teams", side_size="")
    assert "Say how many players a side has." in response.text
    assert League.objects.filter(created_by__username="ann").count() == 0


def test_a_new_league_needs_a_signed_in_account(client):
    response = start_league(client)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:sign_in"))
    assert not League.objects.filter(slug="riverside-chess").exists()


@override_settings(MAX_LEAGUES_PER_ACCOUNT=2)
def test_the_cap_on_leagues_per_account_refuses_one_more(client, superuser):
    sign_up(client)
    assert start_league(client, slug="one").status_code == 302
    assert start_league(client, slug="two").status_code == 302
    page = client.get(reverse("workspace:new_league"))
    assert "at most 2 leagues" in page.text
    response = start_league(client, slug="three")
    assert response.status_code == 200
    assert "at most 2 leagues" in response.text
    assert not League.objects.filter(slug="three").exists()
    # The operator is not capped.
    admin = Client()
    admin.force_login(superuser)
    assert start_league(admin, slug="three").status_code == 302


# --- the hub's checklist --------------------------------------------------------------------


def test_the_hub_lists_what_a_new_league_still_needs_with_links(client, make_player, record):
    sign_up(client)
    start_league(client)
    league = League.objects.get(slug="riverside-chess")
    hub = client.get(reverse("workspace:hub", args=[league.slug]))
    steps = {step.key: step for step in hub.context["checklist"]}
    assert (steps["players"].done, steps["result"].done, steps["config"].done) == (
        False,
        False,
        True,
    )
    assert f'href="{reverse("workspace:players", args=[league.slug])}"' in hub.text
    assert f'href="{reverse("workspace:record", args=[league.slug])}"' in hub.text
    a, b = make_player(league, "Ann Lee"), make_player(league, "Bo Chan")
    record(league, [(a, b, "1", timezone.localdate())])
    hub = client.get(reverse("workspace:hub", args=[league.slug]))
    assert 'id="checklist"' not in hub.text  # nothing left to do


def test_a_league_without_configuration_says_so_on_its_hub(client, organiser, league):
    client.force_login(organiser)
    hub = client.get(reverse("workspace:hub", args=[league.slug]))
    assert "No rating configuration yet" in hub.text
    assert f'href="{reverse("workspace:config", args=[league.slug])}"' in hub.text


def test_a_league_added_in_the_admin_gets_its_first_configuration(client, superuser, organiser):
    organiser.is_staff = True
    organiser.save()
    client.force_login(superuser)
    response = client.post(
        reverse("admin:league_league_add"),
        {
            "name": "Admin Club",
            "slug": "admin-club",
            "description": "",
            "sport": "Squash",
            "records_points": "on",
            "time_zone": "UTC",
            "start_date": "2025-01-06",
            "match_format": "singles",
            "side_size": "2",
            "default_language": "en-gb",
            "organisers": [organiser.pk],
        },
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    league = League.objects.get(slug="admin-club")
    config = RatingConfig.objects.get(league=league)
    assert config.version == 1
    assert RankingRules.objects.get(league=league).max_rd is None  # a new club's rules


# --- invitations ----------------------------------------------------------------------------


@pytest.fixture
def ann(client):
    """Ann, signed up and organising her new league (in ``client``)."""
    sign_up(client)
    start_league(client)
    return League.objects.get(slug="riverside-chess")


def test_an_invitation_makes_its_acceptor_a_co_organiser_and_is_then_used(client, ann):
    response = client.post(reverse("workspace:organisers", args=[ann.slug]), {"label": "Sam"})
    assert response["Cache-Control"] == "no-store"
    link = invitation_link(response)
    path = link.split("testserver", 1)[1]
    token = path.rstrip("/").rsplit("/", 1)[1]
    invitation = Invitation.objects.get(league=ann)
    # Only the digest is stored, never the token.
    assert invitation.digest == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {str(v) for v in Invitation.objects.values_list(*_fields()).get()}

    sam = Client()
    page = sam.get(path)
    assert page.status_code == 200
    assert "Create an account" in page.text
    assert sign_up(sam, username="sam", next=path)["Location"] == path
    accepted = sam.post(path)
    assert accepted["Location"] == reverse("workspace:hub", args=[ann.slug])
    sam_user = User.objects.get(username="sam")
    assert ann.is_organiser(sam_user)
    assert sam_user.is_staff
    assert sam.get(reverse("workspace:hub", args=[ann.slug])).status_code == 200

    # Single use: the link is spent, for anyone.
    third = Client()
    sign_up(third, username="tim")
    used = third.post(path)
    assert used.status_code == 410
    assert "has been used already" in used.text
    assert not ann.is_organiser(User.objects.get(username="tim"))
    listed = client.get(reverse("workspace:organisers", args=[ann.slug]))
    assert "used by sam" in listed.text


def _fields() -> list[str]:
    return [field.attname for field in Invitation._meta.concrete_fields]


def test_an_expired_invitation_is_refused_with_a_clear_page(ann):
    invitation, token = create_invitation(ann, ann.organisers.get())
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    visitor = Client()
    sign_up(visitor, username="sam")
    path = reverse("workspace:invitation", args=[token])
    for response in (visitor.get(path), visitor.post(path)):
        assert response.status_code == 410
        assert "The link has expired." in response.text
    assert not ann.is_organiser(User.objects.get(username="sam"))


def test_a_revoked_invitation_is_refused_and_only_pending_ones_can_be_revoked(client, ann):
    invitation, token = create_invitation(ann, ann.organisers.get(), "Sam")
    revoke = reverse("workspace:revoke_invitation", args=[ann.slug, invitation.pk])
    assert client.post(revoke).status_code == 302
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    again = client.post(revoke, follow=True)
    assert "no such pending invitation" in again.text
    visitor = Client()
    sign_up(visitor, username="sam")
    response = visitor.post(reverse("workspace:invitation", args=[token]))
    assert response.status_code == 410
    assert "was revoked" in response.text
    assert not ann.is_organiser(User.objects.get(username="sam"))


def test_an_unknown_link_is_not_found_without_a_server_error(client):
    for token in ("nothing-here", "x" * 500, "%00"):
        response = client.get(reverse("workspace:invitation", args=[token]))
        assert response.status_code == 404
        assert "There is no invitation at this link." in response.text


def test_an_invitation_opens_only_its_own_league(client, ann, other_league, other_organiser):
    invitation, token = create_invitation(ann, ann.organisers.get())
    visitor = Client()
    sign_up(visitor, username="sam")
    visitor.post(reverse("workspace:invitation", args=[token]))
    sam = User.objects.get(username="sam")
    assert ann.is_organiser(sam)
    assert not other_league.is_organiser(sam)
    assert visitor.get(reverse("workspace:hub", args=[other_league.slug])).status_code == 403
    # Another league's organiser can neither list nor revoke this league's invitations.
    other = Client()
    other.force_login(other_organiser)
    revoke = reverse("workspace:revoke_invitation", args=[other_league.slug, invitation.pk])
    other.post(revoke)
    invitation.refresh_from_db()
    assert invitation.revoked_at is None
    assert invitation.accepted_by == sam


def test_a_non_organiser_cannot_invite(ann, other_organiser):
    other = Client()
    other.force_login(other_organiser)
    response = other.post(reverse("workspace:organisers", args=[ann.slug]), {"label": "me"})
    assert response.status_code == 403
    assert other.get(reverse("workspace:organisers", args=[ann.slug])).status_code == 403
    assert not Invitation.objects.exists()
    anonymous = Client().post(reverse("workspace:organisers", args=[ann.slug]), {"label": "x"})
    assert anonymous.status_code == 302
    assert not Invitation.objects.exists()
    with pytest.raises(Exception, match="Only this league's organisers can invite"):
        create_invitation(ann, other_organiser)


def test_an_organiser_who_opens_their_own_link_leaves_it_unused(client, ann):
    invitation, token = create_invitation(ann, ann.organisers.get())
    page = client.get(reverse("workspace:invitation", args=[token]))
    assert "You organise Riverside Chess already" in page.text
    client.post(reverse("workspace:invitation", args=[token]))
    invitation.refresh_from_db()
    assert invitation.accepted_at is None
