"""REST API of what signed-in players do themselves: report results, answer reports, challenge.

Every route needs a signed-in caller (session or token, as the rest of the API). The write
services decide who may act (``league.services.reports``, ``ratings.challenges``): a
player acts only for their own player record, checked there for every entry path, so these
views pass the caller and the body through and render the answer. A refusal is a 400 naming
the field (``player``, ``report``, ``challenge``, …), as for an organiser's result.

``Idempotency-Key``: a report (``POST reports/``) and a challenge (``POST challenges/``) are
stored under the client's key scoped as ``player-report:<key>`` and ``player-challenge:<key>``,
so a retry returns the stored one. The answers (confirm, dispute, withdraw, reject, accept,
decline) take the header too, but need no key of their own: each settles a report or a
challenge once (a fixed key per report or challenge on the write side), so repeating one
returns the same body and stores nothing.

Included by ``api/urls.py``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api import idempotency, schema
from api.bodies import BodySerializer
from api.errors import fields_renamed
from api.fields import AwareDateTimeField, StrictCharField, StrictIntegerField
from api.permissions import LeaguePlayerOrOrganiser
from api.serializers import MAX_ID, RecordSideMatchSerializer
from api.views import LeagueScopedMixin
from league.models import Challenge, Report, ReportStatus
from league.player_accounts import players_of
from league.services import reports as report_services
from ratings import challenges as challenge_services

PLAYER_HELP = (
    "Which of your player records acts (its id). May be left out: your player in this league."
)


class ReportSerializer(serializers.Serializer):
    """One reported result and where it stands."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ReportStatus.choices)
    reporter = serializers.IntegerField(source="reporter_id", help_text="The reporting player.")
    sides = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Player ids per side, as reported.",
    )
    positions = serializers.SerializerMethodField(
        help_text="Finishing position per side (1 first)."
    )
    played_at = serializers.DateTimeField()
    points = serializers.CharField()
    note = serializers.CharField()
    neutral = serializers.BooleanField()
    match = serializers.IntegerField(
        source="match_id", allow_null=True, help_text="The recorded match, once confirmed."
    )
    created_at = serializers.DateTimeField()

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_positions(self, report: Report) -> list[int]:
        return [1 + sum(1 for other in report.places if other < p) for p in report.places]


class ChallengeSerializer(serializers.Serializer):
    """One challenge and where it stands."""

    id = serializers.IntegerField()
    status = serializers.CharField()
    challenger = serializers.IntegerField(source="challenger_id")
    challenged = serializers.IntegerField(source="challenged_id")
    respond_by = serializers.DateField(help_text="The last local day to accept or decline.")
    fixture = serializers.IntegerField(
        source="fixture_id", allow_null=True, help_text="The fixture, once accepted."
    )
    created_at = serializers.DateTimeField()


class SubmitReportSerializer(RecordSideMatchSerializer):
    """A result of your own to report: each side's player ids (``[[you], [them]]`` for a
    one-vs-one result), side A's ``score_a`` or a position per side, and when."""

    player = StrictIntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text=PLAYER_HELP
    )

    def check(self, data: Any, attrs: dict[str, Any], errors: Any) -> None:
        super().check(data, {k: v for k, v in attrs.items() if k != "player"}, errors)


class AnswerSerializer(BodySerializer):
    """Who answers (your player record) and, where it is needed, why."""

    player = StrictIntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text=PLAYER_HELP
    )
    reason = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=report_services.REASON_MAX,
        help_text="Required to dispute or reject; optional otherwise.",
    )


class OrganiserDecisionSerializer(BodySerializer):
    reason = StrictCharField(
        max_length=report_services.REASON_MAX, help_text="Why (required to reject)."
    )


class IssueChallengeSerializer(BodySerializer):
    challenged = StrictIntegerField(
        min_value=1, max_value=MAX_ID, help_text="The player you challenge (of this league)."
    )
    player = StrictIntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text=PLAYER_HELP
    )


class AcceptChallengeSerializer(BodySerializer):
    player = StrictIntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text=PLAYER_HELP
    )
    scheduled_at = AwareDateTimeField(
        required=False, help_text="When you will play (default: midday of the answer day)."
    )
    venue = StrictCharField(required=False, allow_blank=True, max_length=120)


