"""The signed-in viewer's own player when they chose not to see their own rating.

``league.privacy`` stores the choice; the public pages that show ratings (leaderboard,
player page, versus, season table, version comparison) ask here whose numbers to leave
out. Only a signed-in viewer can have a hidden player, and signed-in requests are never
served from nor stored in the shared page cache (``web.public.page_cache``), so the hidden
variant of a page is only ever seen by the person who asked for it.
"""

from __future__ import annotations

from django.http import HttpRequest

from league.models import League, Player
from league.player_accounts import player_of
from league.privacy import hides_own_rating


def hidden_player(request: HttpRequest, league: League) -> Player | None:
    """The viewer's own player in ``league`` when they hide their own rating, else None."""
    if not hides_own_rating(request.user):
        return None
    return player_of(request.user, league)
