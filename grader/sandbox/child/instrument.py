"""Runtime evidence of the transforms a submission really uses (child side).

Each watched callable is replaced, in the modules the submission sees, by a
wrapper that records the call and its line. For function transforms the
function handed in is wrapped too, so that while JAX traces it the recorder
knows which transforms are "open": a ``jax.grad`` function entered while a
``jax.vmap`` function runs yields the nesting ``("jax.vmap", "jax.grad")``.

The same wrappers implement the dependence probe. The judge draws, per grade, a
perturbation (a positive factor, a shift and the phase of a per-lane pattern) that
no submission can know in advance; the judge runs the reference under the same one
and requires the submission's outputs to follow it:
- what the innermost transform of the rule hands back (the gradient a ``grad``
  function returns, the values ``scan`` returns, the cotangents a custom rule's
  ``bwd`` returns) is multiplied by the factor, whenever it is produced inside the
  rule's outer transforms. Outputs computed some other way (a decoy call, an
  ignored result, code that only reacts to the change) do not follow. A single
  positive factor commutes with every linear rearrangement honest code applies
  (ravelling, argnums, a loss scaled and the gradient unscaled);
- inside a ``vmap`` the factor differs from lane to lane (``lane_factor``): each
  lane must carry its own example, so a ``vmap`` over a dummy axis of one element
  around a Python loop, or around a broadcast computation, does not follow;
- the arguments a ``grad``/``value_and_grad`` function differentiates are shifted
  before it runs: the transform must be evaluated at the point the problem
  implies, so a hand-written answer routed through the gradient of a linear
  surrogate (``grad(lambda p: p @ answer)``) does not follow.
Under ``jax.jit`` the perturbation is switched on by a traced flag, so the compiled
program of a case serves both the run and the probe; a run without jit perturbs
unconditionally in a second module (``probe=True``).

The record is bounded: a submission can make the wrappers run as often as it
likes, but only so many nestings, and so deep, are kept (``overflow`` says so).
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable

from ..language import SUBMISSION_FILE
from ..messages import MAX_CALL_LINES, MAX_NEST_DEPTH, MAX_NESTS, JitReport, RuntimeRecord
from ..probe import NEUTRAL
from .perturb import lengthened, scale_result, shift_arguments
from .sizes import count_ops, counting

if TYPE_CHECKING:
    from jax.stages import Wrapped

# Callables whose function arguments are traced: name -> positions of those arguments.
FUNCTION_ARGS: dict[str, tuple[int, ...]] = {
    "jax.grad": (0,), "jax.value_and_grad": (0,), "jax.vmap": (0,), "jax.jit": (0,),
    "jax.jacfwd": (0,), "jax.jacrev": (0,), "jax.jacobian": (0,), "jax.hessian": (0,), "jax.jvp": (0,),
    "jax.vjp": (0,), "jax.linearize": (0,), "jax.checkpoint": (0,), "jax.remat": (0,),
    "jax.custom_vjp": (0,), "jax.custom_jvp": (0,),
    "jax.lax.scan": (0,), "jax.lax.map": (0,), "jax.lax.fori_loop": (2,), "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2), "jax.lax.associative_scan": (0,),
}
WATCHED_BY_DEFAULT = tuple(FUNCTION_ARGS)


MAX_DEPTH = MAX_NEST_DEPTH  # the record's bounds are the protocol's (``messages``)

# Transforms whose produced function differentiates its arguments (argnums).
DIFFERENTIATES = frozenset({"jax.grad", "jax.value_and_grad"})


@dataclass
class Recorder:
    probe_rule: tuple[str, ...] = ()  # (T,) perturbs T's results; (outer, ..., inner) when inner ran inside
    probe: bool = False  # perturb unconditionally, by ``params``
    params: tuple[float, ...] = NEUTRAL  # (factor, shift, lane frequency, lane phase, extra passes); see PARAMS
    passes: bool = False  # a perturbation lengthens the rule's fori_loop (extra passes drawn)
    # While the jitted entry is traced: the traced bool that switches the perturbation on
    # (a probe call) or off (a normal call), and the traced parameters, so that both calls
    # share one compiled program whatever the judge drew.
    flag: Any = None
    traced_params: Any = None
    # Set when the switch could not be placed (see perturb._active): the probe then takes the slow path.
    flag_blocked: bool = False
    # Off while hidden cases run: the lines a call comes from could encode hidden inputs.
    lines: bool = True
    calls: dict[str, list[int]] = field(default_factory=dict)
    nests: set[tuple[str, ...]] = field(default_factory=set)
    stack: list[str] = field(default_factory=list)
    overflow: bool = False  # more nestings than the record keeps
    scaling: int = 0  # calls of the rule's innermost transform whose result will be scaled, open now
    lanes: list[str] = field(default_factory=list)  # axis names of the vmaps being traced, outermost first
    # Axis names handed out to vmaps: numbered afresh at every call of the entry (and apart
    # while the module loads), so that the same code gets the same names on every case;
    # a new name each time would make JAX compile every eager primitive again.
    axis_names: int = 0
    in_entry: bool = False

    def entering(self) -> None:
        self.in_entry, self.axis_names = True, 0

    def note_nest(self) -> None:
        nest = tuple(self.stack[:MAX_DEPTH])
        if nest in self.nests:
            return
        if len(self.nests) >= MAX_NESTS or len(self.stack) > MAX_DEPTH:
            self.overflow = True
            if len(self.nests) >= MAX_NESTS:
                return
        self.nests.add(nest)

    def note_call(self, name: str) -> None:
        lines = self.calls.setdefault(name, [])
        line = _submission_line() if self.lines else None
        if line is not None and line not in lines and len(lines) < MAX_CALL_LINES:
            lines.append(line)

    def record(self, jit: JitReport) -> RuntimeRecord:
        return RuntimeRecord({name: tuple(lines) for name, lines in self.calls.items()}, tuple(sorted(self.nests)),
                             self.overflow, jit)


def _submission_line() -> int | None:
    frame: FrameType | None = sys._getframe(2)
    for _ in range(30):
        if frame is None:
            return None
        if frame.f_code.co_filename == SUBMISSION_FILE:
            return frame.f_lineno
        frame = frame.f_back
    return None


# Transforms that return a function; the others (scan, jvp, ...) return values.
PRODUCES_FUNCTION = frozenset({"jax.grad", "jax.value_and_grad", "jax.vmap", "jax.jit", "jax.jacfwd", "jax.jacrev",
                               "jax.jacobian", "jax.hessian", "jax.checkpoint", "jax.remat"})


def _in_context(rec: Recorder, context: tuple[str, ...], stack: list[str] | None = None) -> bool:
    it = iter(rec.stack if stack is None else stack)
    return all(any(name == open_ for open_ in it) for name in context)


def _traced(rec: Recorder, name: str, fun: Callable, lane: str | None = None,
            perturb_in: tuple[str, ...] | None = None) -> Callable:
    """``fun`` as JAX traces it: the recorder knows it is open. ``lane`` is the axis name
    of the vmap running it; ``perturb_in``, the rule's outer transforms when ``fun`` is the
    function of the rule's innermost vmap: its result is then perturbed per lane."""

    @functools.wraps(fun)
    def traced(*args: Any, **kwargs: Any) -> Any:
        rec.stack.append(name)
        rec.note_nest()
        if lane is not None:
            rec.lanes.append(lane)
        try:
            if perturb_in is not None:
                return _scaling(rec, perturb_in, lambda: fun(*args, **kwargs), rec.stack[:-1])
            return fun(*args, **kwargs)
        finally:
            if lane is not None:
                rec.lanes.pop()
            rec.stack.pop()

    return traced


