"""The organisers' workspace, under ``/<league>/organise/``."""

from django.contrib.auth.views import LogoutView
from django.urls import path, re_path

from web.workspace import (
    accounts,
    backtest,
    club_captains,
    club_fixtures,
    club_matches,
    competitions,
    config,
    divisions,
    exports,
    fixture_views,
    imports,
    invitations,
    log,
    player_accounts,
    player_games,
    players,
    recording,
    seasons,
    side_fixtures,
    tokens,
    trf_imports,
    views,
    webhook,
    website,
)

app_name = "workspace"
organise = "<slug:league_slug>/organise/"
urlpatterns = [
    # Signing out from any page returns to it (``next``), or to the home page.
    path("sign-out/", LogoutView.as_view(next_page="pages:home"), name="sign_out"),
    # A club starts here: an account, a league, co-organisers by invitation link
    # ("accounts" is a reserved slug: ratings.new_league.RESERVED_SLUGS).
    path("accounts/sign-up/", accounts.sign_up, name="sign_up"),
    path("accounts/new-league/", accounts.new_league, name="new_league"),
    path("accounts/invitations/<str:token>/", invitations.invitation, name="invitation"),
    path(organise, views.hub, name="hub"),
    # What players do themselves (signed in, for their own player record).
    path("<slug:league_slug>/my-games/", player_games.my_games, name="my_games"),
    path("<slug:league_slug>/my-team/", club_captains.my_team, name="my_team"),
    path(
        "<slug:league_slug>/my-games/reports/<int:report_id>/<slug:action>/",
        player_games.report_action,
        name="report_action",
    ),
    path(
        "<slug:league_slug>/my-games/challenges/<int:challenge_id>/<slug:action>/",
        player_games.challenge_action,
        name="challenge_action",
    ),
    path(f"{organise}reports/", player_games.reports_queue, name="reports"),
    path(
        f"{organise}reports/<int:report_id>/<slug:action>/",
        player_games.decide_report,
        name="decide_report",
    ),
    path(f"{organise}organisers/", invitations.organisers, name="organisers"),
    path(
        f"{organise}organisers/invitations/<int:invitation_id>/revoke/",
        invitations.revoke,
        name="revoke_invitation",
    ),
    path(f"{organise}ranking/", views.ranking, name="ranking"),
    path(f"{organise}record/", recording.record, name="record"),
    path(f"{organise}round/", recording.round_entry, name="round"),
    path(f"{organise}team-match/", recording.team_match, name="team_match"),
    path(f"{organise}team-round/", recording.team_round, name="team_round"),
    path(f"{organise}undo/", recording.undo, name="undo"),
    path(f"{organise}log/", log.log, name="log"),
    path(f"{organise}matches/<int:seq>/void/", log.void, name="void"),
    path(f"{organise}matches/<int:seq>/correct/", log.correct, name="correct"),
    path(f"{organise}import/", imports.upload, name="import"),
    path(f"{organise}import/undo/", imports.undo, name="import_undo"),
    path(f"{organise}import-trf/", trf_imports.upload, name="import_trf"),
    path(f"{organise}import-trf/<str:token>/", trf_imports.preview, name="import_trf_preview"),
    path(f"{organise}import/<str:token>/", imports.preview, name="import_preview"),
    path(f"{organise}export/", exports.export_page, name="export"),
    re_path(
        r"^(?P<league_slug>[-a-zA-Z0-9_]+)/organise/export/(?P<what>results|event-log)\.csv$",
        exports.download,
        name="export_download",
    ),
    path(f"{organise}tokens/", tokens.tokens, name="tokens"),
    path(f"{organise}tokens/<int:token_id>/revoke/", tokens.revoke, name="revoke_token"),
    path(f"{organise}players/", players.players, name="players"),
    path(f"{organise}players/<slug:player_slug>/", players.player, name="player"),
    path(
        f"{organise}players/<slug:player_slug>/account/",
        player_accounts.player_account,
        name="player_account",
    ),
    path(f"{organise}join-requests/", player_accounts.join_requests, name="join_requests"),
    path(f"{organise}seasons/", seasons.season_list, name="seasons"),
    path(f"{organise}seasons/<slug:season_slug>/", seasons.season_detail, name="season"),
    path(
        f"{organise}seasons/<slug:season_slug>/divisions/",
        divisions.season_divisions,
        name="season_divisions",
    ),
    path(f"{organise}website/", website.website, name="website"),
    path(f"{organise}webhook/", webhook.webhook, name="webhook"),
    path(f"{organise}webhook/test/", webhook.send_test, name="webhook_test"),
    path(f"{organise}fixtures/", fixture_views.fixtures_page, name="fixtures"),
    path(
        f"{organise}fixtures/<int:fixture_id>/result/",
        fixture_views.fixture_result,
        name="fixture_result",
    ),
    path(
        f"{organise}fixtures/<int:fixture_id>/reschedule/",
        fixture_views.fixture_reschedule,
        name="fixture_reschedule",
    ),
    path(
        f"{organise}fixtures/<int:fixture_id>/cancel/",
        fixture_views.fixture_cancel,
        name="fixture_cancel",
    ),
    path(f"{organise}fixtures/sides/", side_fixtures.side_fixtures_page, name="side_fixtures"),
    path(f"{organise}pairings/", fixture_views.pairings_page, name="pairings"),
    path(f"{organise}events/", competitions.competition_list, name="competitions"),
    path(f"{organise}club-matches/", club_matches.clubs_page, name="clubs"),
    path(
        f"{organise}club-matches/generate/",
        club_fixtures.generate_page,
        name="club_fixtures",
    ),
    path(
        f"{organise}club-matches/<int:match_id>/",
        club_matches.club_match,
        name="club_match",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/",
        competitions.competition,
        name="competition",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/enter/",
        competitions.enter,
        name="competition_enter",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/withdraw/",
        competitions.withdraw,
        name="competition_withdraw",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/bye/",
        competitions.bye,
        name="competition_bye",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/forbid/",
        competitions.forbid,
        name="competition_forbid",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/publish/",
        competitions.publish,
        name="competition_publish",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/games/<int:fixture_id>/result/",
        competitions.result,
        name="competition_result",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/games/<int:fixture_id>/forfeit/",
        competitions.forfeit,
        name="competition_forfeit",
    ),
    path(
        f"{organise}events/<slug:competition_slug>/games/<int:fixture_id>/tie-game/",
        competitions.tie_game,
        name="competition_tie_game",
    ),
    # The configuration and the backtest keep their addresses of before the workspace.
    path("<slug:league_slug>/config/", config.config, name="config"),
    path("<slug:league_slug>/backtest/", backtest.sweep_list, name="backtest"),
    path(
        "<slug:league_slug>/backtest/<int:sweep_id>/", backtest.sweep_detail, name="backtest_sweep"
    ),
    path(
        "<slug:league_slug>/backtest/<int:sweep_id>/progress/",
        backtest.sweep_progress,
        name="backtest_progress",
    ),
    path(
        "<slug:league_slug>/backtest/<int:sweep_id>/adopt/", backtest.adopt, name="backtest_adopt"
    ),
]
