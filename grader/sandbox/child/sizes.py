"""How big a program is, for the ``vectorized`` rule: the equations of a traced jaxpr,
or the primitives an eager run dispatches. Sub-programs count in full wherever they
sit (scan and loop bodies once, each call of a jitted function again), however deep
they are nested, so that no work can hide behind a call."""
from __future__ import annotations

from typing import Any, cast

# Past this many equations a program is simply "huge": counting stops, so that a
# program built to be expensive to count costs the judge no more than this.
MAX_COUNT = 1_000_000


def _subprograms(params: dict) -> list[Any]:
    out = []
    for value in params.values():
        for sub in value if isinstance(value, (list, tuple)) else (value,):
            inner = getattr(sub, "jaxpr", sub)
            if hasattr(inner, "eqns"):
                out.append(inner)
    return out


def count_ops(jaxpr: Any) -> int:
    """Equations in a jaxpr, sub-programs (scan bodies, branches, calls) included."""
    total, todo = 0, [jaxpr]
    while todo and total < MAX_COUNT:
        for eqn in todo.pop().eqns:
            total += 1
            todo.extend(_subprograms(eqn.params))
    return min(total, MAX_COUNT)


_ACTIVE: list["DispatchCounter"] = []


def counting() -> "DispatchCounter | None":
    """The counter of the eager run going on, if any."""
    return _ACTIVE[-1] if _ACTIVE else None


class DispatchCounter:
    """Counts the primitives JAX executes eagerly, a jitted call with everything its
    program holds. A private hook: if this JAX lacks it, counting fails and so does the
    check. A ``jax.jit`` function called eagerly runs through JAX's C++ dispatch, which
    this hook never sees: the submission's ``jax.jit`` adds its program itself (``add``)."""

    def __init__(self) -> None:
        self.count = 0

    def add(self, ops: int) -> None:
        self.count = min(MAX_COUNT, self.count + ops)

    def __enter__(self) -> "DispatchCounter":
        from jax._src import core

        self.count = 0
        _ACTIVE.append(self)
        # A private class of JAX's whose method is swapped while counting, so untyped on purpose.
        self._cls = cast(Any, core.EvalTrace)
        self._real = core.EvalTrace.process_primitive
        real = self._real

        def counting(trace: Any, primitive: Any, tracers: Any, params: Any) -> Any:
            if self.count < MAX_COUNT:
                self.count += 1 + sum(count_ops(sub) for sub in _subprograms(params))
            return real(trace, primitive, tracers, params)

        self._cls.process_primitive = counting
        return self

    def __exit__(self, *exc: Any) -> None:
        self._cls.process_primitive = self._real
        _ACTIVE.remove(self)
