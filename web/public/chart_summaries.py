"""What a chart shows, in one sentence: the text alternative a screen reader reads out.

A chart's canvas is an image to assistive technology; its caption (``<figcaption>``, tied to
the canvas by ``aria-describedby``) says what a sighted reader takes from it at a glance:
the span of time, where the line starts and ends, its highest and lowest points. The table
beside each chart still holds every figure. The selectors give numbers; these sentences
are the web layer's formatting of them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, Protocol

from django.utils.translation import gettext

from league.calendar import page_day_text as day_text


class _RatingPoint(Protocol):
    end: dt.date
    rating: float


class _RankPoint(Protocol):
    end: dt.date
    rank: int | None
    players: int


def _shown_day(day: dt.date, today: dt.date) -> str:
    # The current period ends after today: the chart draws its point today.
    return day_text(min(day, today))


def rating_chart_summary(
    name: str, history: Sequence[_RatingPoint], today: dt.date | None = None
) -> str:
    """The rating chart in words: first and last rating with their days, highest, lowest."""
    if not history:
        return ""
    today = today or dt.date.today()
    first, last = history[0], history[-1]
    if len(history) == 1:
        return gettext("%(name)s has one rated period: rating %(rating).0f on %(day)s.") % {
            "name": name,
            "rating": first.rating,
            "day": _shown_day(first.end, today),
        }
    # The first of equal highs (lows) is the one named: when the peak was first reached.
    high = max(history, key=lambda point: point.rating)
    low = min(history, key=lambda point: point.rating)
    return gettext(
        "%(name)s's rating over %(count)d periods played: %(first).0f on %(first_day)s, "
        "%(last).0f on %(last_day)s; highest %(high).0f on %(high_day)s, lowest %(low).0f "
        "on %(low_day)s."
    ) % {
        "name": name,
        "count": len(history),
        "first": first.rating,
        "first_day": _shown_day(first.end, today),
        "last": last.rating,
        "last_day": _shown_day(last.end, today),
        "high": high.rating,
        "high_day": _shown_day(high.end, today),
        "low": low.rating,
        "low_day": _shown_day(low.end, today),
    }


def rank_chart_summary(name: str, ranks: Sequence[_RankPoint], today: dt.date | None = None) -> str:
    """The rank chart in words: the rank now, the best rank and how often they were unranked."""
    if not ranks:
        return ""
    today = today or dt.date.today()
    ranked = [point for point in ranks if point.rank is not None]
    last = ranks[-1]
    if last.rank is None:
        now = gettext("not ranked on %(day)s") % {"day": _shown_day(last.end, today)}
    else:
        now = gettext("rank %(rank)d of %(players)d on %(day)s") % {
            "rank": last.rank,
            "players": last.players,
            "day": _shown_day(last.end, today),
        }
    if not ranked:
        return gettext("%(name)s over %(count)d periods: never ranked; %(now)s.") % {
            "name": name,
            "count": len(ranks),
            "now": now,
        }
    # The smallest rank number is the best; the first time it was reached is named.
    best = min(ranked, key=lambda point: point.rank or 0)
    return gettext(
        "%(name)s over %(count)d periods: %(now)s; best rank %(best)d of %(players)d on "
        "%(best_day)s; ranked in %(ranked)d of the %(count)d periods."
    ) % {
        "name": name,
        "count": len(ranks),
        "now": now,
        "best": best.rank,
        "players": best.players,
        "best_day": _shown_day(best.end, today),
        "ranked": len(ranked),
    }


def loss_chart_summary(chart: dict[str, Any]) -> str:
    """The backtest's log-loss chart in words: per setting, where log-loss is lowest and
    highest along τ, and the baselines it is drawn against.

    ``chart`` is ``ratings.backtest.presentation.chart_data``: ``series`` of (τ, log-loss)
    points per setting, ``baselines`` per setting.
    """
    sentences = []
    baselines = {line["label"]: line for line in chart.get("baselines", [])}
    for series in chart.get("series", []):
        points = series["points"]
        if not points:
            continue
        # The first of equal lows (highs) along τ is named.
        low = min(points, key=lambda point: point["y"])
        high = max(points, key=lambda point: point["y"])
        sentence = gettext(
            "%(setting)s: log-loss lowest at τ = %(low_tau)g (%(low).4f), highest at "
            "τ = %(high_tau)g (%(high).4f)"
        ) % {
            "setting": series["label"],
            "low_tau": low["x"],
            "low": low["y"],
            "high_tau": high["x"],
            "high": high["y"],
        }
        baseline = baselines.get(series["label"])
        if baseline and baseline.get("constant") is not None and baseline.get("elo") is not None:
            sentence += gettext("; the constant baseline %(constant).4f, Elo %(elo).4f") % {
                "constant": baseline["constant"],
                "elo": baseline["elo"],
            }
        sentences.append(sentence + ".")
    return " ".join(sentences)
