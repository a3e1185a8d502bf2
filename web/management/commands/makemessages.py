"""``makemessages`` for this project: Django's, over the converted sources only.

The files listed in ``locale/UNCONVERTED.txt`` (templates, Python modules and scripts whose
strings are not translated yet) are left out of the catalogues, so that every entry of a
catalogue is one a translator has to translate now and ``bin/check-translations`` can ask
for all of them. Converting a file is taking it off that list and running this again.
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management.commands import makemessages

from web.translation_check import unconverted

#: Never sources of the site's strings: tests, benchmarks, collected or vendored files.
NOT_SOURCES = ("tests/*", "bench/*", "var*", "staticfiles/*", "static/vendor/*", "deploy/*")


class Command(makemessages.Command):
    help = makemessages.Command.help + " Files in locale/UNCONVERTED.txt are left out."

    def handle(self, *args: Any, **options: Any) -> None:
        options["ignore_patterns"] = [*options.get("ignore_patterns", []), *NOT_SOURCES]
        super().handle(*args, **options)

    def find_files(self, root: str) -> list[Any]:
        left_out = set(unconverted())
        base = str(settings.BASE_DIR)
        return [
            found
            for found in super().find_files(root)
            if os.path.relpath(os.path.abspath(found.path), base) not in left_out
        ]
