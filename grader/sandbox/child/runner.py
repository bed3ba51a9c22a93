"""One submission's module in the child: loaded under the policy, its entry called
on case inputs (under jax.jit while that works), results sent back as wire frames."""
from __future__ import annotations

import contextlib
import time
import traceback
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from .. import wire
from ..language import SUBMISSION_FILE, compile_submission
from ..messages import CaseDone, JitReport, Message, ProbeDone, ProgramSize
from ..outcome import MAX_MESSAGE, Cost, ErrorInfo, ChildOutcome, ProgramOps
from ..probe import NEUTRAL
from .guards import PrintSink
from .instrument import Recorder, overrides
from .namespace import ModuleTable, make_globals
from .sizes import DispatchCounter, count_ops

if TYPE_CHECKING:
    from jax.stages import Compiled, Traced, Wrapped

_OOM_MARKERS = ("RESOURCE_EXHAUSTED", "Out of memory", "bad_alloc", "Cannot allocate memory")


def _classify(obj: Any) -> tuple[str, np.ndarray] | None:
    import jax

    t = type(obj)
    if isinstance(obj, jax.core.Tracer) or not t.__module__.startswith(("jax", "jaxlib")):
        return None
    if isinstance(obj, jax.Array):
        try:
            return "jax", np.asarray(obj)
        except Exception:
            return None
    return None


