"""Path converters for the API's URLs."""

from django.urls import register_converter
from django.urls.converters import IntConverter

#: Largest id a URL may carry: 18 digits always fit the database's 64-bit integers.
MAX_ID = 10**18 - 1


class IdConverter(IntConverter):
    """A database id or version number: 1 to 18 digits (longer never matches: a 404)."""

    regex = "[0-9]{1,18}"


# Registered here, on import, so that every module that routes with ``<id:...>`` (the API's
# and the backtests' URLs) gets it by importing this module, whatever is imported first.
register_converter(IdConverter, "id")
