"""The workspace's entry forms: one family for every match, one box for the score, players
completed from a list.

A one-vs-one result is typed as a spreadsheet row is: first player, score, second player; a
match with sides by each side's players (``MatchEntryForm``'s two layouts). The score box
(``league.scores.read_entry``) holds the points ("3-1", the result follows from them) in a
league that records points, or the result alone ("1-0", "½-½", "0-1") in one that does not,
so the result is never asked for twice. The services check everything else and their errors
are put back on these fields (``league.forms.add_service_errors``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from league.calendar import league_day
from league.chess.vocabulary import side_labels
from league.csv_format import FIRST_DAY, LAST_DAY
from league.forms import BaseRoundFormSet, PlayerNameInput, add_side_fields, side_form_shape
from league.idempotency_keys import new_key
from league.models import Event, League, Player
from league.player_names import find_player, unknown_players_message
from league.scores import entry_text, read_entry
from league.services import recorded_row
from league.sides import side_label
from web.workspace.dates import league_today

#: Rows a round page shows at first; ``?rows=N`` shows more (up to the formset's maximum).
ROUND_ROWS = 12
MAX_ROUND_ROWS = 100
#: The same for a round of team matches (a block of boxes per match, so fewer at first).
TEAM_ROUND_ROWS = 4
MAX_TEAM_ROUND_ROWS = 50

DATE_INPUT = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")


#: The two layouts of a match on the entry pages: a one-vs-one result typed as a
#: spreadsheet row (first player, score, second player), or each side's players.
PAIR, SIDES = "pair", "sides"
#: The services' names of the entry forms' fields, where they differ.
SERVICE_FIELDS = {"played_at": "played_on", "score_a": "score", "points": "score"}


def score_label(league: League) -> str:
    return str(_("Score") if league.records_points else _("Result"))


def player_labels(league: League) -> tuple[str, str]:
    """The entry forms' names of a one-vs-one match's two players: White and Black in a chess
    league (``league.chess.vocabulary``), else the first and the second player."""
    if league.is_chess:
        return side_labels(league)
    return str(_("First player")), str(_("Second player"))


def score_help(league: League, layout: str = PAIR) -> str:
    if league.is_chess and layout == PAIR and not league.records_points:
        return str(_("From White's side: 1-0, ½-½ (or d) or 0-1."))
    if league.records_points:
        return str(
            _("Side A's points first: 3-1 (w, d or l for a result without points).")
            if layout == SIDES
            else _("The first player's points first: 3-1 (w, d or l for a result without points).")
        )
    return str(
        _("From side A's side: 1-0, ½-½ (or d) or 0-1.")
        if layout == SIDES
        else _("From the first player's side: 1-0, ½-½ (or d) or 0-1.")
    )


class MatchEntryForm(forms.Form):
    """One match of any sides, as the workspace's entry pages take it: the players (two
    boxes, ``player_a`` and ``player_b``, in the ``PAIR`` layout; a box per player slot of
    each side in the ``SIDES`` layout, shaped by the league), one score box for two sides
    (``league.scores.read_entry``: the points, the result follows from them, or the result
    alone), a finishing position per side for three or more, the day and a note.

    Every name is looked up the same way, and the services check everything else; their
    errors are put back on these fields (``SERVICE_FIELDS``).
    """

    score = forms.CharField(max_length=40, widget=forms.TextInput(attrs={"size": 8}))
    played_on = forms.DateField(label=_("Played on"), widget=DATE_INPUT)
    neutral = forms.BooleanField(
        label=_("Neutral ground"),
        required=False,
        help_text=_("No home advantage for the first player."),
    )
    note = forms.CharField(label=_("Note"), required=False, max_length=1000)
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)
    confirmed = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(
        self,
        *args: Any,
        league: League,
        layout: str = PAIR,
        shape: tuple[int, int] | None = None,
        **kwargs: Any,
    ) -> None:
        self.league, self.layout = league, layout
        super().__init__(*args, **kwargs)
        score = self.fields["score"]
        score.label = score_label(league)
        score.help_text = score_help(league, layout)
        score.error_messages["required"] = (
            _("Give the result: %(help)s")
            if layout == PAIR
            else _("Give side A's result: %(help)s")
        ) % {"help": score.help_text}
        if layout == PAIR:
            self.n_sides, self.slots = 2, 1
            self.slot_names = [["player_a"], ["player_b"]]
            first, second = player_labels(league)
            self.fields["player_a"] = forms.CharField(
                label=first,
                widget=PlayerNameInput({"autofocus": True}),
                max_length=120,
            )
            self.fields["player_b"] = forms.CharField(
                label=second, widget=PlayerNameInput(), max_length=120
            )
            self.order_fields(["player_a", "score", "player_b"])
            if not league.has_home_ground:
                # Chess and other board games: no side plays at home.
                self.fields.pop("neutral")
        else:
            self.n_sides, self.slots = shape or side_form_shape(league)
            self.fields.pop("neutral")
            self._add_side_fields()
        if not self.is_bound:
            self.initial.setdefault("played_on", league_today(league))
            self.initial.setdefault("idempotency_key", new_key())

    def _add_side_fields(self) -> None:
        """The side slots (``league.forms.add_side_fields``); the score box says two sides'
        result ("Result (two sides)" when there may be more)."""
        self.slot_names = add_side_fields(self, self.n_sides, self.slots)
        self.fields[self.slot_names[0][0]].widget.attrs["autofocus"] = True
        if self.n_sides > 2:
            # Three or more sides take positions; the box is for a game of two sides only.
            self.fields["score"].required = False
            self.fields["score"].label = str(
                _("%(score)s (two sides)") % {"score": score_label(self.league)}
            )

    def side_rows(self) -> list[dict[str, Any]]:
        """For the template: each side's letter, slot fields and position field."""
        return [
            {
                "letter": side_label(x),
                "slots": [self[name] for name in names],
                "place": self[f"place_{x}"] if self.n_sides > 2 else None,
            }
            for x, names in enumerate(self.slot_names)
        ]

    def clean_score(self) -> tuple[Decimal | None, str]:
        text = self.cleaned_data["score"]
        if not text.strip() and not self.fields["score"].required:
            return None, ""
        try:
            return read_entry(text, records_points=self.league.records_points)
        except ValueError as error:
            raise forms.ValidationError(str(error), code="invalid_entry") from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        sides: list[list[Player]] = []
        for names in self.slot_names:
            side = []
            for name in names:
                typed = cleaned.get(name)
                if not isinstance(typed, str) or not typed.strip():
                    continue
                player = find_player(self.league, typed.strip())
                if player is None:
                    self.add_error(name, unknown_players_message(self.league, [typed.strip()]))
                else:
                    side.append(player)
                    cleaned[name] = player
            sides.append(side)
        while self.layout == SIDES and sides and not sides[-1]:
            sides.pop()
        cleaned["sides"] = sides
        cleaned["places"] = (
            [cleaned.get(f"place_{x}") for x in range(len(sides))] if len(sides) > 2 else None
        )
        if cleaned["places"] is not None and (cleaned.get("score") or (None,))[0] is not None:
            self.add_error(
                "score", _("The score is for two sides: give each side's finishing position.")
            )
        return cleaned

    def service_arguments(self) -> dict[str, Any]:
        """``league.services.record_match``'s keyword arguments."""
        data = self.cleaned_data
        score_a, points = data.get("score") or (None, "")
        arguments: dict[str, Any] = {"score_a": score_a, "points": points}
        if "played_on" in self.fields:
            arguments.update(
                played_at=data["played_on"],
                note=data["note"],
                idempotency_key=data.get("idempotency_key") or None,
            )
        if self.layout == PAIR:
            arguments.update(player_a=data["player_a"], player_b=data["player_b"])
            arguments["neutral"] = data.get("neutral", False)
        else:
            arguments.update(sides=data["sides"], places=data["places"])
        return arguments


