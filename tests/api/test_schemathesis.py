"""Schemathesis against the API's own OpenAPI schema, in process (WSGI).

Every operation of the API is exercised with generated valid and invalid input on a fixture
league with published standings: public reads anonymously, writes and organiser-only reads
(those whose schema declares 401) with an organiser's token. A sweep's id in the path is a
finished sweep of the league, so its body is checked too. Checks: no server error,
responses conform to the schema (status codes, content types, bodies), input the schema
calls invalid is never accepted, input it calls valid is never refused, and an operation
declared as needing credentials refuses a caller without them (while one declared open
needs none). A second pass sends every write and organiser-only read anonymously and as
another league's organiser: never anything but 401/403.

"Never refused" is exact for reads: every schema-valid read is answered (a well-formed id
of nobody in the league is a 404, like an unknown id in a path), but for the one pair of
parameters that exclude each other (``EXCLUSIVE``), a rule OpenAPI 3.0 cannot state. A
schema-valid write may still break a rule of the league that JSON Schema cannot state
either (a player against themselves, a day before the league's start or a deadline already
past, a configuration's bounds against each other, a key reused for another body): a 400
(or 422) naming the field, which its schema declares.

Examples are derandomized (``deterministic``) so a run is reproducible, and kept small so
the whole module runs in well under a minute.
"""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.config._checks import POSITIVE_DATA_ACCEPTANCE_EXPECTED_STATUSES
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from league import competitions
from league.models import Event, League
from ratings.backtest import services as backtest_services
from ratings.backtest.models import Sweep
from ratings.models import RatingConfig, Replay

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 20
SAFE = {"GET", "HEAD", "OPTIONS"}
METHODS = {"get", "post", "put", "patch", "delete"}
#: What a schema-valid write may be answered besides Schemathesis' defaults (see above).
WRITE_REFUSALS = ["400", "422"]
CONFIG = SchemathesisConfig.from_dict(
    {
        "operations": [
            {
                "include-method": sorted(m.upper() for m in METHODS - {"get"}),
                "checks": {
                    "positive_data_acceptance": {
                        "expected-statuses": [
                            *POSITIVE_DATA_ACCEPTANCE_EXPECTED_STATUSES,
                            *WRITE_REFUSALS,
                        ]
                    }
                },
            }
        ]
    }
)
#: Query parameters of a read that exclude each other (a 400 when both are given,
#: tests/api/test_standings_eligibility.py): valid examples give at most one of them.
EXCLUSIVE = {"/api/leagues/{league_slug}/standings/": ("period", "date")}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    ignored_auth,
]


def _schema_dict() -> dict:
    """The OpenAPI document exactly as ``/api/schema/?format=json`` serves it."""
    document = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(document))


SCHEMA = _schema_dict()
OPERATIONS = [
    pytest.param(method.upper(), path, id=f"{method.upper()} {path}")
    for path, item in SCHEMA["paths"].items()
    for method in item
    if method in METHODS
]


#: Reads for any signed-in caller about their own account, not an organiser's.
OWN_ACCOUNT_PATHS = {"/api/me/"}


def _for_organisers_only(method: str, path: str) -> bool:
    """Writes, and reads whose schema says an anonymous caller is refused (401), but for
    the caller's own account."""
    if path in OWN_ACCOUNT_PATHS:
        return False
    return method not in SAFE or "401" in SCHEMA["paths"][path][method.lower()]["responses"]


def _path_parameters(path: str, league: League, organiser) -> dict:
    """The league's slug, and a finished sweep or an event of it where the path names one."""
    parameters = {"league_slug": league.slug}
    if "{sweep_id}" in path:
        sweep = backtest_services.run_sweep_sync(
            league, {"tau": [0.3, 0.6]}, requested_by=organiser
        )
        parameters["sweep_id"] = sweep.pk
    if "{competition_slug}" in path:
        competition = competitions.create_competition(
            league, name="Club Swiss", planned_rounds=3, recorded_by=organiser
        )
        parameters["competition_slug"] = competition.slug
    return parameters


