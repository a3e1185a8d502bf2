"""The hub: one page per league listing every organiser task and the replay status."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from ratings.eligibility import default_active_periods, eligibility
from ratings.models import RankingRules
from ratings.selectors.checklist import league_setup
from ratings.selectors.configurations import live_config
from ratings.selectors.progress import league_progress
from ratings.selectors.standings import LeaderboardQuery, leaderboard, ranking_summary
from web.formatting import describe_periods, ranking_note
from web.forms import RankingRulesForm
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.checklist import checklist
from web.workspace.sections import sections_for


@require_GET
def hub(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Every organiser task of the league, with the replay's progress and who is ranked."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    sections = [
        {"section": section, "url": reverse(section.url_name, args=[league.slug])}
        for section in sections_for(league)
    ]
    config = live_config(league)
    summary = ranking_summary(league, config) if config is not None else None
    setup = league_setup(league)
    return render(
        request,
        "workspace/hub.html",
        {
            "league": league,
            "sections": sections,
            "progress": league_progress(league),
            "show_outcome": True,
            "ranking_note": ranking_note(summary) if summary and summary.rated else [],
            "ranking_url": reverse("workspace:ranking", args=[league.slug]),
            "setup": setup,
            "checklist": checklist(league, setup),
        },
    )


def ranking(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Who is ranked: the league's eligibility rules, with how many players each rule lists."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    config = live_config(league)
    rules = RankingRules.objects.filter(league=league).first()
    if rules is None:
        current = eligibility(league, config)
        rules = RankingRules(
            league=league,
            min_games=current.min_games,
            active_periods=current.active_periods,
            max_rd=current.max_rd,
            rank_by=current.rank_by,
        )
    form = RankingRulesForm(request.POST or None, instance=rules)
    if request.method == "POST":
        if form.is_valid():
            saved = form.save(commit=False)
            saved.updated_at = timezone.now()
            saved.updated_by = request.user
            saved.save()
            messages.success(request, "Ranking rules saved: the standings use them now.")
            return redirect("workspace:ranking", league_slug=league.slug)
        messages.error(request, "The rules were not saved: see the fields marked below.")
    in_force = eligibility(league, config)
    board = None
    if config is not None:
        board = leaderboard(league, LeaderboardQuery(per_page=1), config=config, rules=in_force)
    return render(
        request,
        "workspace/ranking.html",
        {
            "league": league,
            "form": form,
            "rules": in_force,
            "board": board,
            "default_window": default_active_periods(config),
            "provisional_rd": f"{settings.PROVISIONAL_RD:.0f}",
            "period_description": describe_periods(
                config.period_unit, config.period_length, config.period_anchor
            )
            if config
            else "",
        },
    )