class CorrectionForm(MatchEntryForm):
    """A recorded match's corrected result, of any sides, prefilled with it, and why it
    changes."""

    reason = forms.CharField(
        label=_("Reason"),
        max_length=1000,
        help_text=_("Shown in the event log."),
        widget=forms.TextInput(),
    )

    def __init__(self, *args: Any, league: League, match: Event, **kwargs: Any) -> None:
        self.match = match
        row = recorded_row(match)
        initial: dict[str, Any] = {
            "played_on": league_day(league, match.played_at),
            "note": match.note,
            "neutral": match.neutral,
        }
        if match.score_a is not None:
            initial["score"] = entry_text(
                match.score_a, match.points, records_points=league.records_points
            )
        shape = None
        if "sides" in row:
            sides, positions = row["sides"], row["places"]
            league_shape = side_form_shape(league)
            shape = (
                max(league_shape[0], len(sides)),
                max(league_shape[1], *(len(side) for side in sides)),
            )
            for x, side in enumerate(sides):
                initial.update({f"side_{x}_{j}": p.display_name for j, p in enumerate(side)})
                initial[f"place_{x}"] = positions[x]
        else:
            initial.update(player_a=row["player_a"].display_name)
            initial.update(player_b=row["player_b"].display_name)
        kwargs.setdefault("initial", initial)
        layout = SIDES if "sides" in row else PAIR
        super().__init__(*args, league=league, layout=layout, shape=shape, **kwargs)
        for field in self.fields.values():
            field.widget.attrs.pop("autofocus", None)
        self.fields["reason"].widget.attrs["autofocus"] = True

    def service_arguments(self) -> dict[str, Any]:
        arguments = super().service_arguments()
        # Points typed as free text before ("6-4 3-6 7-5") stay when the result is unchanged.
        if not arguments["points"] and arguments["score_a"] == self.match.score_a:
            arguments["points"] = self.match.points
        if "neutral" in arguments and "neutral" not in self.fields:
            # A page without the box (a sport without home grounds) keeps what was stored;
            # a chess game is never neutral (``league.validation.check_neutral_allowed``).
            arguments["neutral"] = self.match.neutral and not self.league.is_chess
        # An unchanged day keeps the recorded moment (which may not be noon).
        if arguments["played_at"] == league_day(self.league, self.match.played_at):
            arguments["played_at"] = self.match.played_at
        return arguments


