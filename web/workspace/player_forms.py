"""Forms of the players' pages ("My games") and of the organisers' reports queue.

The forms only shape the page's input; the write services (``league.services.reports`` and
``ratings.challenges``) decide everything, and their errors are put back on the
fields they name (``web.workspace.forms.put_errors``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from league.calendar import league_day
from league.idempotency_keys import new_key
from league.models import League, Player, PlayerRules
from league.scores import points_for

RESULTS = (("1", _("I won / we won")), ("0.5", _("Draw")), ("0", _("I lost / we lost")))


def _others(league: League, me: Player) -> list[tuple[str, str]]:
    players = Player.objects.filter(league=league, active=True, merged_into__isnull=True)
    return [(str(p.pk), p.display_name) for p in players.exclude(pk=me.pk)]


class ReportForm(forms.Form):
    """A result of the signed-in player's: their side (with partners, in a league of sides)
    against the opponents, the result for their side, the day."""

    opponents = forms.MultipleChoiceField(label=_("Opponent(s)"))
    partners = forms.MultipleChoiceField(
        label=_("Partner(s) on your side"),
        required=False,
        help_text=_("Doubles and team games: the players of your side besides you."),
    )
    score = forms.ChoiceField(label=_("Result"), choices=[("", "—"), *RESULTS])
    played_at = forms.DateField(
        label=_("Day played"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    points = forms.CharField(
        label=_("Score (optional)"), required=False, max_length=120, help_text=_('e.g. "3-1"')
    )
    note = forms.CharField(label=_("Note (optional)"), required=False, max_length=2000)

    def __init__(self, *args: Any, league: League, me: Player, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = _others(league, me)
        self.fields["opponents"].choices = choices
        self.fields["partners"].choices = choices
        if not league.takes_sides:
            # One opponent, picked from a plain list: the simplest control on a phone.
            self.fields["opponents"] = forms.ChoiceField(
                label=_("Opponent"), choices=[("", "—"), *choices]
            )
            del self.fields["partners"]
            # Who had White, or where the game was played, decides who gets the advantage:
            # the reporter is not always the first-named side.
            if league.is_chess:
                self.fields["colour"] = forms.ChoiceField(
                    label=_("Your colour"),
                    choices=[("", "—"), ("white", _("White")), ("black", _("Black"))],
                )
                self.order_fields(["opponents", "colour", "score"])
            elif league.has_home_ground:
                self.fields["ground"] = forms.ChoiceField(
                    label=_("Where"),
                    choices=[
                        ("neutral", _("Neutral ground")),
                        ("home", _("At my ground")),
                        ("away", _("At the opponent's ground")),
                    ],
                    initial="neutral",
                )
                self.order_fields(["opponents", "ground", "score"])
        self.initial.setdefault("played_at", league_day(league, timezone.now()))
        # One key per rendered form: a double submission stores one report. A form sent
        # back with errors keeps its key (nothing was stored under it).
        self.key = (self.data.get("idempotency_key") if self.is_bound else None) or new_key()

    def sides(self, me: Player) -> list[list[Any]]:
        """``[[me, partners…], [opponents…]]`` as the service takes sides (ids)."""
        data = self.cleaned_data
        opponents = data["opponents"]
        opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        return [[me.pk, *data.get("partners", [])], opponents]

    def match(self, me: Player) -> dict[str, Any]:
        """The sides, the first side's score and ``neutral`` as the service takes them: the
        first-named side is White in chess and the home side elsewhere, so a reporter who
        had Black, or played away, is named second."""
        data = self.cleaned_data
        sides, score = self.sides(me), data["score"]
        second = data.get("colour") == "black" or data.get("ground") == "away"
        if second:
            sides.reverse()
            score = {"1": "0", "0": "1"}.get(score, score)
        return {
            "sides": sides,
            "score_a": score,
            # The points are typed from the reporter's side ("3-1": I scored 3).
            "points": points_for(data["points"], as_player_a=not second),
            "neutral": data.get("ground") == "neutral",
        }


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), max_length=1000, widget=forms.Textarea(attrs={"rows": 2})
    )


class ChallengeForm(forms.Form):
    challenged = forms.ChoiceField(label=_("Player to challenge"))

    def __init__(self, *args: Any, league: League, me: Player, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["challenged"].choices = [("", "—"), *_others(league, me)]


class PlayerRulesForm(forms.ModelForm):
    """A league's rules for reports and challenges."""

    class Meta:
        model = PlayerRules
        fields = [
            "report_policy",
            "accept_after_days",
            "challenges",
            "challenge_places",
            "challenge_days",
            "ignored_challenge",
        ]
        labels = {
            "report_policy": _("Results reported by players"),
            "accept_after_days": _("Days before an undisputed report is accepted"),
            "challenges": _("Players may challenge each other"),
            "challenge_places": _("Challenges within this many places of the ranking"),
            "challenge_days": _("Days to answer a challenge"),
            "ignored_challenge": _("A challenge left unanswered"),
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for field, low, high in (
            ("accept_after_days", 1, 60),
            ("challenge_places", 1, 50),
            ("challenge_days", 1, 60),
        ):
            value = data.get(field)
            if value is not None and not low <= value <= high:
                self.add_error(
                    field,
                    _("Give a whole number from %(low)s to %(high)s.") % {"low": low, "high": high},
                )
        return data
