"""kombu's filesystem broker transport, whose messages appear in the queue whole.

The embedded default's broker (``filesystem://``) is a folder: a sender writes each message
as a file in it, and a worker lists the folder every ``polling_interval`` seconds and takes
the oldest file of its queue. kombu 5.7 creates the file in the queue folder itself and then
writes the message into it. A worker listing the folder in between takes an empty (or half
written) file, fails to decode it, and exits ("Unrecoverable error: JSONDecodeError"); the
message is lost with it. With the worker's beat sending its sweeps into the same folder every
few seconds, a worker polling every 0.1 s met that within a minute of idling.

:class:`Channel` writes each message to a staging folder beside the queue (the same
filesystem) and moves it into the queue in one ``os.replace``, so that a listing sees the
whole message or nothing. Selected by ``CELERY_BROKER_TRANSPORT`` in ``config/settings.py``;
the staging folder is the transport option ``staging_folder``.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    """kombu's filesystem channel, publishing each message with one atomic rename."""

    @property
    def staging_folder(self) -> str:
        """Where messages are written before they enter the queue (created on first use)."""
        folder = self.transport_options.get("staging_folder") or os.path.join(
            os.path.dirname(os.path.abspath(self.data_folder_out)), "staging"
        )
        Path(folder).mkdir(parents=True, exist_ok=True)
        return folder

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        # kombu's name: its order (a millisecond clock, then a random id) is the queue's.
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        staged = os.path.join(self.staging_folder, name)
        try:
            with open(staged, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(staged, os.path.join(self.data_folder_out, name))
        except OSError as error:
            raise ChannelError(f"Cannot add file {name!r} to the queue folder") from error


class Transport(filesystem.Transport):
    """kombu's filesystem transport with :class:`Channel`."""

    Channel = Channel
