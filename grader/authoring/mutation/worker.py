"""The trusted worker of ``grader validate --mutants``: runs a problem's reference and
the mutants of its schema (``ops``) under ``jax.jit``, without the sandbox.

Only trusted code runs here: the reference and the mutants the judge wrote from it.
The judge's own process never imports JAX, so it starts this module as a process of
its own (``python -m grader.authoring.mutation.worker``) and speaks to it in the
sandbox's pickle-free wire frames: requests in on stdin, one frame per result out.

A mutant runs one of two ways:
- on the traced switch: one program per input shape for every mutant whose site is
  traced with array operands; the mutant id is an argument of that program, so
  running mutant k is a call, not a compile;
- alone: the schema with mutant k chosen in Python, loaded and compiled for k only
  (sites that decide shapes, axes or Python values, and module-level code).
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Sequence

import numpy as np

from ...sandbox import wire
from ...sandbox.child.runner import to_jax  # the inputs exactly as a child receives them
from .ops import SWITCH

FRAME_CAP = 1 << 30


class Switchboard:
    """``_jjm_switch`` of one loaded schema: picks the template of the active mutant."""

    def __init__(self, static: int | None = None):
        self.static = static
        self.mid: Any = None  # the traced mutant id while the switched program is traced
        self.static_ids: set[int] = set()  # mutants the traced switch cannot carry

    def __call__(self, ids: tuple, templates: tuple, children: tuple) -> Any:
        if self.static is not None:
            return templates[1 + ids.index(self.static)](*children) if self.static in ids else templates[0](*children)
        if self.mid is None:
            self.static_ids.update(ids)
            return templates[0](*children)
        import jax

        leaves, tree = jax.tree_util.tree_flatten(list(children))
        dyn = [i for i, leaf in enumerate(leaves) if isinstance(leaf, jax.Array)]
        if not dyn:  # a Python value (a shape, an axis, a count): only a program of its own can change it
            self.static_ids.update(ids)
            return templates[0](*children)

        def branch(template):
            def run(*values):
                full = list(leaves)
                for i, v in zip(dyn, values):
                    full[i] = v
                return template(*jax.tree_util.tree_unflatten(tree, full))
            return run

        operands = [leaves[i] for i in dyn]
        branches = [branch(t) for t in templates]
        try:
            return self._switch(ids, branches, operands)
        except Exception:
            pass
        # Some mutant changes the type or shape, or cannot be traced: those run alone.
        want = _shape_of(branches[0], operands)
        keep = [(k, b) for k, b in zip(ids, branches[1:]) if _shape_of(b, operands) == want]
        self.static_ids.update(set(ids) - {k for k, _ in keep})
        return self._switch([k for k, _ in keep], [branches[0]] + [b for _, b in keep], operands)

    def _switch(self, ids: Sequence[int], branches: list, operands: list) -> Any:
        import jax
        import jax.numpy as jnp

        if not ids:
            return branches[0](*operands)
        index = jnp.int32(0)
        for j, k in enumerate(ids):
            index = jnp.where(self.mid == k, j + 1, index)
        return jax.lax.switch(index, branches, *operands)


def _shape_of(fn, operands: list) -> Any:
    import jax

    try:
        out = jax.eval_shape(fn, *operands)
        leaves, tree = jax.tree_util.tree_flatten(out)
        return tree, [(tuple(x.shape), str(x.dtype)) for x in leaves]
    except Exception as exc:
        return ("error", type(exc).__name__, id(fn))  # never equal to the original's shape


class Program:
    """An entry under jax.jit. Where the judge's child falls back to eager execution (jit
    fails, the same call runs eagerly), this first tries jit with the Python integer
    arguments static: the values eager execution sees, compiled once per value instead
    of once per primitive. Then eager (never for the switched program, which has no eager
    twin). A fallback that worked stays on, as in the child."""

    LADDER = ("jit", "static_ints", "eager")

    def __init__(self, fn, switched: Switchboard | None = None):
        self.fn, self.board, self.mode = fn, switched, "jit"
        self.jitted: dict[str, Any] = {}

    def _entry(self, mode: str, ints: tuple[int, ...]) -> Any:
        import jax

        if mode not in self.jitted:
            fn, board = self.fn, self.board

            def entry(mid, *args):
                if board is None:
                    return fn(*args)
                board.mid = mid
                try:
                    return fn(*args)
                finally:
                    board.mid = None
            self.jitted[mode] = jax.jit(entry, static_argnums=ints if mode == "static_ints" else ())
        return self.jitted[mode]

    def _once(self, mode: str, args: list, mid: int) -> Any:
        import jax

        if mode == "eager":
            return jax.block_until_ready(self.fn(*args))
        ints = tuple(1 + i for i, a in enumerate(args) if type(a) is int)
        return jax.block_until_ready(self._entry(mode, ints)(np.int32(mid), *args))

    def call(self, args: list, mid: int = -1) -> Any:
        ladder = self.LADDER[self.LADDER.index(self.mode):]
        if self.board is not None:
            ladder = tuple(m for m in ladder if m != "eager")
        if not any(type(a) is int for a in args):
            ladder = tuple(m for m in ladder if m != "static_ints") or ladder
        first: Exception | None = None
        for mode in ladder:
            try:
                out = self._once(mode, args, mid)
            except Exception as exc:
                first = first or exc
                continue
            self.mode = mode
            return out
        if first is None:  # the ladder always holds a mode at least
            raise RuntimeError("no way left to run the program")
        raise first


def _abstract(fn, args: list) -> Any:
    """The output's tree, shapes and dtypes when traced on ``args``; None if tracing fails."""
    import jax

    try:
        leaves, tree = jax.tree_util.tree_flatten(jax.eval_shape(fn, *args))
    except Exception:
        return None
    return tree, [(tuple(x.shape), str(x.dtype)) for x in leaves]


