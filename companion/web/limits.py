"""Per-client limits: a small in-memory token bucket per remote address.

Table codes are short so people can type them; a code look-up that finds no
table costs a token, so nobody can find a table by trying codes one after the
other. Tokens come back slowly; a client with none left is refused every
look-up (found or not) until one has come back.
"""

from __future__ import annotations

import threading
import time


def _now() -> float:
    """The buckets' clock (tests move it by hand)."""
    return time.monotonic()


class TokenBucket:
    """``capacity`` tokens per key, ``rate`` tokens back per second."""

    def __init__(self, capacity: float, rate: float, max_keys: int = 10_000) -> None:
        self.capacity = float(capacity)
        self.rate = float(rate)
        self.max_keys = max_keys
        self._lock = threading.Lock()
        self._buckets: dict[str, tuple[float, float]] = {}   # key -> (tokens, at)

    def _level(self, key: str, at: float) -> float:
        tokens, then = self._buckets.get(key, (self.capacity, at))
        return min(self.capacity, tokens + (at - then) * self.rate)

    def blocked(self, key: str) -> float:
        """Seconds until ``key`` has a token again (0 when it has one now)."""
        at = _now()
        with self._lock:
            level = self._level(key, at)
        return 0.0 if level >= 1 else (1 - level) / self.rate

    def spend(self, key: str) -> None:
        """Take one token from ``key`` (never below zero)."""
        at = _now()
        with self._lock:
            if len(self._buckets) >= self.max_keys:
                self._prune(at)
            self._buckets[key] = (max(0.0, self._level(key, at) - 1), at)

    def _prune(self, at: float) -> None:
        full = [k for k in self._buckets if self._level(k, at) >= self.capacity]
        for k in full:
            del self._buckets[k]
        while len(self._buckets) >= self.max_keys:            # all busy: forget the oldest
            del self._buckets[min(self._buckets, key=lambda k: self._buckets[k][1])]

    def reset(self) -> None:
        with self._lock:
            self._buckets.clear()
