"""Where pylti1p3 keeps a login's state and nonce, and the tool its deep-linking launches and
the platforms' cached key sets: pylti1p3's ``LaunchDataStorage`` interface, in this process,
so nothing depends on a session middleware (pylti1p3's Flask adapter uses Flask's session).

One process only: with several server processes, a login answered by one and a launch
answered by another would not find their state. They would need a shared store (a
``ConsumableStorage`` over Redis or the database) passed to ``LtiTool`` instead."""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.request import Request as PyltiRequest


class ConsumableStorage(LaunchDataStorage[Any]):
    """pylti1p3's storage interface plus the two steps a launch needs to be accepted once:
    ``pop_value`` (read and remove atomically) and ``delete_value``. A shared store for several
    server processes implements them (and pylti1p3's four) over Redis or the database."""

    def pop_value(self, key: str) -> Any:
        raise NotImplementedError

    def delete_value(self, key: str) -> None:
        raise NotImplementedError


class MemoryLaunchDataStorage(ConsumableStorage):
    """A thread-safe, bounded, expiring key-value store in this process.

    Full, it drops expired entries first, then the oldest: a flood of logins can push out
    pending states (those launches fail and are retried) but never grows memory."""

    def __init__(self, max_entries: int = 20_000, default_ttl: int = 600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._max, self._ttl, self._clock = max_entries, default_ttl, clock
        self._entries: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._last_sweep = 0.0

    def set_request(self, request: PyltiRequest) -> None:
        pass  # one store serves every request at once: nothing of a request may be kept on it

    def get_session_cookie_name(self) -> None:
        # No session cookie: every key (state, nonce, launch id) is random and unguessable
        # already, and a second cross-site cookie is one more to lose in an iframe.
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        now = self._clock()
        with self._lock:
            self._entries.pop(self._prepare_key(key), None)
            if len(self._entries) >= self._max:
                self._make_room(now)
            self._entries[self._prepare_key(key)] = (now + (exp if exp else self._ttl), value)

    def _make_room(self, now: float) -> None:
        if now - self._last_sweep >= 1.0:  # a full sweep at most once a second under a flood
            self._last_sweep = now
            for k in [k for k, (expires, _) in self._entries.items() if expires <= now]:
                del self._entries[k]
        while len(self._entries) >= self._max:
            self._entries.popitem(last=False)

    def _live(self, key: str, pop: bool) -> Any:
        key = self._prepare_key(key)
        with self._lock:
            item = self._entries.pop(key, None) if pop else self._entries.get(key)
            if item is None:
                return None
            if item[0] <= self._clock():
                self._entries.pop(key, None)
                return None
            return item[1]

    def get_value(self, key: str) -> Any:
        return self._live(key, pop=False)

    def check_value(self, key: str) -> bool:
        return self._live(key, pop=False) is not None

    def pop_value(self, key: str) -> Any:
        """The value, removed in the same step: of two concurrent launches with one state, one wins."""
        return self._live(key, pop=True)

    def delete_value(self, key: str) -> None:
        with self._lock:
            self._entries.pop(self._prepare_key(key), None)

    def __len__(self) -> int:
        return len(self._entries)
