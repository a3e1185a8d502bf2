"""The event log's words for the facts about teams and club matches."""

from __future__ import annotations

from django.utils.translation import gettext, ngettext

from league.models import ClubMatch, Event, Player, Season, Team


class ClubNames:
    """The names the log's facts about teams name, read in three queries per page."""

    def __init__(self, details: list[dict]) -> None:
        team_ids = {d[key] for d in details for key in ("team", "home", "away") if d.get(key)}
        match_ids = {d["club_match"] for d in details if d.get("club_match")}
        player_ids = {pid for d in details for pid in d.get("players", [])}
        matches = ClubMatch.objects.filter(pk__in=match_ids).values_list("pk", "home_id", "away_id")
        self.match_teams = {pk: (home, away) for pk, home, away in matches}
        team_ids |= {team for pair in self.match_teams.values() for team in pair}
        self.teams = dict(Team.objects.filter(pk__in=team_ids).values_list("pk", "name"))
        self.players = dict(
            Player.objects.filter(pk__in=player_ids).values_list("pk", "display_name")
        )
        season_ids = {d["season"] for d in details if d.get("season")}
        self.seasons = dict(Season.objects.filter(pk__in=season_ids).values_list("pk", "name"))

    def team(self, team_id: int | None) -> str:
        return self.teams.get(team_id, "?") if team_id is not None else "?"

    def match(self, match_id: int | None) -> str:
        home, away = self.match_teams.get(match_id, (None, None))  # type: ignore[arg-type]
        return gettext("club match %(id)s (%(home)s v %(away)s)") % {
            "id": match_id,
            "home": self.team(home),
            "away": self.team(away),
        }


def _board_count(value: object) -> int:
    """A stored number of boards as the count that picks a message's plural form."""
    return value if isinstance(value, int) else 2


def _points(value: str) -> str:
    """Match points as stored ("2.0", "0.5") as written: 2, ½, 1½."""
    halves = round(float(value) * 2)
    whole, half = divmod(halves, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


def club_summary(kind: str, player: str | None, details: dict | None, names: ClubNames) -> str:
    """The words of a fact about a team or a club match in the log."""
    details = details or {}
    if kind == Event.Kind.TEAM_CREATED:
        return gettext("Team %(team)s created") % {"team": names.team(details.get("team"))}
    if kind == Event.Kind.ROSTER_PLAYER_ADDED:
        return gettext("%(player)s added to %(team)s's roster") % {
            "player": player,
            "team": names.team(details.get("team")),
        }
    if kind == Event.Kind.TEAM_CAPTAIN_SET:
        return gettext("%(player)s named captain of %(team)s") % {
            "player": player,
            "team": names.team(details.get("team")),
        }
    if kind == Event.Kind.CLUB_SEASON_SET:
        points = "/".join(_points(value) for value in details.get("points", []))
        return ngettext(
            "Club matches of %(season)s set to %(boards)s board, match points %(points)s",
            "Club matches of %(season)s set to %(boards)s boards, match points %(points)s",
            _board_count(details.get("boards")),
        ) % {
            "season": names.seasons.get(details.get("season"), "?"),
            "boards": details.get("boards"),
            "points": points,
        }
    match = names.match(details.get("club_match"))
    if kind == Event.Kind.CLUB_MATCH_SCHEDULED:
        return ngettext(
            "%(match)s scheduled over %(boards)s board",
            "%(match)s scheduled over %(boards)s boards",
            _board_count(details.get("boards")),
        ) % {
            "match": match[:1].upper() + match[1:],
            "boards": details.get("boards"),
        }
    if kind == Event.Kind.BOARD_ORDER_SUBMITTED:
        order = ", ".join(
            f"{number}. {names.players.get(pid, '?')}"
            for number, pid in enumerate(details.get("players", []), start=1)
        )
        words = {"team": names.team(details.get("team")), "match": match, "order": order}
        if details.get("by") == "captain":
            return gettext("%(team)s's board order for %(match)s, from its captain: %(order)s") % (
                words
            )
        return gettext("%(team)s's board order for %(match)s: %(order)s") % words
    if kind == Event.Kind.CLUB_MATCH_RECORDED:
        return gettext("Result of %(match)s recorded: %(boards)s board games") % {
            "match": match,
            "boards": len(details.get("games", [])),
        }
    return gettext("Result of %(match)s voided, with its board games") % {"match": match}
