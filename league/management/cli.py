"""Helpers shared by the management commands: dates as arguments, errors as lines."""

from __future__ import annotations

import argparse
import datetime as dt

from django.core.exceptions import ValidationError


def iso_date(text: str) -> dt.date:
    """An argparse type: a YYYY-MM-DD date."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def validation_message(error: ValidationError) -> str:
    """A ``ValidationError`` as lines "field: message" for a command's output."""
    if hasattr(error, "error_dict"):
        return "\n".join(
            f"{field}: {message}" if field != "__all__" else message
            for field, messages in error.message_dict.items()
            for message in messages
        )
    return "\n".join(error.messages)
