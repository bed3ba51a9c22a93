"""Problems worked on a few at a time, each job with a mutation worker of its own:
what ``grader validate --jobs`` and ``grader suite draw --jobs`` share (a server drawing
its suites at start runs the latter)."""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")


def in_order(ids: list[str], jobs: int, mutants: bool, work: Callable[[str, Any], T]) -> Iterator[tuple[str, T]]:
    """``work(pid, session)`` for each of ``ids``, ``jobs`` at a time, yielded in the order
    of ``ids``. With ``mutants``, each job has a mutation worker of its own (one JAX
    process, used by one problem at a time); else ``session`` is None."""
    import queue
    from concurrent.futures import ThreadPoolExecutor

    from .mutation import MutationSession

    sessions: "queue.Queue[MutationSession]" = queue.Queue()

    def run(pid: str) -> T:
        session = sessions.get() if mutants else None
        try:
            return work(pid, session)
        finally:
            if session is not None:
                sessions.put(session)

    with contextlib.ExitStack() as stack:
        for _ in range(min(jobs, len(ids)) if mutants else 0):
            sessions.put(stack.enter_context(MutationSession()))
        executor = stack.enter_context(ThreadPoolExecutor(max(1, min(jobs, len(ids)))))
        for pid, future in [(pid, executor.submit(run, pid)) for pid in ids]:
            yield pid, future.result()
