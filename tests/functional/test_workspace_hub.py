"""The organisers' hub: reachable from the public header, closed to everyone else."""

from __future__ import annotations

from django.urls import reverse

from web.workspace.sections import SECTIONS, sections_for


def test_hub_lists_every_task_for_the_leagues_organiser(client, league, organiser):
    client.force_login(organiser)
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.status_code == 200
    body = response.content.decode()
    shown = sections_for(league)
    assert len(shown) >= 2
    for section in shown:
        assert str(section.title) in body
        assert reverse(section.url_name, args=[league.slug]) in body
    # The rest are the tasks of another kind of league (e.g. team matches).
    for section in set(SECTIONS) - set(shown):
        assert reverse(section.url_name, args=[league.slug]) not in body


def test_public_header_links_the_hub_for_a_signed_in_organiser(client, league, organiser):
    client.force_login(organiser)
    body = client.get(reverse("pages:league", args=[league.slug])).content.decode()
    assert reverse("workspace:hub", args=[league.slug]) in body


def test_anonymous_visitor_is_sent_to_sign_in(client, league):
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.status_code == 302
    assert "login" in response["Location"]
    assert "next=" in response["Location"]


def test_another_leagues_organiser_is_refused(client, league, other_organiser):
    client.force_login(other_organiser)
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.status_code == 403


def test_unknown_league_is_not_found(client, organiser):
    client.force_login(organiser)
    assert client.get(reverse("workspace:hub", args=["no-such-league"])).status_code == 404


def test_config_page_refreshes_itself_while_a_replay_runs_and_never_says_0_of_0(
    client, league, organiser
):
    from unittest import mock

    from ratings import services as rating_services
    from tests.functional.conftest import run_queued_replays

    client.force_login(organiser)
    page_url = reverse("workspace:config", args=[league.slug])
    # No worker picks the replay up: it stays queued, with no periods counted yet.
    with mock.patch.object(rating_services, "send_replay"):
        rating_services.create_config(league)
    waiting = client.get(page_url).content.decode()
    assert 'id="config-live" hx-get="' + page_url in waiting
    assert 'hx-select-oob="#config-live-panel"' in waiting
    assert "Waiting for a worker to start" in waiting
    assert "0 of 0" not in waiting
    run_queued_replays(league)
    done = client.get(page_url).content.decode()
    assert 'id="config-live" hx-get' not in done
    assert "hx-trigger" not in done.split('id="config-live"')[1].split(">")[0]
    assert "Last replay" in done
    assert "<dt>Rating periods</dt><dd>7 days from 1 Jan 2024</dd>" in done


def test_hub_links_every_workspace_task(client, league, organiser):
    client.force_login(organiser)
    body = client.get(reverse("workspace:hub", args=[league.slug])).content.decode()
    for name in ("record", "round", "log", "import", "export", "players", "tokens"):
        assert reverse(f"workspace:{name}", args=[league.slug]) in body


def test_import_is_a_page_of_the_workspace(client, league, organiser):
    client.force_login(organiser)
    imported = client.get(reverse("workspace:import", args=[league.slug]))
    assert imported.status_code == 200
    assert 'enctype="multipart/form-data"' in imported.content.decode()


def test_signed_in_header_has_a_sign_out_that_returns_to_the_page(client, league, organiser):
    client.force_login(organiser)
    page = reverse("pages:league", args=[league.slug])
    body = client.get(page).content.decode()
    assert f'action="{reverse("workspace:sign_out")}"' in body
    assert f'name="next" value="{page}"' in body
    response = client.post(reverse("workspace:sign_out"), {"next": page})
    assert response["Location"] == page
    assert "Organiser sign-in" in client.get(page).content.decode()


def test_public_header_links_the_hub_only_for_the_leagues_organisers(
    client, league, other_organiser
):
    client.force_login(other_organiser)
    body = client.get(reverse("pages:league", args=[league.slug])).content.decode()
    assert reverse("workspace:hub", args=[league.slug]) not in body
    assert "Sign out" in body


def test_admin_event_log_opens_newest_first(client, league, make_player, superuser):
    import datetime as dt

    from league import services

    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    for day in (2, 3, 4):
        services.record_match(
            league, player_a=ann, player_b=bob, score_a=1, played_at=dt.date(2024, 3, day)
        )
    client.force_login(superuser)
    listing = client.get(reverse("admin:league_event_changelist"), {"league": league.pk})
    seqs = [event.seq for event in listing.context["cl"].result_list]
    assert seqs == sorted(seqs, reverse=True)
    assert len(seqs) == 5
