"""Settings for the test suite: the project's settings with development defaults.

The database and broker still come from ``DATABASE_URL`` / ``CELERY_BROKER_URL``, so the
same suite runs on the embedded default and on PostgreSQL + Redis. Tasks run eagerly
unless a test starts a real worker (see ``tests/worker``).
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "1")

from config.settings import *  # noqa: E402, F403

CELERY_TASK_ALWAYS_EAGER = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
