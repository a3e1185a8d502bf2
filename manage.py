#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import gc
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    finally:
        # The interpreter's finalisation runs full garbage collections over every object the
        # process made: 0.3-0.6 s after any command (django.setup() alone leaves 82,000
        # objects), which a user of replay --sync or import_results waits for. The process
        # is about to end and its memory with it: frozen objects are skipped by those
        # collections (bench/bench_replay_floor.py; docs/benchmarks.md).
        gc.freeze()


if __name__ == "__main__":
    main()