class RoundForm(forms.Form):
    """The shared part of a round: its day, the submission key and the day's confirmation."""

    played_on = forms.DateField(label=_("Played on"), widget=DATE_INPUT)
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)
    confirmed = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        self.league = league
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("played_on", league_today(league))
            self.initial.setdefault("idempotency_key", new_key())


class RoundRowForm(MatchEntryForm):
    """One match of a round (the round gives the day and the key); a row left empty is
    ignored."""

    def __init__(self, *args: Any, league: League, layout: str = PAIR, **kwargs: Any) -> None:
        super().__init__(*args, league=league, layout=layout, **kwargs)
        for name in ("played_on", "note", "idempotency_key", "confirmed"):
            self.fields.pop(name)
        label = self.fields["score"].label
        self.fields["score"].widget.attrs.update({"aria-label": label, "size": 6})
        self.fields["score"].help_text = ""
        if layout == PAIR:
            self.fields["player_a"].widget.attrs.pop("autofocus", None)
            first, second = player_labels(league)
            self.fields["player_a"].widget.attrs["aria-label"] = first
            self.fields["player_b"].widget.attrs["aria-label"] = second
            if "neutral" in self.fields:
                self.fields["neutral"].widget.attrs["aria-label"] = _("Neutral ground")
                self.fields["neutral"].help_text = ""

    def has_changed(self) -> bool:
        if self.layout == PAIR:
            return super().has_changed()
        return any(
            (self.data.get(self.add_prefix(name)) or "").strip()
            for names in self.slot_names
            for name in names
        )


def round_rows(layout: str) -> tuple[int, int]:
    """How many rows a round in ``layout`` shows at first, and at most."""
    return (
        (ROUND_ROWS, MAX_ROUND_ROWS) if layout == PAIR else (TEAM_ROUND_ROWS, MAX_TEAM_ROUND_ROWS)
    )


def round_formset(
    data: Any, *, league: League, rows: int | None = None, layout: str = PAIR
) -> forms.BaseFormSet:
    """The round's rows: ``rows`` empty ones on a fresh page (the layout's usual number when
    not given), as many as posted otherwise."""
    usual, most = round_rows(layout)
    factory = forms.formset_factory(
        RoundRowForm,
        formset=BaseRoundFormSet,
        extra=max(1, min(usual if rows is None else rows, most)),
        max_num=most,
        absolute_max=most,
        validate_max=True,
    )
    formset = factory(data, league=league, prefix="results", form_kwargs={"layout": layout})
    if formset.forms:
        # The day defaults to today: the keyboard starts in the first row's first cell.
        first = formset.forms[0].slot_names[0][0]
        formset.forms[0].fields[first].widget.attrs["autofocus"] = True
    return formset


class VoidForm(forms.Form):
    """Why a match no longer counts."""

    reason = forms.CharField(
        label=_("Reason"),
        max_length=1000,
        help_text=_("Shown in the event log."),
        widget=forms.TextInput(attrs={"autofocus": True}),
    )
    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("idempotency_key", new_key())


class LogSearchForm(forms.Form):
    """The event log's filters: a player's name (part of it) and the day a match was played."""

    player = forms.CharField(
        label=_("Player"), required=False, max_length=120, widget=PlayerNameInput()
    )
    played_on = forms.DateField(required=False, label=_("Played on"), widget=DATE_INPUT)

    def clean_played_on(self) -> dt.date | None:
        day = self.cleaned_data.get("played_on")
        # The day's local midnights are computed: the calendar's last days have no next one.
        if day is not None and not FIRST_DAY <= day <= LAST_DAY:
            raise forms.ValidationError(
                _("Choose a day from %(first)s to %(last)s.")
                % {"first": FIRST_DAY.isoformat(), "last": LAST_DAY.isoformat()},
                code="out_of_range",
            )
        return day