def _signature(args: list) -> str:
    import jax

    leaves, tree = jax.tree_util.tree_flatten(args)
    return str(tree) + repr([(type(x).__name__, getattr(x, "shape", None), str(getattr(x, "dtype", "")))
                             for x in leaves])


def shape_mismatch(program: Program, reference: Program, args: list, memo: dict) -> str | None:
    """Why a mutant run alone cannot pass on inputs of this shape, known from tracing alone:
    it returns another shape or dtype than the reference (whose output passes every check).
    Saves the compile of mutants that change a shape."""
    if program.mode != "jit":
        return None
    sig = _signature(args)
    if (id(program), sig) not in memo:
        memo.setdefault((id(reference), sig), _abstract(reference.fn, args))
        mine, ref = _abstract(program.fn, args), memo[(id(reference), sig)]
        memo[(id(program), sig)] = (f"output shapes and dtypes {mine[1]} differ from the reference's {ref[1]}"
                                    if mine and ref and mine[0] == ref[0] and mine[1] != ref[1] else None)
    return memo[(id(program), sig)]


def _module(source: str, key: str, board: Switchboard | None) -> dict:
    namespace: dict = {"__name__": f"jjm_{key}"}
    if board is not None:
        namespace[SWITCH] = board
    exec(compile(source, f"{key}/reference.py", "exec"), namespace)
    return namespace


class Loaded:
    def __init__(self, header: dict):
        self.key, self.entry = header["key"], header["entry"]
        self.reference_source, self.schema = header["reference"], header["schema"]
        self.reference = Program(_module(self.reference_source, self.key, None)[self.entry])
        self.board = Switchboard()
        self.switched = Program(_module(self.schema, self.key, self.board)[self.entry], self.board)
        self.programs: dict[int, Program] = {}  # mutants run alone, kept for the search's later inputs
        self.memo: dict = {}  # abstract outputs by program and input signature

    def alone(self, k: int) -> Program:
        if k not in self.programs:
            self.programs[k] = Program(_module(self.schema, self.key, Switchboard(static=k))[self.entry])
        return self.programs[k]


def _classify(obj: Any) -> tuple[str, np.ndarray] | None:
    import jax

    if isinstance(obj, jax.Array) and not isinstance(obj, jax.core.Tracer):
        return "jax", np.asarray(obj)
    return None


def _send(out, header: dict, tree: Any = None) -> None:
    blob = b""
    if tree is not None:
        packer = wire.Packer(FRAME_CAP, _classify)
        try:
            header["out"] = packer.encode(tree)
            blob = packer.blob()
        except Exception as exc:
            header.update(status="error", error=f"output cannot be sent: {type(exc).__name__}")
            header.pop("out", None)
    wire.write_frame(out, header, blob)


def _run(loaded: Loaded, header: dict, blob: bytes, out) -> None:
    inputs = [to_jax(wire.decode_tree(node, blob)) for node in header["inputs"]]
    args = [[tree[name] for name in header["args"]] for tree in inputs]
    variant = header["variant"]
    start = time.perf_counter()
    for k in header["mutants"]:
        program = {"reference": lambda: loaded.reference, "switched": lambda: loaded.switched}.get(
            variant, lambda: loaded.alone(k))()  # noqa: B023  (called here, in this iteration)
        for i, call_args in enumerate(args):
            why = shape_mismatch(program, loaded.reference, call_args, loaded.memo) if variant == "alone" else None
            if why:
                _send(out, {"k": k, "i": i, "status": "shape", "error": why[:500]})
                continue
            began = time.perf_counter()
            try:
                result = program.call(call_args, k)
                head = {"status": "ok"}
            except Exception as exc:
                result, head = None, {"status": "error", "error": f"{type(exc).__name__}: {exc}"[:500]}
            _send(out, {"k": k, "i": i, **head, "ms": round((time.perf_counter() - began) * 1000, 3)}, result)
    _send(out, {"done": True, "static_ids": sorted(loaded.board.static_ids), "mode": loaded.reference.mode,
                "seconds": round(time.perf_counter() - start, 3)})


def main() -> None:
    stdin, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # whatever the reference prints must not corrupt the frames
    import jax

    loaded: Loaded | None = None
    while True:
        try:
            header, blob = wire.read_frame(stdin, FRAME_CAP)
        except EOFError:
            return
        op = header.get("op")
        if op == "load":
            jax.clear_caches()  # the previous problem's programs
            try:
                loaded = Loaded(header)
                _send(out, {"done": True, "status": "ok", "static_ids": sorted(loaded.board.static_ids)})
            except Exception as exc:
                loaded = None
                _send(out, {"done": True, "status": "error", "error": f"{type(exc).__name__}: {exc}"[:500]})
        elif op == "run" and loaded is not None:
            _run(loaded, header, blob, out)
        else:
            _send(out, {"done": True, "status": "error", "error": f"unknown request {op!r} or nothing loaded"})


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    main()
