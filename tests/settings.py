"""Settings for the test suite: the project's settings with development defaults.

The database and broker still come from ``DATABASE_URL`` / ``CELERY_BROKER_URL``, so the
same suite runs on the embedded default and on PostgreSQL + Redis. Tasks run eagerly
unless a test starts a real worker (see ``tests/worker``).
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "1")

from config.settings import *  # noqa: F403

# Every full replay on PostgreSQL takes the swap (the path of large leagues; the suite's
# leagues are small), here and in the real workers the tests start (the environment);
# tests/integration/test_projection_swap.py sets it back for the delete path.
REPLAY_SWAP_MIN_MATCHES = int(os.environ.setdefault("LEAGUE_REPLAY_SWAP_MIN_MATCHES", "0"))
# A real worker started by tests/worker gets CELERY_TASK_ALWAYS_EAGER=0 from its environment.
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=True)  # noqa: F405
# The suite's replays (eager) do not each run a coverage simulation; the tests of it
# (tests/integration/test_interval_coverage.py) switch it on.
RATINGS_MEASURE_COVERAGE = env_bool("LEAGUE_MEASURE_COVERAGE", default=False)  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Lets league.testing lift the event store triggers, e.g. for the flush after transactional tests.
LEAGUE_ALLOW_EVENT_MUTATION_FOR_TESTS = True
# The sign-in rate limit is off for the suite (tests sign in through the test client, which
# authenticates without a request, and hammer the admin); tests/functional/test_login_rate_limit.py
# turns it on.
AXES_ENABLED = False
# Throttling stays on with rates no test reaches (the Schemathesis and concurrency tests send
# thousands of requests); tests/api/test_throttling.py lowers them.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
}