def _has_inputs_besides_the_path(operation) -> bool:
    definition = operation.definition.raw
    parameters = [*definition.get("parameters", [])]
    return "requestBody" in definition or any(p.get("in") != "path" for p in parameters)


def _run(
    operation, mode: GenerationMode, path_parameters: dict, headers: dict, checks: list
) -> None:
    strategy = operation.as_strategy(generation_mode=mode, path_parameters=path_parameters)
    exclusive = EXCLUSIVE.get(operation.path, ())
    if exclusive and mode == GenerationMode.POSITIVE:
        strategy = strategy.filter(
            lambda case: not all(name in (case.query or {}) for name in exclusive)
        )

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def exercise(case) -> None:
        case.call_and_validate(headers=headers, checks=checks)

    exercise()


@pytest.fixture
def api(rated):
    """The schema (as served) bound to the app, for the fixture league ``rated``.

    The WSGI handler closes the database connection after each request, which would end
    the test's transaction; like Django's test client, keep it open while the test runs.
    """
    loaded = schemathesis.openapi.from_dict(SCHEMA, config=CONFIG)
    loaded.app = get_wsgi_application()
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield loaded
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_the_schema_tested_is_the_one_served():
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    assert json.loads(response.content) == SCHEMA


def test_reads_anyone_may_call_are_declared_open_and_the_others_closed():
    declared = {
        (param.values[0], param.values[1]): {}
        in SCHEMA["paths"][param.values[1]][param.values[0].lower()]["security"]
        for param in OPERATIONS
    }
    open_ = sorted(op for op, is_open in declared.items() if is_open)
    # The caller's own account (/api/me/) is closed to anonymous callers without being an
    # organiser's operation.
    assert open_ == sorted(
        (method, path)
        for method, path in declared
        if not _for_organisers_only(method, path) and path not in OWN_ACCOUNT_PATHS
    )
    assert ("GET", "/api/me/") not in open_
    assert ("GET", "/api/leagues/{league_slug}/standings/") in open_
    assert ("GET", "/api/leagues/{league_slug}/head-to-head/") in open_


@pytest.mark.parametrize(("method", "path"), OPERATIONS)
def test_operation_conforms_to_the_schema(api, rated, organiser, method, path):
    operation = api[path][method]
    headers = {}
    if _for_organisers_only(method, path):
        token, _ = Token.objects.get_or_create(user=organiser)
        headers["Authorization"] = f"Token {token.key}"
    path_parameters = _path_parameters(path, rated, organiser)
    _run(operation, GenerationMode.POSITIVE, path_parameters, headers, CHECKS)
    if _has_inputs_besides_the_path(operation):
        try:
            _run(operation, GenerationMode.NEGATIVE, path_parameters, headers, CHECKS)
        except Unsatisfiable:
            pytest.fail(f"No invalid input could be generated for {method} {path}")


def _refused_with(expected: int):
    def check(ctx, response, case) -> bool | None:
        if response.status_code != expected:
            raise AssertionError(
                f"{case.method} {case.formatted_path} answered {response.status_code} to a "
                f"caller without the right to write (expected {expected})."
            )
        return None

    check.__name__ = f"refused_with_{expected}"
    return check


FOR_ORGANISERS = [param for param in OPERATIONS if _for_organisers_only(*param.values)]


def _counts() -> tuple[int, ...]:
    models = (Event, RatingConfig, Replay, Sweep)
    return tuple(model.objects.count() for model in models)


@pytest.mark.parametrize(("method", "path"), FOR_ORGANISERS)
@pytest.mark.parametrize("role", ["anonymous", "other_organiser"])
def test_organiser_operations_are_refused_without_the_right(
    api, rated, organiser, other_organiser, role, method, path
):
    headers, expected = {}, 401
    if role == "other_organiser":
        token, _ = Token.objects.get_or_create(user=other_organiser)
        headers, expected = {"Authorization": f"Token {token.key}"}, 403
    path_parameters = _path_parameters(path, rated, organiser)
    counts = _counts()
    operation = api[path][method]
    _run(operation, GenerationMode.POSITIVE, path_parameters, headers, [_refused_with(expected)])
    assert _counts() == counts
