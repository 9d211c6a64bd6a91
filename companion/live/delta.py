"""What changed between two views of a table, as a short list of operations (issue 15).

A change to a table touches a few parts of its view (a reveal and a log line added, the
scores, the next step's words and taps), so the live push sends those parts, not the
whole view: a screen at the view's version ``from`` applies the operations and has the
view at ``to``, equal to a fresh load. ``static/live.js`` applies them.

Operations, in order:
- ``["set", path, value]``: the value at ``path`` (a list of keys and indexes) becomes
  ``value`` (a key not there yet is added);
- ``["del", path]``: the key at ``path`` goes;
- ``["add", path, items]``: the list at ``path`` grows by ``items`` (a log, the reveals).

>>> a = {"version": 3, "state": {"ip": {"red": 2, "blue": 0}, "reveals": [1]}, "x": 1}
>>> b = {"version": 4, "state": {"ip": {"red": 4, "blue": 0}, "reveals": [1, 2]}, "y": 2}
>>> ops = diff(a, b)
>>> ops
[['del', ['x']], ['set', ['version'], 4], ['set', ['state', 'ip', 'red'], 4], \
['add', ['state', 'reveals'], [2]], ['set', ['y'], 2]]
>>> patch(a, ops) == b
True
"""

from __future__ import annotations

import copy
from typing import Any

Path = list[str | int]


def diff(a: Any, b: Any, path: Path | None = None) -> list[list[Any]]:
    """The operations that turn ``a`` into ``b`` (JSON-like values; messages compare by
    their key and parameters)."""
    ops: list[list[Any]] = []
    _diff(a, b, path or [], ops)
    return ops


def _diff(a: Any, b: Any, path: Path, ops: list[list[Any]]) -> None:
    if type(a) is type(b) and a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        ops.extend(["del", [*path, k]] for k in a if k not in b)
        for k, v in b.items():
            if k in a:
                _diff(a[k], v, [*path, k], ops)
            else:
                ops.append(["set", [*path, k], v])
    elif isinstance(a, list) and isinstance(b, list) and a and len(b) >= len(a) \
            and b[: len(a)] == a:
        ops.append(["add", path, b[len(a):]])
    elif isinstance(a, list) and isinstance(b, list) and a and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, [*path, i], ops)
    else:
        ops.append(["set", path, b])


def patch(view: Any, ops: list[list[Any]]) -> Any:
    """``view`` with ``ops`` applied (a copy of its own, nothing shared with ``view`` or
    ``ops``; what a screen does with a delta)."""
    return copy.deepcopy(patched(view, ops))


def patched(view: Any, ops: list[list[Any]]) -> Any:
    """``view`` with ``ops`` applied, sharing with it every part they leave alone: only
    the dicts and lists on their paths are copied (``view`` is never changed, and the
    values in ``ops`` are taken as they are). For a process that applies another's
    change to the view it keeps (issue 24): a whole copy cost more than the change.

    >>> a = {"version": 3, "state": {"ip": {"red": 2}, "reveals": [1]}, "log": [[0]]}
    >>> b = patched(a, [["set", ["version"], 4], ["add", ["state", "reveals"], [2]]])
    >>> b, a["version"], a["state"]["reveals"], b["log"] is a["log"]
    ({'version': 4, 'state': {'ip': {'red': 2}, 'reveals': [1, 2]}, 'log': [[0]]}, 3, [1], True)
    """
    out = view
    copied: set[int] = set()        # the containers of ``out`` that are its own

    def own(value: Any) -> Any:
        if id(value) in copied:
            return value
        value = value.copy()
        copied.add(id(value))
        return value

    for op in ops:
        kind, path = op[0], op[1]
        if not path:
            out = op[2]
            copied = {id(out)}
            continue
        out = own(out)
        parent = out
        for k in path[:-1]:
            child = own(parent[k])
            parent[k] = child
            parent = child
        last = path[-1]
        if kind == "set":
            parent[last] = op[2]
        elif kind == "del":
            del parent[last]
        else:
            parent[last] = own(parent[last])
            parent[last].extend(op[2])
    return out