class PlayerActionMixin(LeagueScopedMixin):
    """Routes for signed-in players (and organisers) of the league: reads too show only what
    concerns the caller; anyone else is refused with 403 (401 without credentials)."""

    permission_classes = [LeaguePlayerOrOrganiser]
    # Nothing here is public: every read depends on who asks.
    cache_reads = False

    def user_plays(self) -> bool:
        """Whether the caller holds a player of this league."""
        return players_of(self.request.user, self.get_league()).exists()

    def visible_reports(self) -> QuerySet[Report]:
        """Every report of the league for an organiser, else those naming the caller's
        players."""
        league = self.get_league()
        reports = Report.objects.filter(league=league)
        if self.user_is_organiser():
            return reports
        mine = set(players_of(self.request.user, league).values_list("pk", flat=True))
        ids = [r.pk for r in reports if mine & set(r.player_ids)]
        return reports.filter(pk__in=ids)

    def visible_challenges(self) -> QuerySet[Challenge]:
        league = self.get_league()
        challenges = Challenge.objects.filter(league=league)
        if self.user_is_organiser():
            return challenges
        mine = players_of(self.request.user, league)
        return challenges.filter(challenger__in=mine) | challenges.filter(challenged__in=mine)

    def body(self, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
        idempotency.client_key(self.request)  # a malformed header is a 400 on every route
        body = serializer_class(data=self.request.data, context=self.get_serializer_context())
        body.is_valid(raise_exception=True)
        return dict(body.validated_data)


ANSWER_ERRORS = schema.errors(400, 401, 403, 404, 413)
REPORT_ID = schema.id_path("report_id", "The report's id.")
CHALLENGE_ID = schema.id_path("challenge_id", "The challenge's id.")


class ReportListView(PlayerActionMixin, generics.GenericAPIView):
    serializer_class = ReportSerializer

    @extend_schema(
        tags=["reports"],
        operation_id="reports_list",
        summary="Reported results that concern you",
        description=(
            "Signed-in players: the reports naming one of your players; organisers: every "
            "report of the league. Newest first."
        ),
        responses={200: ReportSerializer(many=True), **schema.errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, league_slug: str) -> Response:
        page = self.paginate_queryset(self.visible_reports().order_by("-created_at", "-pk"))
        return self.get_paginated_response(ReportSerializer(page, many=True).data)

    @extend_schema(
        tags=["reports"],
        operation_id="reports_submit",
        summary="Report a result you played",
        description=(
            "Signed-in players, for their own player record, in a league whose organisers let "
            "players report. The result is checked as an organiser's would be; it counts once "
            "a player of another side (or an organiser) confirms it. ``Idempotency-Key`` "
            "works as for recording a result."
        ),
        parameters=[schema.IDEMPOTENCY_KEY],
        request=SubmitReportSerializer,
        responses={201: ReportSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
    )
    def post(self, request: Request, league_slug: str) -> Response:
        league = self.get_league()
        key = idempotency.client_key(request)
        body = SubmitReportSerializer(data=request.data, context=self.get_serializer_context())
        body.is_valid(raise_exception=True)
        kwargs = body.service_kwargs()
        player = kwargs.pop("player", None)
        with fields_renamed(body.field_names_as_sent()):
            report = report_services.submit_report(
                league,
                user=request.user,
                player=player,
                **kwargs,
                idempotency_key=idempotency.report_key(key),
            )
        return self.created(ReportSerializer(report).data, "api:report-detail", report_id=report.pk)


@extend_schema(
    tags=["reports"],
    parameters=[REPORT_ID],
    responses={200: ReportSerializer, **schema.errors(401, 403, 404)},
)
class ReportDetailView(PlayerActionMixin, generics.GenericAPIView):
    serializer_class = ReportSerializer

    def get(self, request: Request, league_slug: str, report_id: int) -> Response:
        """One report naming one of your players (any report, for an organiser)."""
        report = get_object_or_404(self.visible_reports(), pk=report_id)
        return Response(ReportSerializer(report).data)


def _answer_view(name: str, action: str, summary: str, description: str) -> type:
    """A ``POST reports/<id>/<action>/`` view calling the report service ``action``."""

    class View(PlayerActionMixin, generics.GenericAPIView):
        serializer_class = ReportSerializer

        @extend_schema(
            tags=["reports"],
            operation_id=f"reports_{action}",
            summary=summary,
            description=description,
            parameters=[schema.IDEMPOTENCY_KEY, REPORT_ID],
            request=OrganiserDecisionSerializer if action == "reject" else AnswerSerializer,
            responses={200: ReportSerializer, **ANSWER_ERRORS},
        )
        def post(self, request: Request, league_slug: str, report_id: int) -> Response:
            league = self.get_league()
            report = get_object_or_404(self.visible_reports(), pk=report_id)
            if action == "reject":
                data = self.body(OrganiserDecisionSerializer)
                outcome = report_services.reject_report(
                    league, report, user=request.user, reason=data["reason"]
                )
            else:
                data = self.body(AnswerSerializer)
                service = {
                    "confirm": report_services.confirm_report,
                    "dispute": report_services.dispute_report,
                    "withdraw": report_services.withdraw_report,
                }[action]
                kwargs: dict[str, Any] = {"player": data.get("player")}
                if action == "dispute" or data.get("reason"):
                    kwargs["reason"] = data.get("reason", "")
                if action == "confirm" and data.get("player") is None and self._organises():
                    kwargs = {"as_organiser": True, "reason": data.get("reason", "")}
                outcome = service(league, report, user=request.user, **kwargs)
            return Response(ReportSerializer(outcome.report).data, status=status.HTTP_200_OK)

        def _organises(self) -> bool:
            # An organiser who also plays in the league confirms as the player unless they
            # hold no player on another side: then they decide as an organiser.
            league = self.get_league()
            if not self.user_is_organiser():
                return False
            report = Report.objects.get(league=league, pk=self.kwargs["report_id"])
            mine = set(players_of(self.request.user, league).values_list("pk", flat=True))
            reporter_side = report.side_of(report.reporter_id)
            return not any(report.side_of(pid) not in (None, reporter_side) for pid in mine)

    View.__name__ = View.__qualname__ = name
    return View


ReportConfirmView = _answer_view(
    "ReportConfirmView",
    "confirm",
    "Confirm a reported result",
    "A player of another side than the reporter's confirms a pending report; an organiser "
    "(without a player on another side) confirms a pending or disputed one. The match is "
    "recorded. Confirming a confirmed report returns it unchanged.",
)
ReportDisputeView = _answer_view(
    "ReportDisputeView",
    "dispute",
    "Dispute a reported result",
    "A player of another side says a pending report is wrong (``reason`` required); the "
    "organisers decide.",
)
ReportWithdrawView = _answer_view(
    "ReportWithdrawView",
    "withdraw",
    "Withdraw your report",
    "The reporting player takes back a pending or disputed report.",
)
ReportRejectView = _answer_view(
    "ReportRejectView",
    "reject",
    "Reject a reported result",
    "Organisers only: a pending or disputed report never counts (``reason`` required).",
)


class ChallengeListView(PlayerActionMixin, generics.GenericAPIView):
    serializer_class = ChallengeSerializer

    @extend_schema(
        tags=["challenges"],
        operation_id="challenges_list",
        summary="Challenges that concern you",
        description="Your players' challenges, issued and received (every one, for organisers).",
        responses={200: ChallengeSerializer(many=True), **schema.errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, league_slug: str) -> Response:
        page = self.paginate_queryset(self.visible_challenges().order_by("-created_at", "-pk"))
        return self.get_paginated_response(ChallengeSerializer(page, many=True).data)

    @extend_schema(
        tags=["challenges"],
        operation_id="challenges_issue",
        summary="Challenge another player",
        description=(
            "In a league that uses challenges: your player challenges a ranked player within "
            "the league's number of places. ``Idempotency-Key`` makes a retry return the "
            "stored challenge."
        ),
        parameters=[schema.IDEMPOTENCY_KEY],
        request=IssueChallengeSerializer,
        responses={201: ChallengeSerializer, **schema.errors(400, 401, 403, 404, 413)},
    )
    def post(self, request: Request, league_slug: str) -> Response:
        key = idempotency.client_key(request)
        data = self.body(IssueChallengeSerializer)
        challenge = challenge_services.issue_challenge(
            self.get_league(),
            user=request.user,
            challenged=data["challenged"],
            player=data.get("player"),
            idempotency_key=idempotency.challenge_key(key),
        )
        return self.created(
            ChallengeSerializer(challenge).data, "api:challenge-detail", challenge_id=challenge.pk
        )


@extend_schema(
    tags=["challenges"],
    parameters=[CHALLENGE_ID],
    responses={200: ChallengeSerializer, **schema.errors(401, 403, 404)},
)
class ChallengeDetailView(PlayerActionMixin, generics.GenericAPIView):
    serializer_class = ChallengeSerializer

    def get(self, request: Request, league_slug: str, challenge_id: int) -> Response:
        """One challenge of one of your players."""
        challenge = get_object_or_404(self.visible_challenges(), pk=challenge_id)
        return Response(ChallengeSerializer(challenge).data)


@extend_schema(
    tags=["challenges"],
    summary="Accept a challenge",
    description=(
        "The challenged player accepts before the answer day: the challenge is scheduled as a "
        "fixture (challenger first). Accepting twice returns the same challenge."
    ),
    parameters=[schema.IDEMPOTENCY_KEY, CHALLENGE_ID],
    request=AcceptChallengeSerializer,
    responses={200: ChallengeSerializer, **ANSWER_ERRORS},
)
class ChallengeAcceptView(PlayerActionMixin, generics.GenericAPIView):
    serializer_class = ChallengeSerializer

    def post(self, request: Request, league_slug: str, challenge_id: int) -> Response:
        challenge = get_object_or_404(self.visible_challenges(), pk=challenge_id)
        data = self.body(AcceptChallengeSerializer)
        answer = challenge_services.accept_challenge(
            self.get_league(),
            challenge,
            user=request.user,
            player=data.get("player"),
            scheduled_at=data.get("scheduled_at"),
            venue=data.get("venue", ""),
        )
        return Response(ChallengeSerializer(answer.challenge).data)


@extend_schema(
    tags=["challenges"],
    summary="Decline a challenge",
    description="The challenged player declines before the answer day (a reason is optional).",
    parameters=[schema.IDEMPOTENCY_KEY, CHALLENGE_ID],
    request=AnswerSerializer,
    responses={200: ChallengeSerializer, **ANSWER_ERRORS},
)
class ChallengeDeclineView(PlayerActionMixin, generics.GenericAPIView):
    serializer_class = ChallengeSerializer

    def post(self, request: Request, league_slug: str, challenge_id: int) -> Response:
        challenge = get_object_or_404(self.visible_challenges(), pk=challenge_id)
        data = self.body(AnswerSerializer)
        answer = challenge_services.decline_challenge(
            self.get_league(),
            challenge,
            user=request.user,
            player=data.get("player"),
            reason=data.get("reason", ""),
        )
        return Response(ChallengeSerializer(answer.challenge).data)


league = "leagues/<slug:league_slug>/"
urlpatterns = [
    path(f"{league}reports/", ReportListView.as_view(), name="report-list"),
    path(f"{league}reports/<id:report_id>/", ReportDetailView.as_view(), name="report-detail"),
    path(
        f"{league}reports/<id:report_id>/confirm/",
        ReportConfirmView.as_view(),
        name="report-confirm",
    ),
    path(
        f"{league}reports/<id:report_id>/dispute/",
        ReportDisputeView.as_view(),
        name="report-dispute",
    ),
    path(
        f"{league}reports/<id:report_id>/withdraw/",
        ReportWithdrawView.as_view(),
        name="report-withdraw",
    ),
    path(
        f"{league}reports/<id:report_id>/reject/", ReportRejectView.as_view(), name="report-reject"
    ),
    path(f"{league}challenges/", ChallengeListView.as_view(), name="challenge-list"),
    path(
        f"{league}challenges/<id:challenge_id>/",
        ChallengeDetailView.as_view(),
        name="challenge-detail",
    ),
    path(
        f"{league}challenges/<id:challenge_id>/accept/",
        ChallengeAcceptView.as_view(),
        name="challenge-accept",
    ),
    path(
        f"{league}challenges/<id:challenge_id>/decline/",
        ChallengeDeclineView.as_view(),
        name="challenge-decline",
    ),
]
