"""Every surface refuses an out-of-range rating parameter with the table's message.

The configuration page, the API and ``set_config`` all take a league's
rating parameters; each out-of-range value (the absurd ones they used to accept, and the
values just past each bound) is refused by all three with the message of
``ratings.parameters``, and nothing is stored.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from ratings import services
from ratings.models import RatingConfig, Replay
from ratings.parameters import BY_NAME, NUMBERS

VALID = {
    "tau": 0.5,
    "initial_rating": 1500,
    "initial_rd": 350,
    "initial_volatility": 0.06,
    "period_unit": "days",
    "period_length": 7,
    "period_anchor": "2024-01-01",
    "max_rd": 350,
    "volatility_ceiling": 0.1,
    "rating_floor": "",
    "advantage": 0,
    "margin_scale": "",
}
#: Values each parameter used to be taken with on some surface, beyond the bounds.
ABSURD = {
    "tau": [1e308],
    "initial_rating": [1e308, -1e308],
    "initial_rd": [1e308, -1e308],
    "initial_volatility": [1e10],
    "period_length": [3000000000],
    "max_rd": [1e308, -1e308],
    "volatility_ceiling": [1e10],
    "rating_floor": [1e308, -1e308],
    "advantage": [1e308, -1e308],
    "margin_scale": [1e308, -5],
}


def _just_outside(parameter) -> list[float | int]:
    """The nearest values past each bound (integers by 1, floats by a relative step)."""
    values = []
    step = 1 if parameter.kind is int else None
    if parameter.minimum is not None:
        low = parameter.minimum.value
        values.append(low - step if step else low - max(abs(low) * 1e-3, 1e-6))
    if parameter.maximum is not None:
        high = parameter.maximum.value
        values.append(high + step if step else high + max(abs(high) * 1e-3, 1e-6))
    if parameter.positive:
        values.append(0)
    return values


CASES = [
    pytest.param(parameter.name, value, id=f"{parameter.name}={value!r}")
    for parameter in NUMBERS
    for value in dict.fromkeys([*ABSURD[parameter.name], *_just_outside(parameter)])
]


def _as_text(value: float | int) -> str:
    return repr(value)


def _config_page(client, league, organiser, name, value) -> list[str]:
    client.force_login(organiser)
    data = {**{key: str(v) for key, v in VALID.items()}, name: _as_text(value), "note": ""}
    response = client.post(reverse("workspace:config", kwargs={"league_slug": league.slug}), data)
    assert response.status_code == 200
    return list(response.context["form"].errors.get(name, []))


def _api(client, league, organiser, name, value) -> list[str]:
    api = APIClient()
    api.force_authenticate(organiser)
    url = reverse("api:config-list", kwargs={"league_slug": league.slug})
    response = api.post(url, {name: value}, format="json")
    assert response.status_code == 400
    return list(response.json()["errors"].get(name, []))


def _set_config(client, league, organiser, name, value) -> list[str]:
    flag = "--period-days" if name == "period_length" else BY_NAME[name].flag
    with pytest.raises(CommandError) as refused:
        # --flag=VALUE: argparse would read a separate "-1e+308" as an option.
        call_command("set_config", league.slug, f"{flag}={_as_text(value)}", stdout=io.StringIO())
    prefix = f"{name}: "
    return [
        line[len(prefix) :] for line in str(refused.value).splitlines() if line.startswith(prefix)
    ]


SURFACES = {
    "config page": _config_page,
    "API": _api,
    "set_config": _set_config,
}


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize(("name", "value"), CASES)
def test_every_surface_refuses_an_out_of_range_value_with_the_tables_message(
    client, league, organiser, surface, name, value
):
    services.create_config(league)
    before = (list(RatingConfig.objects.values_list("pk", flat=True)), Replay.objects.count())
    expected = BY_NAME[name].problem(value)
    assert expected is not None

    messages = SURFACES[surface](client, league, organiser, name, value)

    assert expected in messages, messages
    after = (list(RatingConfig.objects.values_list("pk", flat=True)), Replay.objects.count())
    assert after == before


@pytest.mark.parametrize("parameter", NUMBERS, ids=lambda parameter: parameter.name)
def test_the_bounds_themselves_are_taken(client, league, organiser, parameter):
    """Each end of every range is a valid value: the bounds are inclusive where they say so."""
    services.create_config(league)
    api = APIClient()
    api.force_authenticate(organiser)
    url = reverse("api:config-list", kwargs={"league_slug": league.slug})
    ends = [bound for bound in (parameter.minimum, parameter.maximum) if bound is not None]
    for bound in ends:
        value = int(bound.value) if parameter.kind is int else bound.value
        body = {parameter.name: value}
        # Keep the engine's rules across parameters satisfied at the ends of the range.
        if parameter.name == "initial_rd":
            body["max_rd"] = max(value, 350.0)
        if parameter.name == "max_rd":
            body["initial_rd"] = min(value, 350.0)
        if parameter.name == "volatility_ceiling":
            body["initial_volatility"] = min(value, 0.06)
        if parameter.name == "rating_floor":
            body["initial_rating"] = max(value, 1500.0)
        response = api.post(url, body, format="json")
        assert response.status_code == 201, (body, response.json())


def test_every_surface_refuses_a_version_without_a_volatility_ceiling(client, league, organiser):
    """The volatility ceiling is required (issue 27): without one, τ = 8 blew the demo up."""
    services.create_config(league)
    before = RatingConfig.objects.count()
    client.force_login(organiser)
    data = {**{key: str(v) for key, v in VALID.items()}, "volatility_ceiling": "", "note": ""}
    page = client.post(reverse("workspace:config", kwargs={"league_slug": league.slug}), data)
    assert page.context["form"].errors["volatility_ceiling"] == [
        "The volatility ceiling is required."
    ]
    api = APIClient()
    api.force_authenticate(organiser)
    url = reverse("api:config-list", kwargs={"league_slug": league.slug})
    response = api.post(url, {"volatility_ceiling": None}, format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["volatility_ceiling"]
    with pytest.raises(CommandError, match="volatility-ceiling"):
        call_command("set_config", league.slug, "--volatility-ceiling=none", stdout=io.StringIO())
    assert RatingConfig.objects.count() == before