def _scaling(rec: Recorder, context: tuple[str, ...], run: Callable[[], Any], stack: list[str] | None = None,
             lanes: bool = True, split: tuple[Callable, Callable] | None = None) -> Any:
    """Run a call of the rule's innermost transform and scale its result (``split``: the
    part of it to scale, and how to put it back), unless an enclosing call of the same
    transform already scales: the factor is applied once per chain, so three nested
    vmaps follow the probe as two do."""
    if rec.scaling or not _in_context(rec, context, stack):
        return run()
    rec.scaling += 1
    try:
        out = run()
    finally:
        rec.scaling -= 1
    if split is not None:
        try:
            part = split[0](out)
        except (TypeError, IndexError, KeyError):
            return scale_result(rec, out, lanes)
        return split[1](out, scale_result(rec, part, lanes))
    return scale_result(rec, out, lanes)


def _perturbing(rec: Recorder, context: tuple[str, ...], produced: Callable, argnums: tuple[int, ...] | None = None,
               aux: str | None = None) -> Callable:
    """The function a transform produced, perturbed where the rule says: its result
    scaled (an auxiliary output, ``aux`` naming where it sits, stays as the code made
    it), and (``argnums``, for differentiating transforms) the arguments it
    differentiates shifted first."""

    @functools.wraps(produced)
    def call(*args: Any, **kwargs: Any) -> Any:
        if argnums is not None and not rec.scaling and _in_context(rec, context):
            args = shift_arguments(rec, args, tuple(a % len(args) for a in argnums if -len(args) <= a < len(args)))
        return _scaling(rec, context, lambda: produced(*args, **kwargs), split=None if aux is None else _AUX.get(aux))

    return call