def to_jax(tree: Any) -> Any:
    import jax

    if isinstance(tree, dict):
        return {k: to_jax(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(to_jax(v) for v in tree)
    if isinstance(tree, wire.Leaf):
        if tree.cls == "jax":
            # jnp.asarray would compile a conversion per new shape (~20 ms). On CPU device_put may
            # alias the decoded buffer; nothing writes to it, and JAX arrays are immutable.
            return jax.device_put(tree.array)
        if tree.cls in ("float", "int", "bool"):
            return tree.array.item()
        return tree.array.copy()
    return tree


def _positional(inputs: Any, args: tuple[str, ...]) -> list:
    values = to_jax(inputs)
    return [values[name] for name in args]


def error_info(exc: BaseException, **more: Any) -> ChildOutcome:
    """How a call that raised ``exc`` ended (``more``: its time and prints)."""
    try:
        message = f"{type(exc).__name__}: {exc}"
    except BaseException:  # a hostile __str__
        message = type(exc).__name__
    line = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == SUBMISSION_FILE:
            line = lineno
    oom = isinstance(exc, MemoryError) or any(m in message for m in _OOM_MARKERS)
    return ChildOutcome("mle" if oom else "error",
                        error=ErrorInfo(type(exc).__name__[:100], message[:MAX_MESSAGE], line), **more)


class Channel:
    def __init__(self, out: BinaryIO, max_bytes: int):
        self.out = out
        self.max_bytes = max_bytes

    def send(self, message: Message) -> None:
        wire.write_frame(self.out, message.to_header())

    def send_run(self, message: CaseDone | ProbeDone) -> ChildOutcome:
        """Send a case's or a probe's outcome with its trees encoded into one blob; an
        output over the cap is sent as status 'ole'. Returns the outcome sent."""
        trees, blob = message.trees(), b""
        header = message.to_header()
        if trees:
            packer = wire.Packer(self.max_bytes, _classify)
            try:
                for key, value in trees.items():
                    header[key] = packer.encode(value)
                blob = packer.blob()
            except wire.TooLarge as exc:
                message = message.failed(replace(message.outcome, status="ole",
                                                 error=ErrorInfo("OutputLimit", str(exc), None)))
                header = message.to_header()
            except Exception as exc:  # e.g. an array that cannot be read back
                failed = error_info(exc)
                message = message.failed(replace(message.outcome, status=failed.status, error=failed.error))
                header = message.to_header()
        wire.write_frame(self.out, header, blob)
        return message.outcome


class Run:
    """One submission's module, loaded under the policy with its recorder."""

    def __init__(self, source: str, entry: str, watched: tuple[str, ...], recorder: Recorder):
        self.recorder = recorder
        self.sink = PrintSink()
        self.table = ModuleTable(overrides(recorder, watched))
        self.globals = make_globals(self.table, self.sink)
        self.source, self.entry = source, entry
        self.mode = "jit"
        self.jitted: Wrapped | None = None
        # Per argument signature: the entry traced once under jax.jit, its size, and the
        # compiled program. Every call of that signature runs this very program, so its
        # size is the size of what computed the outputs (see ``program_size``).
        self.programs: dict[str, Program] = {}
        self.count_eager = False  # the size of each eager run, for the vectorized rule
        self.broke: str | None = None  # why the first case that failed only under jit failed there

    def load(self) -> ChildOutcome:
        try:
            code = compile_submission(self.source)
            exec(code, self.globals)
        except BaseException as exc:
            return error_info(exc, stdout=self.sink.take())
        fn = self.globals.get(self.entry)
        if not callable(fn):
            return ChildOutcome("no_entry", stdout=self.sink.take())
        return ChildOutcome("ok", stdout=self.sink.take())

    def call(self, inputs: Any, args: tuple[str, ...], public: bool = True) -> tuple[ChildOutcome, Any, Any]:
        """Run the entry on one input. Compiled with jax.jit while that works (one
        compile per shape instead of one per primitive); on a failure under jit the
        case is rerun eagerly, and if that succeeds eager stays on, so outcomes are
        plain Python's. The result names the size of the program that ran."""
        import jax

        if self.mode == "jit":
            call_args = _positional(inputs, args)
            start = time.perf_counter()
            try:
                program = self.program(call_args)
                fresh = program.compiled is None  # traced just now, or only for the size measurement
                program.compile()
                compiled = time.perf_counter()
                out, after = program.run(call_args, _OFF, _NEUTRAL)
                jax.block_until_ready(out)
                # Timed directly, not by a second call: the split costs nothing, so it is always sent.
                cost = Cost(round((compiled - start) * 1000.0, 3), _ms(compiled)) if fresh else Cost(0.0, _ms(start))
                merged = [after.pop(0) if type(a) in (dict, list) else a for a in call_args]
                result = ChildOutcome("ok", _ms(start), self.sink.take(), cost=cost,
                                      program=ProgramOps(program.ops, "traced"))
                return result, out, dict(zip(args, merged))
            except BaseException as exc:
                why = _jit_failure(exc, args)
                self.sink.take()
                _drop_failed_trace(exc)
            result, out, after = self._eager(inputs, args)
            if result.status == "ok":
                # Only jit failed: the code branches on traced values. Eager from here on;
                # the message is kept only when a public input caused it.
                self.mode = "eager"
                self.broke = why if public else "the function could not be traced on a hidden case"
            return result, out, after
        return self._eager(inputs, args)

    def _eager(self, inputs: Any, args: tuple[str, ...]) -> tuple[ChildOutcome, Any, Any]:
        import jax

        call_args = _positional(inputs, args)
        start = time.perf_counter()
        # Counting sends every primitive through Python (about 5x an eager run's cost), so
        # it is done only where a rule needs the size.
        counter = DispatchCounter() if self.count_eager else None
        try:
            with counter if counter is not None else contextlib.nullcontext():
                self.recorder.entering()
                out = self.globals[self.entry](*call_args)
                jax.block_until_ready(out)
        except BaseException as exc:
            return error_info(exc, time_ms=_ms(start), stdout=self.sink.take()), None, None
        result = ChildOutcome("ok", _ms(start), self.sink.take())
        if counter is not None:
            result = replace(result, program=ProgramOps(counter.count, "eager"))
        return result, out, dict(zip(args, call_args))

    def jit_report(self) -> JitReport:
        return JitReport(self.mode, self.broke)

    def probe(self, inputs: Any, args: tuple[str, ...], params: tuple[float, ...]) -> tuple[ChildOutcome, Any]:
        """Rerun a case that ran under jit with the perturbation switched on: the same
        compiled program, so no trace and no compile."""
        import jax

        call_args = _positional(inputs, args)
        start = time.perf_counter()
        try:
            out, _ = self.program(call_args).run(call_args, _ON, tuple(np.float32(v) for v in params))
            jax.block_until_ready(out)
        except BaseException as exc:
            return error_info(exc, time_ms=_ms(start), stdout=self.sink.take()), None
        return ChildOutcome("ok", _ms(start), self.sink.take()), out

    def program(self, call_args: list) -> "Program":
        """The entry's program for these arguments' signature, traced once."""
        key = _signature(call_args)
        if key not in self.programs:
            traced = self._jit().trace(call_args, _OFF, _NEUTRAL)
            self.programs[key] = Program(traced, count_ops(traced.jaxpr.jaxpr))
        return self.programs[key]

    def _jit(self) -> "Wrapped":
        if self.jitted is None:
            import jax

            fn = self.globals[self.entry]
            recorder = self.recorder

            def entry(all_args: list, switch: Any, params: Any) -> tuple[Any, list]:
                recorder.flag, recorder.traced_params = switch, params
                recorder.entering()
                try:
                    out = fn(*all_args)
                finally:
                    recorder.flag = recorder.traced_params = None
                # Containers the submission may have mutated come back out of the trace.
                return out, [a for a in all_args if type(a) in (dict, list)]

            self.jitted = jax.jit(entry)
        return self.jitted


class Program:
    """One traced program of the entry: compiled at its first run."""

    def __init__(self, traced: "Traced", ops: int):
        self.traced, self.ops = traced, ops
        self.compiled: Compiled | None = None

    def compile(self) -> "Compiled":
        if self.compiled is None:
            self.compiled = self.traced.lower().compile()
        return self.compiled

    def run(self, call_args: list, switch: Any, params: Any) -> Any:
        return self.compile()(call_args, switch, params)


def _signature(call_args: list) -> str:
    import jax

    leaves, tree = jax.tree_util.tree_flatten(call_args)
    described = [(type(x).__name__, getattr(x, "shape", None), str(getattr(x, "dtype", ""))) for x in leaves]
    return str(tree) + repr(described)


# The probe switch and its parameters, traced arguments of the jitted entry.
# The parameters travel as separate scalars, so that reading one costs the program no
# slice of a vector.
_OFF, _ON, _NEUTRAL = np.bool_(False), np.bool_(True), tuple(np.float32(v) for v in NEUTRAL)


def _drop_failed_trace(exc: BaseException) -> None:
    """Free what a failed trace left behind now, outside any call window. Its frames
    hold the submission's objects in reference cycles; left to the garbage collector,
    they would be finalised at some later moment, perhaps inside the next case's
    window, where a generator's ``finally`` is allowed to run: the verdict would
    depend on when the collector happened to run."""
    import gc
    import traceback

    traceback.clear_frames(exc.__traceback__)
    exc.__traceback__ = None
    gc.collect()


def _jit_failure(exc: BaseException, args: tuple[str, ...]) -> str:
    """Why jit failed, in the submission's terms: the first line of JAX's message and
    the argument the value came from (JAX names this file's wrapper, not the code)."""
    import re

    error = error_info(exc).error
    text = error.message if error is not None else ""
    first = text.splitlines()[0] if text else type(exc).__name__
    m = re.search(r"argument all_args\[(\d+)\]", text)
    if m and int(m.group(1)) < len(args):
        first += f" (the value depends on the argument '{args[int(m.group(1))]}')"
    return first[:300]


def program_size(run: "Run", inputs: Any, args: tuple[str, ...], size: int, eager: bool = False) -> ProgramSize:
    """How big the program for this input is: equations of the jaxpr the entry traces
    to under jax.jit (the program a case of this signature then runs), or, for code that
    cannot be traced (``eager``), the primitives it dispatches when run."""
    import jax

    values = to_jax(inputs)
    call = [values[name] for name in args]
    try:
        if not eager:
            return ProgramSize(size, run.program(call).ops, "traced")
        with DispatchCounter() as counter:
            run.recorder.entering()
            jax.block_until_ready(run.globals[run.entry](*call))
        return ProgramSize(size, counter.count, "eager")
    except BaseException as exc:
        return ProgramSize(size, None, "eager" if eager else "traced", type(exc).__name__)
    finally:
        run.sink.take()


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)
