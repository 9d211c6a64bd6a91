"""Taps on their way to the screens go first (issue 54).

A tap's latency ends when every screen of its table has it: its push. After the push
its thread still answers the phone that sent it (the answer's JSON, the session's end,
the response), about a fifth of its work. On a server whose requests share one
interpreter lock, that work slowed any other tap that was still on its way: each took
the lock in turn. So a tap that has pushed lets the taps still before their push
finish first, waiting (holding no lock) until none is left or ``PATIENCE`` has passed.
"""

from __future__ import annotations

import threading

PATIENCE = 0.010        # seconds an answer waits at most for the others' pushes


class Ahead:
    """How many taps of this process are before their push."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self.waiting = 0

    def enter(self) -> None:
        """A tap starts: it counts until :meth:`passed`."""
        with self._cond:
            self.waiting += 1

    def passed(self) -> None:
        """The tap pushed (or failed, or pushes no more): it counts no more."""
        with self._cond:
            self.waiting -= 1
            if self.waiting <= 0:
                self._cond.notify_all()

    def after(self, patience: float = PATIENCE) -> None:
        """Wait while another tap is before its push (at most ``patience`` seconds)."""
        with self._cond:
            if self.waiting > 0:
                self._cond.wait_for(lambda: self.waiting <= 0, patience)


class Turn:
    """One tap's place among them: counted from its start until it :meth:`passed`."""

    def __init__(self, ahead: Ahead) -> None:
        self._ahead = ahead
        self.done = False
        ahead.enter()

    def passed(self) -> None:
        if not self.done:
            self.done = True
            self._ahead.passed()


taps = Ahead()
