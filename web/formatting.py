"""How numbers are written on the pages: signed changes, probabilities, percentiles, ranges of
percents and rating periods.

A prediction is never certain, so a probability is never shown as "100 %" or "0 %": anything
that would round to 100 is "> 99 %", anything that would round to 0 is "< 1 %", everything
else is a whole percent rounded half up ("0.5 %" is "1 %", "99.5 %" is "> 99 %").

A percentile ("better than 83 % of ranked players") is a count, not a prediction: it is
rounded *down*, so the claim is never overstated, and may be 0 or 100.

The engine and the selectors return numbers; this module (and the templates' filters in
``web.templatetags``) turns them into text.
"""

from __future__ import annotations

import datetime as dt
import math
from numbers import Real
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy, ngettext

from engine.errors import InvalidParameterError
from web import locale_format

if TYPE_CHECKING:
    from engine.intervals import ConfidenceLevel
    from ratings.selectors.coverage import CoverageAtLevel
    from ratings.selectors.predictions import Prediction, SideCalibration
    from ratings.selectors.standings import RankingSummary

DASH = "\u2013"


def signed(value: float | None, places: int) -> tuple[str, str]:
    """A change as text with its CSS class: ("+12", "up"), ("-3", "down"), ("\u2013", "muted").

    A change that rounds to zero at ``places`` is shown as a plain zero, without a sign or a
    colour, so that "-0.0" never reads as a loss.
    """
    if value is None:
        return DASH, "muted"
    text = locale_format.signed_number(value, places)
    if not text.startswith(("+", "-")):
        return text, ""
    return text, "up" if value > 0 else "down"


