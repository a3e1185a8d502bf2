"""REST API of backtesting: start a sweep, read its progress and results, adopt the best run.

Every route is for the league's organisers (and superusers), like the backtesting pages:
a sweep is a tool for choosing the league's configuration. Included by ``api/urls.py``
(the API imports ``ratings``, never the other way);
errors use the API's one format (``api.errors``), ids in paths the API's ``id`` converter,
and every status a route can answer is declared in its schema.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import schema
from api.bodies import BodySerializer, FieldErrors, add_error
from api.fields import StrictBooleanField, StrictFloatField, StrictIntegerField
from api.pagination import StrictLimitOffsetPagination
from api.parsers import JSONBodyParser
from league.models import League
from ratings.backtest import services, tasks
from ratings.backtest.models import Sweep, SweepRun
from ratings.backtest.presentation import verdict_text, walk_forward_verdicts
from ratings.models import RatingConfig
from ratings.parameters import BY_NAME, UNITS


class IsLeagueOrganiser(BasePermission):
    """Only an organiser of the league named in the URL (or a superuser)."""

    message = gettext_lazy("Only an organiser of this league may run or read its backtests.")

    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        return view.league.is_organiser(request.user)


class SweepRunSerializer(serializers.ModelSerializer):
    class Meta:
        model = SweepRun
        fields = [
            "id",
            "position",
            "parameters",
            "status",
            "log_loss",
            "brier",
            "accuracy",
            "n_matches",
            "calibration",
            "constant_log_loss",
            "constant_brier",
            "constant_accuracy",
            "elo_log_loss",
            "elo_brier",
            "elo_accuracy",
            "elo_k",
            "glicko_log_loss",
            "glicko_brier",
            "glicko_accuracy",
            "glicko_c",
            "is_current",
            "is_default",
            "in_sample",
            "out_of_sample",
            "log_loss_low",
            "log_loss_high",
            "brier_low",
            "brier_high",
            "accuracy_low",
            "accuracy_high",
            "within_noise_of_best",
            "error",
            "elapsed",
        ]


class SweepSerializer(serializers.ModelSerializer):
    league = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    best_run = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    best_parameters = serializers.SerializerMethodField()
    current_run = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    default_run = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="The run of a new league's default parameters."
    )
    tuned_run = serializers.PrimaryKeyRelatedField(
        read_only=True,
        allow_null=True,
        help_text="Walk-forward: the run with the lowest in-sample log-loss (null without one).",
    )
    tuned_parameters = serializers.SerializerMethodField()
    verdict = serializers.SerializerMethodField(
        help_text="Whether the best run predicts meaningfully better than the current "
        "configuration on the whole history (in sample), in the request's language; empty "
        "until the sweep has finished."
    )
    walk_forward_verdicts = serializers.SerializerMethodField(
        help_text="Walk-forward: the tuned run against the default and the live configuration "
        "out of sample; better only when the 95 % interval of the log-loss difference lies "
        "wholly below zero, otherwise 'no better than … within the noise'."
    )
    runs = SweepRunSerializer(many=True, read_only=True)

    class Meta:
        model = Sweep
        fields = [
            "id",
            "league",
            "status",
            "created_at",
            "finished_at",
            "grid",
            "base",
            "through_seq",
            "runs_total",
            "runs_done",
            "error",
            "best_run",
            "best_parameters",
            "current_run",
            "verdict",
            "difference",
            "holdout",
            "holdout_from",
            "default_run",
            "tuned_run",
            "tuned_parameters",
            "walk_forward",
            "walk_forward_verdicts",
            "runs",
        ]

    def get_best_parameters(self, sweep: Sweep) -> dict[str, Any] | None:
        return sweep.best_run.parameters if sweep.best_run else None

    def get_tuned_parameters(self, sweep: Sweep) -> dict[str, Any] | None:
        return sweep.tuned_run.parameters if sweep.tuned_run else None

    def get_verdict(self, sweep: Sweep) -> str:
        return verdict_text(sweep)

    def get_walk_forward_verdicts(self, sweep: Sweep) -> list[str]:
        return walk_forward_verdicts(sweep)


def _grid_value(name: str, *, allow_null: bool = False) -> serializers.Field:
    """One value of a grid axis: a strict JSON number within the table's bounds.

    The bounds are the table's validators (the schema shows them; an out-of-range value
    gets the table's message), as in ``ratings.backtest.grid``, which checks them again.
    """
    parameter = BY_NAME[name]
    field_class = StrictIntegerField if parameter.kind is int else StrictFloatField
    return field_class(
        help_text=parameter.help_text, validators=parameter.validators(), allow_null=allow_null
    )


class SweepGridSerializer(BodySerializer):
    """The grid: lists of JSON numbers to combine (τ required).

    Strict like the rest of the API (``api.fields``): ``true`` or ``"0.5"`` is refused,
    not read as 1.0 or 0.5.
    """

    tau = serializers.ListField(child=_grid_value("tau"), min_length=1)
    initial_rd = serializers.ListField(child=_grid_value("initial_rd"), required=False)
    initial_volatility = serializers.ListField(
        child=_grid_value("initial_volatility"), required=False
    )
    advantage = serializers.ListField(child=_grid_value("advantage"), required=False)
    margin_scale = serializers.ListField(
        child=_grid_value("margin_scale", allow_null=True),
        required=False,
        help_text="Margin scales to compare; null for plain results (margins off).",
    )
    period_length = serializers.ListField(child=_grid_value("period_length"), required=False)
    period_unit = serializers.ChoiceField(choices=UNITS, required=False)
    update_mode = serializers.ListField(
        child=serializers.ChoiceField(choices=RatingConfig.UpdateMode.choices),
        required=False,
        help_text=BY_NAME["update_mode"].help,
    )
    holdout = StrictBooleanField(
        required=False,
        default=True,
        help_text="Walk-forward (default true): choose on the earlier periods, judge on the "
        "later ones; false scores the whole history in sample only.",
    )
    holdout_from = serializers.DateField(
        required=False,
        help_text="Walk-forward: the first day scored out of sample (its whole rating period "
        "is); default: the last 30 % of the rating periods with matches.",
    )
    holdout_share = StrictFloatField(
        required=False,
        min_value=0.01,
        max_value=0.99,
        help_text="Walk-forward: the share of the rating periods with matches scored out of "
        "sample when holdout_from is not given (default 0.3).",
    )

    def check(self, data: Any, attrs: dict[str, Any], errors: FieldErrors) -> None:
        if attrs.get("holdout") is False and ("holdout_from" in data or "holdout_share" in data):
            add_error(
                errors,
                "holdout",
                gettext("holdout is false: leave out holdout_from and holdout_share."),
            )
        if "holdout_from" in data and "holdout_share" in data:
            add_error(
                errors, "holdout_share", gettext("Give holdout_from or holdout_share, not both.")
            )

    def split(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The validated body as (grid, walk-forward arguments of ``tasks.start_sweep``)."""
        grid = dict(self.validated_data)
        holdout = {"holdout": grid.pop("holdout", True)}
        for key in ("holdout_from", "holdout_share"):
            if key in grid:
                holdout[key] = grid.pop(key)
        return grid, holdout


class AdoptedConfigSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    tau = serializers.FloatField()
    initial_rd = serializers.FloatField()
    initial_volatility = serializers.FloatField()
    period_unit = serializers.CharField()
    period_length = serializers.IntegerField()
    advantage = serializers.FloatField()
    margin_scale = serializers.FloatField(allow_null=True)
    update_mode = serializers.CharField()


SWEEP_ID = schema.id_path("sweep_id", "The sweep's id.")


class LeagueBacktestMixin:
    permission_classes = [IsLeagueOrganiser]
    parser_classes = [JSONBodyParser]
    pagination_class = StrictLimitOffsetPagination
    kwargs: dict[str, Any]

    @property
    def league(self) -> League:
        if not hasattr(self, "_league"):
            self._league = get_object_or_404(League, slug=self.kwargs["league_slug"])
        return self._league

    def sweeps(self) -> Any:
        return (
            Sweep.objects.filter(league=self.league)
            .select_related("league", "best_run", "tuned_run")
            .prefetch_related("runs")
        )


@extend_schema_view(
    get=extend_schema(
        responses={200: SweepSerializer(many=True), **schema.errors(400, 401, 403, 404)}
    )
)
class SweepListCreate(LeagueBacktestMixin, generics.ListCreateAPIView):
    """The league's sweeps, newest first; POST a grid to start one (202, runs on workers)."""

    serializer_class = SweepSerializer

    def get_queryset(self) -> Any:
        return self.sweeps()

    @extend_schema(
        request=SweepGridSerializer,
        responses={202: SweepSerializer, **schema.errors(400, 401, 403, 404, 413)},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        payload = SweepGridSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        # A service's ValidationError becomes a 400 in api.errors, like everywhere in the API.
        grid, holdout = payload.split()
        sweep = tasks.start_sweep(self.league, grid, requested_by=request.user, **holdout)
        sweep = self.sweeps().get(pk=sweep.pk)
        return Response(SweepSerializer(sweep).data, status=status.HTTP_202_ACCEPTED)


@extend_schema(
    parameters=[SWEEP_ID], responses={200: SweepSerializer, **schema.errors(401, 403, 404)}
)
class SweepDetail(LeagueBacktestMixin, generics.RetrieveAPIView):
    """One sweep: progress (runs_done of runs_total), every run's scores, the best run."""

    serializer_class = SweepSerializer
    lookup_url_kwarg = "sweep_id"

    def get_queryset(self) -> Any:
        return self.sweeps()


class SweepAdopt(LeagueBacktestMixin, APIView):
    """Create a configuration version from the best run; a full replay follows."""

    @extend_schema(
        request=None,
        parameters=[SWEEP_ID],
        responses={201: AdoptedConfigSerializer, **schema.errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, league_slug: str, sweep_id: int) -> Response:
        sweep = get_object_or_404(self.sweeps(), pk=sweep_id)
        config = services.adopt_best(sweep, user=request.user)
        return Response(AdoptedConfigSerializer(config).data, status=status.HTTP_201_CREATED)


urlpatterns = [
    path(
        "leagues/<slug:league_slug>/backtests/",
        SweepListCreate.as_view(),
        name="backtest-sweeps",
    ),
    path(
        "leagues/<slug:league_slug>/backtests/<id:sweep_id>/",
        SweepDetail.as_view(),
        name="backtest-sweep",
    ),
    path(
        "leagues/<slug:league_slug>/backtests/<id:sweep_id>/adopt/",
        SweepAdopt.as_view(),
        name="backtest-adopt",
    ),
]
