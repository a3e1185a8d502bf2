"""A Redis cache the site can do without: while Redis is unreachable, this process's memory.

Everything the site caches is an optimisation or a soft limit: rendered public pages (keyed by
the state they show), the API throttle's counters, computed prediction models, the claims that
space out re-sends of a stranded replay. None of it may take a page, an API call or a result
down with it. Django's ``RedisCache`` raises ``ConnectionError`` on every call while Redis is
away, so with the cache on the broker's Redis a broker outage became a site outage.

:class:`OptionalRedisCache` is ``RedisCache`` that, when a call fails with a Redis error, answers
it from a local-memory cache of this process instead, and keeps doing so for
``settings.CACHE_RETRY_SECONDS`` before it tries Redis again. So, during an outage:

- pages render and are cached per process, as without ``LEAGUE_CACHE_URL``;
- the API throttle counts per process: each web process allows the configured rate on its
  own, so the limit is looser (by the number of processes) but never off, and no request is
  refused or failed for want of a counter;
- writes are stored as ever (the cache holds nothing a write needs).

The log says it once per outage and process (a warning naming the error), and once more when
Redis answers again; the local entries are then dropped, and Redis's (which may have missed
this process's writes meanwhile, all of them optimisations) are used again.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

#: Entries the local stand-in keeps per cache (a rendered page is about 50 KB).
FALLBACK_MAX_ENTRIES = 500


@dataclass
class _Health:
    """Whether one Redis server answers, shared by every thread of the process."""

    down: bool = False
    retry_at: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


_HEALTH: dict[str, _Health] = {}
_HEALTH_LOCK = threading.Lock()


def _health_of(server: str) -> _Health:
    with _HEALTH_LOCK:
        return _HEALTH.setdefault(server, _Health())


class OptionalRedisCache(RedisCache):
    """``RedisCache`` backed by this process's memory while Redis cannot be reached."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._server_name = server
        self._health = _health_of(server)
        self._fallback = LocMemCache(
            f"optional-redis:{server}:{self.key_prefix}",
            {
                "TIMEOUT": params.get("TIMEOUT", 300),
                "KEY_PREFIX": self.key_prefix,
                "VERSION": self.version,
                "OPTIONS": {"MAX_ENTRIES": FALLBACK_MAX_ENTRIES},
            },
        )

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        health = self._health
        if health.down and time.monotonic() < health.retry_at:
            return getattr(self._fallback, method)(*args, **kwargs)
        try:
            result = getattr(RedisCache, method)(self, *args, **kwargs)
        except RedisError as error:
            self._went_down(error)
            return getattr(self._fallback, method)(*args, **kwargs)
        if health.down:
            self._came_back()
        return result

    def _went_down(self, error: RedisError) -> None:
        health = self._health
        with health.lock:
            health.retry_at = time.monotonic() + settings.CACHE_RETRY_SECONDS
            if health.down:
                return
            health.down = True
        logger.warning(
            "The cache at %s cannot be reached (%s: %s): this process caches in its own memory "
            "until it answers again (tried every %s s)",
            self._redacted_server(),
            type(error).__name__,
            error,
            settings.CACHE_RETRY_SECONDS,
        )

    def _came_back(self) -> None:
        health = self._health
        with health.lock:
            if not health.down:
                return
            health.down = False
        self._fallback.clear()
        logger.warning("The cache at %s answers again", self._redacted_server())

    def _redacted_server(self) -> str:
        """The server's address without a password."""
        scheme, sep, rest = self._server_name.partition("://")
        return f"{scheme}{sep}{rest.rpartition('@')[2]}" if sep else self._server_name

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        return self._call("add", key, value, timeout, version=version)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._call("get", key, default, version=version)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._call("set", key, value, timeout, version=version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._call("touch", key, timeout, version=version)

    def delete(self, key: Any, version: Any = None) -> bool:
        return self._call("delete", key, version=version)

    def get_many(self, keys: Any, version: Any = None) -> dict[Any, Any]:
        return self._call("get_many", keys, version=version)

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._call("has_key", key, version=version)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        return self._call("incr", key, delta, version=version)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> list[Any]:
        return self._call("set_many", data, timeout, version=version)

    def delete_many(self, keys: Any, version: Any = None) -> None:
        self._call("delete_many", keys, version=version)

    def clear(self) -> None:
        self._call("clear")
