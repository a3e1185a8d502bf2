"""Settings for the test suite: the project's settings with development defaults.

The database and broker still come from ``DATABASE_URL`` / ``CELERY_BROKER_URL``, so the
same suite runs on the embedded default and on PostgreSQL + Redis. Tasks run eagerly
unless a test starts a real worker (see ``tests/worker``).
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "1")

from config.settings import *  # noqa: F403

# A real worker started by tests/worker gets CELERY_TASK_ALWAYS_EAGER=0 from its environment.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=True)  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Lets league.testing lift the event store triggers, e.g. for the flush after transactional tests.
LEAGUE_ALLOW_EVENT_MUTATION_FOR_TESTS = True