# Where the auxiliary output of a has_aux transform sits: the part to scale, and how to
# put the result back together. grad -> (gradient, aux); value_and_grad -> ((value, aux), gradient).
_AUX = {
    "jax.grad": (lambda out: out[0], lambda out, g: (g, out[1])),
    "jax.value_and_grad": (lambda out: (out[0][0], out[1]), lambda out, vg: ((vg[0], out[0][1]), vg[1])),
}


def _watch_custom_rule(rec: Recorder, name: str, obj: Any) -> Any:
    """custom_vjp/custom_jvp objects: record ``defvjp``/``defjvp`` and trace the rules,
    so a problem can require that its backward rule really ran under ``jax.grad``. A
    rule ``(name.bwd,)`` scales what the backward rule returns: the gradient must come
    through the custom rule, not around it."""
    for method, parts in (("defvjp", ("fwd", "bwd")), ("defjvp", ("jvp",))):
        real = getattr(obj, method, None)
        if real is None:
            continue

        def define(*fns: Any, _real: Callable = real, _method: str = method, _parts: tuple = parts, **kw: Any):
            rec.note_call(f"{name}.{_method}")
            fns = tuple(_rule(rec, f"{name}.{part}", f) if callable(f) else f for part, f in zip(_parts, fns)) \
                + fns[len(_parts):]
            return _real(*fns, **kw)

        try:
            object.__setattr__(obj, method, define)
        except (AttributeError, TypeError):
            pass
    return obj


def _rule(rec: Recorder, name: str, fun: Callable) -> Callable:
    traced = _traced(rec, name, fun)
    if rec.probe_rule != (name,):
        return traced

    @functools.wraps(fun)
    def perturbed_rule(*args: Any, **kwargs: Any) -> Any:
        return _scaling(rec, (), lambda: traced(*args, **kwargs), lanes=False)

    return perturbed_rule


def _argnums(args: tuple, kwargs: dict) -> tuple[int, ...] | None:
    """The positions a grad differentiates, as JAX reads them (any integer, negative
    ones counted from the end); None when they cannot be read, and then nothing is
    shifted (JAX itself refuses such a call)."""
    import operator

    argnums = kwargs.get("argnums", args[1] if len(args) > 1 else 0)
    try:
        return tuple(operator.index(a) for a in (argnums if isinstance(argnums, (tuple, list)) else (argnums,)))
    except TypeError:
        return None


