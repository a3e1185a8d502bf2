"""The Celery application, configured from Django settings (``CELERY_*``)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Celery's Django fix-up runs every system check when a worker starts, and with them loads
# the URL configuration, every view, DRF and the schema generator (about 0.6 s of start-up)
# that a worker never uses. The checks run in CI (``manage.py check --deploy``), in the web
# server and in the tests.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("league")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