def _fraction(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise InvalidParameterError(f"{name} must be a finite number, got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise InvalidParameterError(f"{name} must be between 0 and 1, got {value!r}")
    return float(value)


def probability_percent(p: float) -> int:
    """The whole percent shown for ``p``, kept in 1..99 (``"< 1"`` is 1, ``"> 99"`` is 99).

    Use :func:`format_probability` for the text; this is its number, for sorting or a bar.
    """
    # round half up; 100 p is exact enough here (p is a probability, not a count)
    whole = math.floor(_fraction("probability", p) * 100.0 + 0.5)
    return min(max(whole, 1), 99)


def format_probability(p: float, *, space: str = " ") -> str:
    """``p`` as a player reads it: ``"< 1 %"``, ``"2 %"`` … ``"99 %"``, ``"> 99 %"``.

    ``space`` goes between the number and ``%`` (``"\\u202f"`` for a narrow no-break space).
    """
    whole = math.floor(_fraction("probability", p) * 100.0 + 0.5)
    if whole >= 100:
        return f"> 99{space}%"
    if whole <= 0:
        return f"< 1{space}%"
    return f"{whole}{space}%"


#: Each tie-break's name as the tables' headers explain it (``league.tiebreaks.TIEBREAKS``
#: gives the article of the FIDE regulations; "RTG" is the season's rating at its end).
TIEBREAK_NAMES = {
    "DE": gettext_lazy("Direct encounter: points against the others still level"),
    "WIN": gettext_lazy("Number of wins, byes and forfeits won included"),
    "WON": gettext_lazy("Games won over the board"),
    "BPG": gettext_lazy("Games played with Black"),
    "BWG": gettext_lazy("Games won with Black"),
    "PS": gettext_lazy("Progressive score: the running scores added up"),
    "PS-C1": gettext_lazy("Progressive score without the first round"),
    "BH": gettext_lazy("Buchholz: the opponents' scores added up"),
    "BH-C1": gettext_lazy("Buchholz without the lowest opponent"),
    "BH-C2": gettext_lazy("Buchholz without the two lowest opponents"),
    "BH-M1": gettext_lazy("Median Buchholz: without the lowest and the highest opponent"),
    "SB": gettext_lazy("Sonneborn-Berger: beaten opponents' scores, half of those drawn"),
    "ARO": gettext_lazy("Average rating of opponents"),
    "ARO-C1": gettext_lazy("Average rating of opponents without the lowest"),
    "RTG": gettext_lazy("Rating at the end of the season"),
}


def format_chance(p: float, *, space: str = " ") -> str:
    """A forecast's chance: ``"0 %"`` and ``"100 %"`` when certain, else as
    :func:`format_probability` (so a small chance never reads as none)."""
    if _fraction("chance", p) == 0.0:
        return f"0{space}%"
    if p == 1.0:
        return f"100{space}%"
    return format_probability(p, space=space)


def format_tiebreak(value: float | None) -> str:
    """A tie-break value as the tables write it: halves as ½ (5½), quarters as ¼ and ¾,
    whole numbers plain, other values to two places; a dash for none."""
    if value is None:
        return DASH
    whole, part = divmod(abs(value), 1)
    sign = "-" if value < 0 else ""
    glyph = {0.0: "", 0.25: "¼", 0.5: "½", 0.75: "¾"}.get(round(part, 9))
    if glyph is None:
        return f"{value:.2f}"
    return f"{sign}{int(whole) if whole or not glyph else ''}{glyph}"


def format_percentile(fraction: float, *, space: str = " ") -> str:
    """A percentile fraction in ``[0, 1]`` as a whole percent rounded down: 0.8371 is "83 %".

    (``1e-9`` absorbs float error such as ``0.29 * 100 = 28.999…``; a share of fewer than a
    billion players is never that close to a whole percent otherwise.)
    """
    return f"{math.floor(_fraction('percentile', fraction) * 100.0 + 1e-9)}{space}%"


def format_percent_range(low: float, high: float, *, space: str = " ") -> str:
    """Two fractions as a range of whole percents: 0.7 and 0.8 are "70\u201380 %"."""
    return f"{low * 100:.0f}{DASH}{high * 100:.0f}{space}%"


def describe_periods(unit: str, length: int, anchor: dt.date) -> str:
    """A configuration's rating periods: "7 days from 01 Jan 2024", "1 calendar month from …".

    ``unit`` is ``RatingConfig.period_unit`` ("days" or "months").
    """
    if unit == "days":
        text = ngettext("%(n)s day from %(day)s", "%(n)s days from %(day)s", length)
    else:
        text = ngettext(
            "%(n)s calendar month from %(day)s", "%(n)s calendar months from %(day)s", length
        )
    return text % {"n": length, "day": locale_format.day(anchor)}


def prediction_texts(prediction: Prediction) -> dict[str, str]:
    """A prediction's probabilities as a player reads them (never "100 %"): ``expected``, and
    ``win``, ``draw`` and ``loss`` where the league has draws."""
    texts = {"expected": format_probability(prediction.expected_score)}
    if prediction.win is not None and prediction.draw is not None and prediction.loss is not None:
        texts.update(
            win=format_probability(prediction.win),
            draw=format_probability(prediction.draw),
            loss=format_probability(prediction.loss),
        )
    return texts


def side_calibration_tables(
    sides: tuple[SideCalibration, ...], *, chess: bool = False
) -> list[dict]:
    """The home and away sides' calibration as the head-to-head page shows it: per side an
    ``id``, a ``caption``, a ``summary`` sentence and ``rows`` of text cells by band of the
    side's expected score (``range``, ``games``, ``expected``, ``actual``, ``draws``). In a
    chess league (``chess``) the first-named side is White and the other Black."""
    captions = {
        "home": gettext("Home sides (named first, not on neutral ground)"),
        "away": gettext("Away sides (named second, not on neutral ground)"),
    }
    if chess:
        captions = {"home": gettext("White (named first)"), "away": gettext("Black")}
    tables = []
    for side in sides:
        template = (
            _chess_side_summary(side)
            if chess
            else {
                "home": ngettext(
                    "In %(games)d game not on neutral ground, home sides scored %(actual).3f on "
                    "average against an expected %(expected).3f.",
                    "In %(games)d games not on neutral ground, home sides scored %(actual).3f on "
                    "average against an expected %(expected).3f.",
                    side.games,
                ),
                "away": ngettext(
                    "In %(games)d game not on neutral ground, away sides scored %(actual).3f on "
                    "average against an expected %(expected).3f.",
                    "In %(games)d games not on neutral ground, away sides scored %(actual).3f on "
                    "average against an expected %(expected).3f.",
                    side.games,
                ),
            }[side.side]
        )
        tables.append(
            {
                "id": f"calibration-{side.side}",
                "caption": captions[side.side],
                "summary": template
                % {"games": side.games, "actual": side.mean_score, "expected": side.mean_expected},
                "rows": [
                    {
                        "range": format_percent_range(band.low, band.high),
                        "games": str(band.games),
                        "expected": f"{band.mean_expected:.3f}",
                        "actual": f"{band.mean_score:.3f}",
                        "draws": str(band.draws),
                    }
                    for band in side.bands
                ],
            }
        )
    return tables


def _chess_side_summary(side: SideCalibration) -> str:
    """The summary sentence of White's or Black's calibration in a chess league."""
    if side.side == "home":
        return ngettext(
            "In %(games)d game, White scored %(actual).3f on average against an expected "
            "%(expected).3f.",
            "In %(games)d games, White scored %(actual).3f on average against an expected "
            "%(expected).3f.",
            side.games,
        )
    return ngettext(
        "In %(games)d game, Black scored %(actual).3f on average against an expected "
        "%(expected).3f.",
        "In %(games)d games, Black scored %(actual).3f on average against an expected "
        "%(expected).3f.",
        side.games,
    )


def ranking_note(summary: RankingSummary) -> list[str]:
    """The hub's sentences on who the league's rules rank: how many, which rule keeps the
    others out (a player may fail more than one) and how many ranked ratings are provisional.
    """
    rules = summary.rules
    lines = [
        ngettext(
            "%(ranked)d of %(rated)d rated player is ranked.",
            "%(ranked)d of %(rated)d rated players are ranked.",
            summary.rated,
        )
        % {"ranked": summary.ranked, "rated": summary.rated}
    ]
    reasons = []
    if summary.above_rd and rules.max_rd is not None:
        reasons.append(
            ngettext(
                "%(count)d has an RD above %(limit).0f (the rule “largest RD”: a "
                "provisional rating)",
                "%(count)d have an RD above %(limit).0f (the rule “largest RD”: "
                "provisional ratings)",
                summary.above_rd,
            )
            % {"count": summary.above_rd, "limit": rules.max_rd}
        )
    if summary.too_few_games:
        reasons.append(
            ngettext(
                "%(count)d has fewer than %(games)d games (the rule “minimum games”)",
                "%(count)d have fewer than %(games)d games (the rule “minimum games”)",
                summary.too_few_games,
            )
            % {"count": summary.too_few_games, "games": rules.min_games}
        )
    if summary.inactive:
        reasons.append(
            ngettext(
                "%(count)d has no game in the last %(window)s (the activity window)",
                "%(count)d have no game in the last %(window)s (the activity window)",
                summary.inactive,
            )
            % {"count": summary.inactive, "window": rules.window}
        )
    if summary.withdrawn:
        reasons.append(
            ngettext(
                "%(count)d was withdrawn by the organisers",
                "%(count)d were withdrawn by the organisers",
                summary.withdrawn,
            )
            % {"count": summary.withdrawn}
        )
    if reasons:
        lines.append(
            ngettext(
                "Not ranked, %(count)d player: %(reasons)s.",
                "Not ranked, %(count)d players: %(reasons)s.",
                summary.separate,
            )
            % {"count": summary.separate, "reasons": "; ".join(reasons)}
        )
    if summary.provisional_ranked:
        lines.append(
            ngettext(
                "%(count)d ranked rating is provisional (RD above %(rd).0f), marked P.",
                "%(count)d ranked ratings are provisional (RD above %(rd).0f), marked P.",
                summary.provisional_ranked,
            )
            % {"count": summary.provisional_ranked, "rd": settings.PROVISIONAL_RD}
        )
    return lines


def format_coverage_percent(fraction: float) -> str:
    """A measured coverage (a fraction) to one decimal: 0.94123 is "94.1 %" ("94,1 %" in
    German)."""
    return locale_format.percent(_fraction("coverage", fraction), 1)


def coverage_texts(level: ConfidenceLevel, measured: CoverageAtLevel | None) -> dict[str, str]:
    """What is said beside an interval's level about its measured coverage.

    ``short`` goes beside a level picker ("measured coverage 94.1 % ± 0.5"), ``sentence`` on
    its own ("95 % intervals: measured coverage 94.1 % ± 0.5 on simulated leagues like this
    one") and ``detail`` says what was simulated; each says "not measured yet" without a
    measurement (then ``detail`` is empty).
    """
    label = locale_format.level_label(level)
    if measured is None:
        return {
            "short": gettext("coverage not measured yet"),
            "sentence": gettext("%(level)s intervals: coverage not measured yet.")
            % {"level": label},
            "detail": "",
        }
    numbers = {
        "level": label,
        "coverage": format_coverage_percent(measured.coverage),
        "error": locale_format.number(100 * measured.error, 1),
    }
    return {
        "short": gettext("measured coverage %(coverage)s ± %(error)s") % numbers,
        "sentence": gettext(
            "%(level)s intervals: measured coverage %(coverage)s ± %(error)s on simulated "
            "leagues like this one."
        )
        % numbers,
        "detail": gettext(
            "Measured in %(leagues)s simulated leagues of %(players)s players over "
            "%(periods)s rating periods, %(games)s games a player a period, whose true skills "
            "are known, rated with this configuration: the share of intervals that held the "
            "true skill; ± is its Monte Carlo standard error."
        )
        % {
            **numbers,
            "leagues": measured.leagues,
            "players": measured.players,
            "periods": measured.periods,
            "games": measured.games,
        },
    }
