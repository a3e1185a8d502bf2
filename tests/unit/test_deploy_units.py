"""The systemd units of deploy/systemd restart what stops and run the project's commands."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
#: Each unit and the command line its ExecStart must begin with (after the program's path).
COMMANDS = {
    "league-web.service": ("gunicorn", ["config.wsgi"]),
    "league-worker@.service": ("celery", ["-A", "config", "worker"]),
    "league-beat.service": ("celery", ["-A", "config", "beat"]),
}


def read_unit(name: str) -> configparser.ConfigParser:
    unit = configparser.ConfigParser(interpolation=None, strict=True)
    unit.optionxform = str  # systemd's keys are case-sensitive
    unit.read_string((UNITS / name).read_text())
    return unit


def test_the_shipped_units_are_the_three_processes():
    assert sorted(path.name for path in UNITS.glob("*.service")) == sorted(COMMANDS)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_unit_restarts_its_process_whenever_it_stops_and_never_gives_up(name):
    unit = read_unit(name)

    assert unit["Service"]["Restart"] == "always"
    assert 0 < float(unit["Service"]["RestartSec"]) <= 5
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"
    assert unit["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_unit_runs_the_project_command_from_the_checkout_with_its_environment(name):
    service = read_unit(name)["Service"]
    program, arguments = COMMANDS[name]
    command = shlex.split(service["ExecStart"])
    home = Path(service["WorkingDirectory"])

    assert command[0] == str(home / ".venv" / "bin" / program)
    assert command[1 : 1 + len(arguments)] == arguments
    assert service["EnvironmentFile"] == "/etc/league/league.env"
    assert service["User"] == "league"


def test_the_example_environment_names_what_production_needs():
    names = {
        line.split("=", 1)[0]
        for line in (ROOT / "deploy" / "league.env.example").read_text().splitlines()
        if line and not line.startswith("#")
    }

    assert {
        "DJANGO_SECRET_KEY",
        "DJANGO_ALLOWED_HOSTS",
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "LEAGUE_CACHE_URL",
    } <= names
