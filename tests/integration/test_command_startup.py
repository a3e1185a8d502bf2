"""The data commands start without the system checks: no views, no API, no DRF.

Each command runs in a fresh interpreter with ``-X importtime`` (every module imported is
listed on stderr) on an empty database, where it fails at its first query, after the point
where Django would have run the checks. ``manage.py check`` is the control: it does load the
URL configuration, so the test can tell the two apart.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
URL_MODULES = ("api.views", "rest_framework.views")
# What the apps' admin modules import (their shared scope, the forms): the admin is
# discovered when the URLs load or its checks run (config/admin.py), not at start-up.
ADMIN_MODULES = ("league.admin_scope", "league.forms")


def imported_modules(tmp_path: Path, *arguments: str) -> set[str]:
    env = {
        **os.environ,
        "DJANGO_DEBUG": "1",
        "LEAGUE_VAR_DIR": str(tmp_path),
        "CELERY_TASK_ALWAYS_EAGER": "0",
    }
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    result = subprocess.run(
        [sys.executable, "-X", "importtime", str(ROOT / "manage.py"), *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


@pytest.mark.parametrize(
    "arguments",
    [
        ("replay", "no-such-league", "--sync"),
        ("import_results", "no-such-league", "results.csv"),
        ("export_ratings", "no-such-league"),
        ("set_config", "no-such-league", "--tau", "0.4"),
        ("backtest", "no-such-league", "--tau", "0.4"),
    ],
    ids=lambda arguments: arguments[0],
)
def test_data_commands_skip_the_checks_and_the_url_configuration(tmp_path, arguments):
    modules = imported_modules(tmp_path, *arguments)
    assert "django.core.management.base" in modules  # the listing worked
    assert not modules & set(URL_MODULES)
    assert not modules & set(ADMIN_MODULES)


def test_the_check_command_loads_the_url_configuration(tmp_path):
    modules = imported_modules(tmp_path, "check")
    assert set(URL_MODULES) <= modules
    assert set(ADMIN_MODULES) <= modules


def test_the_admin_checks_discover_the_admin_before_the_urls_load(tmp_path):
    """The checks run in no fixed order: the admin's own must not find an empty registry."""
    script = (
        "import django; django.setup()\n"
        "from django.contrib import admin\n"
        "from league.models import Player\n"
        "assert Player not in admin.site._registry, 'discovered at start-up'\n"
        "from config.admin import check_discovered_admin\n"
        "check_discovered_admin(None)\n"
        "assert Player in admin.site._registry, 'the checks saw no admin'\n"
        "print('ok')\n"
    )
    env = {**os.environ, "DJANGO_DEBUG": "1", "LEAGUE_VAR_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
