"""The admin app, discovered when it is needed rather than at every start-up.

Django's stock ``AdminConfig`` imports every app's ``admin`` module in ``ready()``: the
admin classes, their forms and the CSV import views, in every process, including a
``manage.py replay --sync`` or a Celery worker that never serves a page. Here the
discovery happens where the admin is used: when the URL configuration loads
(``config/urls.py``) and when the admin's system checks run (``manage.py check``,
``runserver``, the test suite), so those checks still see every registered model.
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin import autodiscover
from django.contrib.admin.apps import SimpleAdminConfig
from django.contrib.admin.checks import check_admin_app, check_dependencies
from django.core import checks


class LazyAdminConfig(SimpleAdminConfig):
    """``django.contrib.admin`` without the discovery at start-up (see the module)."""

    def ready(self) -> None:
        checks.register(check_dependencies, checks.Tags.admin)
        checks.register(check_discovered_admin, checks.Tags.admin)


def check_discovered_admin(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The admin's own checks, after the apps' ``admin`` modules have registered their models
    (the checks run in no fixed order: the URL configuration may not have loaded yet)."""
    autodiscover()
    return check_admin_app(app_configs, **kwargs)
