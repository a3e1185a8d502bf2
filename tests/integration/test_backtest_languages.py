"""The backtest in German, French and Spanish: the verdicts worded from the sweep's stored
numbers in the reader's language (the stored record stays in the site's), the settings'
labels with the language's decimal comma, and the API's refusals following Accept-Language
(docs/languages.md)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from ratings.backtest import presentation, services
from ratings.backtest.models import Sweep
from tests.integration.test_backtest import small  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db

#: A finished sweep's verdict fields as ``judge`` leaves them (numbers only).
BEST_BETTER = {"compared": "best", "estimate": -0.0123, "low": -0.02, "high": -0.004}
WITHIN_NOISE = {"compared": "runner-up", "estimate": -0.001, "low": -0.003, "high": 0.002}


def _sweep(difference: dict) -> Sweep:
    """An unsaved finished sweep with a stored verdict and ``difference``."""
    sweep = Sweep(difference=difference, verdict="(stored in English)")
    sweep.best_run_id, sweep.current_run_id = 2, 1
    return sweep


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en-gb", "The best setting predicts meaningfully better than the current one: log-loss "
         "0.01230 lower (95 % interval: 0.02000 lower to 0.00400 lower, from resampling the "
         "rating periods)."),
        ("de", "Die beste Einstellung sagt deutlich besser voraus als die aktuelle: Log-Loss "
         "0,01230 niedriger (95-%-Intervall: 0,02000 niedriger bis 0,00400 niedriger, aus dem "
         "Neuziehen der Wertungsperioden)."),
        ("fr", "Le meilleur réglage prédit nettement mieux que l'actuel : log-loss inférieure de "
         "0,01230 (intervalle à 95 % : de 0,02000 plus bas à 0,00400 plus bas, par "
         "rééchantillonnage des périodes de cote)."),
    ],
)  # fmt: skip
def test_a_clear_verdict_in_each_language(language, expected):
    with translation.override(language):
        assert presentation.verdict_text(_sweep(BEST_BETTER)) == expected


def test_noise_is_called_noise_in_spanish_with_the_decimal_comma():
    with translation.override("es"):
        text = presentation.verdict_text(_sweep(WITHIN_NOISE))
    assert text.startswith("Ninguna diferencia significativa; conserve el valor actual.")
    assert "0,00100 por debajo del siguiente ajuste" in text
    assert "de 0,00300 menor a 0,00200 mayor" in text


def test_an_unjudged_sweep_has_no_verdict_and_the_record_stays_in_the_site_language():
    assert presentation.verdict_text(Sweep(verdict="", difference={})) == ""
    with translation.override("de"):
        stored = presentation.stored_verdict(_sweep(BEST_BETTER))
    assert stored.startswith("The best setting predicts meaningfully better")


def test_a_setting_label_in_german():
    parameters = {
        "period_unit": "days",
        "period_length": 7,
        "initial_rd": 350.0,
        "initial_volatility": 0.06,
        "advantage": 62.5,
        "margin_scale": None,
        "update_mode": "instant",
    }
    with translation.override("de"):
        label = presentation.setting_label(parameters)
    assert (
        label == "RD 350 · Volatilität 0,06 · 7 Tage · Heimvorteil 62,5 · sofortige Aktualisierung"
    )
    assert presentation.setting_label(parameters).startswith("RD 350 · volatility 0.06 · 7 days")


def test_a_finished_sweep_reads_in_german_on_the_page_and_in_the_api(
    small,  # noqa: F811
    organiser,
    client,
):
    sweep = services.run_sweep_sync(small, {"tau": [0.3, 0.7]})
    assert sweep.verdict  # the record, in English
    api = APIClient()
    api.force_authenticate(organiser)
    url = reverse("api:backtest-sweep", kwargs={"league_slug": small.slug, "sweep_id": sweep.pk})
    german = api.get(url, HTTP_ACCEPT_LANGUAGE="de").json()
    english = api.get(url, HTTP_ACCEPT_LANGUAGE="en").json()
    assert english["verdict"] == sweep.verdict
    assert german["verdict"] != english["verdict"]
    assert german["verdict"].split()[0] in {"Kein", "Die"}  # "Kein nennenswerter …" / "Die …"
    assert german["status"] == "complete"  # the machine value stays

    client.force_login(organiser)
    client.cookies["django_language"] = "de"
    page = client.get(reverse("workspace:backtest_sweep", args=[small.slug, sweep.pk]))
    text = page.content.decode()
    assert german["verdict"].replace("'", "&#x27;") in text
    assert "abgeschlossen" in text


def test_api_refusals_follow_accept_language(small, organiser, other_organiser):  # noqa: F811
    url = reverse("api:backtest-sweeps", kwargs={"league_slug": small.slug})
    stranger = APIClient()
    stranger.force_authenticate(other_organiser)
    refused = stranger.get(url, HTTP_ACCEPT_LANGUAGE="de")
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        "Nur die Turnierleitung dieser Liga darf ihre Backtests starten oder lesen."
    )

    api = APIClient()
    api.force_authenticate(organiser)
    body = {"tau": [0.5], "holdout": False, "holdout_share": 0.3}
    bad = api.post(url, body, format="json", HTTP_ACCEPT_LANGUAGE="de")
    assert bad.status_code == 400
    assert bad.json()["detail"] == "Ungültige Eingabe."
    assert bad.json()["errors"]["holdout"] == [
        "holdout ist false: lassen Sie holdout_from und holdout_share weg."
    ]
    grid = api.post(url, {"tau": [0.5], "update_mode": ["weekly"]}, format="json",
                    HTTP_ACCEPT_LANGUAGE="es")  # fmt: skip
    assert grid.status_code == 400, grid.json()
    assert not Sweep.objects.exists()
