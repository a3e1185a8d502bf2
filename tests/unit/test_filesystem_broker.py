"""The embedded default's broker shows a worker whole messages only.

kombu's filesystem transport created each message's file in the queue folder and then wrote
into it: a worker polling the folder in between took an empty file and died decoding it.
"""

from __future__ import annotations

from queue import Empty

import pytest
from django.conf import settings
from kombu import Connection
from kombu.transport import filesystem
from kombu.utils.json import dumps

import config.filesystem_broker


@pytest.fixture
def channel(tmp_path):
    """A channel of the transport the embedded default's settings select, in ``tmp_path``."""
    queue = tmp_path / "queue"
    queue.mkdir()
    options = {
        "data_folder_in": str(queue),
        "data_folder_out": str(queue),
        "processed_folder": str(tmp_path / "processed"),
        "control_folder": str(tmp_path / "control"),
        "staging_folder": str(tmp_path / "staging"),
        "store_processed": False,
    }
    with Connection(
        "filesystem://localhost/",
        transport=getattr(settings, "CELERY_BROKER_TRANSPORT", None) or "filesystem"
        if settings.CELERY_BROKER_URL.startswith("filesystem://")
        else "config.filesystem_broker:Transport",
        transport_options=options,
    ) as connection:
        yield connection.default_channel


def test_a_poll_while_a_message_is_written_sees_nothing_then_the_whole_message(
    channel, monkeypatch
):
    polled = []

    def encode_while_polled(payload):
        # The worker's poll comes while the sender is writing the message.
        try:
            polled.append(channel._get("celery"))
        except Empty:
            polled.append(None)
        return dumps(payload)

    for module in (filesystem, config.filesystem_broker):
        monkeypatch.setattr(module, "dumps", encode_while_polled)
    channel._put("celery", {"task": "ratings.tasks.replay", "n": 1})

    assert polled == [None]
    assert channel._get("celery") == {"task": "ratings.tasks.replay", "n": 1}
    with pytest.raises(Empty):
        channel._get("celery")


def test_every_message_sent_is_received_once(channel):
    for number in range(5):
        channel._put("celery", {"n": number})
    assert sorted(channel._get("celery")["n"] for _ in range(5)) == [0, 1, 2, 3, 4]
    with pytest.raises(Empty):
        channel._get("celery")


def test_the_staging_folder_is_left_empty(channel, tmp_path):
    channel._put("celery", {"n": 1})
    assert list((tmp_path / "staging").iterdir()) == []
    assert len(list((tmp_path / "queue").iterdir())) == 1