def _has_aux(args: tuple, kwargs: dict) -> bool:
    return bool(kwargs.get("has_aux", args[2] if len(args) > 2 else False))


def _counted(rec: Recorder, jitted: "Wrapped") -> Callable:
    """A jitted function that, called eagerly while the judge counts what a run does,
    adds the size of its program: the trace it takes is the one the call then runs (jit
    caches it), so the counted program is the program that ran."""

    @functools.wraps(jitted)
    def call(*args: Any, **kwargs: Any) -> Any:
        counter = counting()
        if counter is not None and not rec.stack:
            try:
                counter.add(count_ops(jitted.trace(*args, **kwargs).jaxpr.jaxpr))
            except Exception:
                pass  # the call below raises what the code must see
        return jitted(*args, **kwargs)

    return call


def _name_the_axis(rec: Recorder, args: tuple, kwargs: dict) -> tuple[tuple, dict, str]:
    """A vmap call (jax.vmap(fun, in_axes, out_axes, axis_name, ...)) with an axis name
    of the judge's, unique, in place of the code's: the lane index is read with
    lax.axis_index, and a name the code reused at two levels would hide the outer lane.
    (The code cannot use axis names itself: collectives are not on the allow-list.)"""
    rec.axis_names += 1
    name = f"_jj_lane_{'e' if rec.in_entry else 'm'}{rec.axis_names}"
    if len(args) > 3:
        return (*args[:3], name, *args[4:]), kwargs, name
    return args, {**kwargs, "axis_name": name}, name


def watch(rec: Recorder, name: str, real: Callable) -> Callable:
    positions = FUNCTION_ARGS.get(name, ())
    rule = rec.probe_rule
    target = bool(rule) and rule[-1] == name
    lanes = name == "jax.vmap" and "jax.vmap" in rule

    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        rec.note_call(name)
        lane = None
        if lanes:
            args, kwargs, lane = _name_the_axis(rec, args, kwargs)
        # The rule's innermost vmap perturbs what its function returns, per lane.
        inner = rule[:-1] if target and name == "jax.vmap" else None
        if positions:
            args = tuple(_traced(rec, name, a, lane, inner) if i in positions and callable(a) else a
                         for i, a in enumerate(args))
            for key in ("fun", "f", "body_fun", "cond_fun"):
                if key in kwargs and callable(kwargs[key]):
                    kwargs[key] = _traced(rec, name, kwargs[key], lane, inner)
        # A fori_loop the rule names runs a few passes longer (perturbation "passes").
        if target and name == "jax.lax.fori_loop" and not rec.scaling and _in_context(rec, rule[:-1]):
            args, kwargs = lengthened(rec, args, kwargs)
        # Scale what the innermost transform of the rule hands back, when it runs inside
        # the outer ones: outputs computed from it follow the factor, others do not.
        if target and name not in PRODUCES_FUNCTION:
            result = _scaling(rec, rule[:-1], lambda: real(*args, **kwargs))
        else:
            result = real(*args, **kwargs)
        if name in ("jax.custom_vjp", "jax.custom_jvp"):
            result = _watch_custom_rule(rec, name, result)
        if name == "jax.jit" and callable(result):
            result = _counted(rec, result)
        if target and name in PRODUCES_FUNCTION and name != "jax.vmap" and callable(result):
            differentiates = name in DIFFERENTIATES
            result = _perturbing(rec, rule[:-1], result, _argnums(args, kwargs) if differentiates else None,
                                name if differentiates and _has_aux(args, kwargs) else None)
        return result

    return wrapper


def overrides(rec: Recorder, names: tuple[str, ...]) -> dict[str, Callable]:
    """Instrumented replacements for ``names`` (dotted, e.g. ``jax.lax.scan``)."""
    import importlib

    out: dict[str, Callable] = {}
    for name in names:
        module, _, attr = name.rpartition(".")
        try:
            real = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            continue
        out[name] = watch(rec, name, real)
    return out
