"""The judge's side of the mutation worker: starts ``worker`` as a process of
its own (the judge never imports JAX), sends it requests as wire frames and reads one
frame per result, each within a time limit. A worker that misses the limit or dies is
killed and started again; the result it owed, and the rest of that mutant's inputs,
are recorded as ``timeout`` or ``crash`` (a failure: checks fail closed)."""
from __future__ import annotations

import queue
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from typing import IO, Any

from ...problem import Problem
from ...problem.inputs import JaxInput, typed_input
from ...sandbox import wire
from ...sandbox.env import child_env

FRAME_CAP = 1 << 30


@dataclass
class Result:
    status: str  # ok | error | timeout | crash
    output: Any = None  # decoded tree (wire.Leaf leaves) when ok
    error: str = ""
    ms: float = 0.0  # the worker's time for this result, compiles included


def _classify(obj: Any) -> tuple[str, Any] | None:
    return ("jax", obj.array) if isinstance(obj, JaxInput) else None


def _pipe(stream: IO[bytes] | None) -> IO[bytes]:
    """One of the worker's pipes: Popen opens both, as they are asked for (PIPE)."""
    if stream is None:
        raise RuntimeError("the mutation worker has no pipe")
    return stream


class WorkerClient:
    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.frames: queue.Queue = queue.Queue()
        self.loaded: dict | None = None
        self.log = tempfile.TemporaryFile()
        self.static_ids: set[int] = set()
        self.reference_mode = "jit"  # how the worker runs the reference: jit | static_ints | eager

    # ------------------------------------------------------------ process
    def _start(self) -> None:
        env = child_env()
        # XLA's backend at -O0 compiles the mutants' programs in half the time and moves
        # results by a few ulps: far inside every tolerance, and the reference (and the
        # switched program with no mutant on) must still pass every stored case here.
        env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} --xla_backend_optimization_level=0".strip()
        self.proc = subprocess.Popen([sys.executable, "-m", "grader.authoring.mutation.worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env)
        self.frames = queue.Queue()
        threading.Thread(target=self._read, args=(_pipe(self.proc.stdout), self.frames), daemon=True).start()
        if self.loaded is not None:
            self._send(self.loaded)
            self._expect_done(120.0)

    @staticmethod
    def _read(stdout: IO[bytes], frames: queue.Queue) -> None:
        while True:
            try:
                frames.put(wire.read_frame(stdout, FRAME_CAP))
            except Exception:  # EOF or a broken frame: the worker is gone
                frames.put(None)
                return

    def _send(self, header: dict, blob: bytes = b"") -> None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        if self.proc is None:  # _start leaves a worker running or raises
            raise RuntimeError("the mutation worker is not running")
        wire.write_frame(_pipe(self.proc.stdin), header, blob)

    def _next(self, timeout: float) -> tuple[dict, bytes] | str:
        try:
            frame = self.frames.get(timeout=timeout)
        except queue.Empty:
            return "timeout"
        return frame if frame is not None else "crash"

    def _expect_done(self, timeout: float) -> dict:
        got = self._next(timeout)
        if isinstance(got, str):
            self.restart()
            raise RuntimeError(f"the mutation worker gave no answer ({got})")
        return got[0]

    def restart(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                _pipe(self.proc.stdin).close()
                self.proc.wait(timeout=10)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        self.log.close()

    # ----------------------------------------------------------- requests
    def load(self, problem: Problem, reference: str, schema: str) -> None:
        header = {"op": "load", "key": problem.id, "entry": problem.meta.entry.name,
                  "reference": reference, "schema": schema}
        self.loaded = None
        self._send(header)
        done = self._expect_done(120.0)
        if done.get("status") != "ok":
            raise RuntimeError(f"the mutation worker cannot load {problem.id}: {done.get('error')}")
        self.loaded = header
        self.static_ids = set(done.get("static_ids", []))

    def run(self, problem: Problem, variant: str, mutants: list[int], inputs: list[Any],
            timeout: float) -> dict[tuple[int, int], Result]:
        """Run ``variant`` ('reference', 'switched' or 'alone') for every mutant id on every raw
        input; returns results keyed by (mutant, input index)."""
        results: dict[tuple[int, int], Result] = {}
        todo = list(mutants)
        nodes, blob = self._encode(problem, inputs)
        while todo:
            header = {"op": "run", "variant": variant, "mutants": todo, "args": list(problem.meta.entry.args),
                      "inputs": nodes}
            self._send(header, blob)
            pending = [(k, i) for k in todo for i in range(len(inputs))]
            broke = None
            for want in pending:
                got = self._next(timeout)
                if isinstance(got, str):
                    broke = (want, got)
                    break
                head, data = got
                results[(head["k"], head["i"])] = Result(head["status"], _decode(head, data), head.get("error", ""),
                                                         float(head.get("ms", 0.0)))
            if broke is None:
                done = self._next(timeout)
                if not isinstance(done, str):
                    self.static_ids |= set(done[0].get("static_ids", []))
                    self.reference_mode = done[0].get("mode", self.reference_mode)
                    return results
                return results  # every result arrived; a worker lost at the end loses nothing
            (k, i), why = broke
            self.restart()
            for j in range(i, len(inputs)):
                results[(k, j)] = Result(why, error=f"no result within {timeout:g} s" if why == "timeout"
                                         else "the worker process ended")
            todo = todo[todo.index(k) + 1:]
        return results

    @staticmethod
    def _encode(problem: Problem, inputs: list[Any]) -> tuple[list, bytes]:
        packer = wire.Packer(FRAME_CAP, _classify)
        nodes = [packer.encode(typed_input(problem.meta, raw)) for raw in inputs]
        return nodes, packer.blob()


def _decode(head: dict, data: bytes) -> Any:
    return wire.decode_tree(head["out"], data) if head.get("status") == "ok" and "out" in head else None
