"""Call windows (child side): submission code runs only while the module loads or
the entry is called, never from a finaliser or a comparison the child's own code
triggers; results handed back are capped to the wire's limits.
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable

from ..wire import MAX_DEPTH, MAX_NODES
from .guards import PolicyError, clean_exception, printable

# ------------------------------------------------------------ call windows
#
# Submission code runs only inside a window: the module body (``with _window_():``,
# added by SubmissionPolicy) and calls of the entry (``SubmissionGlobals`` hands the
# child a guarded entry). Leaving a window protects the judge code that runs next in
# the same process (exception messages are also made printable, see ``printable``):
#
# * It restores the interpreter's recursion headroom. jaxlib's pytree code leaks the
#   recursion counter when a RecursionError meets it inside a flatten with a Python
#   callback (is_leaf, key comparisons); a submission feeding a 10000-deep dict to
#   jax.vmap or tree_map left the child unable to call a function, so it died as an
#   internal error (IE). Python 3.11 cannot reset the counter, only raise the limit.
# * Results and argument containers handed back to the judge are capped to the wire's
#   own limits (MAX_DEPTH, MAX_NODES): anything larger becomes a marker the wire
#   rejects as too deeply nested (OLE), before JAX flattens it (a deep or cyclic tree
#   would hit the same leak; a 100000-leaf list made jit crawl into a TLE).
#
# Outside windows ``_live_()`` raises: a generator finalised by the garbage collector
# while the judge sends a frame, or an ``__lt__`` that jit calls while sorting dict keys,
# cannot run submission code in the judge's context.

HEADROOM = 400  # frames of recursion the judge's code gets after a window closes
_OPEN = [0]  # how many windows are open (a list, so that _live_ can bind it as a default)


def restore_headroom() -> None:
    """Make sure at least HEADROOM frames of recursion are left. sys.setrecursionlimit
    refuses a limit at or below the current depth, which makes the test O(1)."""
    limit = sys.getrecursionlimit()
    for _ in range(1000):
        try:
            sys.setrecursionlimit(limit - HEADROOM)
        except RecursionError:  # fewer than HEADROOM frames left
            limit += HEADROOM
            sys.setrecursionlimit(limit)
        else:
            sys.setrecursionlimit(limit)
            return


class _Window:
    """Context manager around submission code; see the comment above."""

    def __enter__(self) -> None:
        _OPEN[0] += 1

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is not None:
            clean_exception(exc)
        _OPEN[0] -= 1
        if _OPEN[0] <= 0:
            _OPEN[0] = 0
            restore_headroom()


def window() -> _Window:
    return _Window()


def live(_open: list = _OPEN) -> None:  # runs at every submission function call: kept cheap
    if not _open[0]:
        raise PolicyError("submission code may run only while the judge loads the module or calls the entry "
                          "(the entry must be fetched through SubmissionGlobals.get)")


def _children(node: Any) -> list:
    if isinstance(node, dict):
        return list(dict.values(node))
    if isinstance(node, (list, tuple)):
        return list(list.__iter__(node) if isinstance(node, list) else tuple.__iter__(node))
    if isinstance(node, functools.partial):  # jax.tree_util.Partial is a pytree node
        return [*node.args, *node.keywords.values()]
    return []


def oversized(tree: Any) -> bool:
    """Whether the tree nests deeper than MAX_DEPTH or has more than MAX_NODES parts
    (the wire's limits). Iterative, stops at the limits, so cycles cost nothing."""
    stack, nodes = [(tree, 0)], 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            return True
        stack.extend((child, depth + 1) for child in _children(node))
    return False


def too_large_marker() -> list:
    """Nested lists one level deeper than the wire accepts: cheap for JAX, OLE on the wire."""
    marker: Any = None
    for _ in range(MAX_DEPTH + 2):
        marker = [marker]
    return marker


def _printable_keys(tree: Any) -> None:
    """Dict keys are the only submission strings the wire carries (the structure check
    quotes them); make them printable in place. Call on trees that are not oversized."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            if any(type(k) is str and printable(k) is not k for k in dict.keys(node)):
                items = list(dict.items(node))
                dict.clear(node)
                dict.update(node, [((printable(k) if type(k) is str else k), v) for k, v in items])
            stack.extend(dict.values(node))
        elif type(node) in (list, tuple):
            stack.extend(node)


def _cap_in_place(container: Any) -> None:
    if type(container) is dict and oversized(container):
        dict.clear(container)
        container["too_large"] = too_large_marker()
    elif type(container) is list and oversized(container):
        list.clear(container)
        container.append(too_large_marker())
    else:
        _printable_keys(container)


def guard_entry(fn: Callable, namespace: dict, name: str) -> Callable:
    """The entry as the child calls it: inside a window, with its result and the
    containers it was given capped to the wire's limits."""

    @functools.wraps(fn)
    def entry(*args: Any, **kwargs: Any) -> Any:
        with _Window():
            try:
                out = fn(*args, **kwargs)
            finally:
                for arg in (*args, *kwargs.values()):
                    _cap_in_place(arg)
                current = dict.get(namespace, name)
                if callable(current) and not getattr(current, "__guarded_entry__", False):
                    dict.__setitem__(namespace, name, guard_entry(current, namespace, name))  # rebound by ``global``
            if oversized(out):
                return too_large_marker()
            _printable_keys(out)
            return out

    entry.__dict__["__guarded_entry__"] = True  # what the loop above looks for
    return entry
