"""Running a checkout's own command as that checkout's process (the benchmarks' ``--before``).

Celery's Django fix-up puts the working directory at the head of ``sys.path`` when the
Celery app is set up (``celery/fixups/django.py``), which every ``manage.py`` process does
through ``config``. A checkout's ``manage.py`` started in another checkout's directory
therefore imports its own settings and ``config`` but that other checkout's ``league``,
``ratings`` and ``engine``: an A/B comparison run that way times the same code twice. Each
contender runs in its own directory, with a data directory that does not depend on it.
"""

from __future__ import annotations

import os
from pathlib import Path


def environment(**overrides: str) -> dict[str, str]:
    """This process's environment with ``overrides``, ``LEAGUE_VAR_DIR`` made absolute
    (a relative one would be read in each checkout's own directory)."""
    child = {**os.environ, **overrides}
    var_dir = child.get("LEAGUE_VAR_DIR")
    if var_dir:
        child["LEAGUE_VAR_DIR"] = str(Path(var_dir).resolve())
    return child
