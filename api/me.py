"""The signed-in caller's own account: ``GET /api/me/`` (by session or API token).

It names the account and the player records it holds in every league (``league.player_
accounts``), so that a player's app knows for whom it may act; anonymous callers get 401.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import schema
from league.models import League, Player
from league.player_accounts import players_of
from league.privacy import hides_own_rating


class MyPlayerSerializer(serializers.ModelSerializer):
    """A player record the caller holds, with its league's slug."""

    league = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Player
        fields = ["id", "league", "slug", "display_name", "active"]
        read_only_fields = fields


class MeSerializer(serializers.Serializer):
    """The caller's account: name, the leagues it organises, the players it holds."""

    username = serializers.CharField()
    organises = serializers.ListField(child=serializers.SlugField())
    hide_own_rating = serializers.BooleanField(
        help_text="The caller chose not to see their own rating (clients should honour it)."
    )
    players = MyPlayerSerializer(many=True)


@extend_schema(tags=["accounts"], responses={200: MeSerializer, **schema.errors(401)})
class MeView(APIView):
    """The signed-in caller's account and the player records it holds."""

    permission_classes = [IsAuthenticated]

    def get(self, request: Request) -> Response:
        user: Any = request.user
        body = {
            "username": user.get_username(),
            "organises": sorted(League.objects.organised_by(user).values_list("slug", flat=True)),
            "hide_own_rating": hides_own_rating(user),
            "players": list(players_of(user)),
        }
        return Response(MeSerializer(body).data)
