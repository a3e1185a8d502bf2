"""Pairing generators: round robins (Berger tables), Swiss rounds and ladder challenges.

Pure functions over plain values (player ids, scores, ranks, who played whom); no Django, no
database. The organiser pages (``web.workspace``) feed them the ratings and show each
generated round with its predictions before it is published as fixtures. The rules are in
``PAIRINGS.md`` beside this file.
"""

from pairings.ladder import LadderPlayer, ladder_round
from pairings.round_robin import Pairing, Round, round_robin
from pairings.swiss import SwissPlayer, swiss_round

__all__ = [
    "LadderPlayer",
    "Pairing",
    "Round",
    "SwissPlayer",
    "ladder_round",
    "round_robin",
    "swiss_round",
]
