"""``grader suite``: a deployment's secret hidden suites, drawn from its own secret
(``grader suite draw``; see ``authoring.suites``)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from ..common.exits import EXIT_OK, EXIT_VERDICT
from ..common.exits import fail as _fail
from .options import JOBS
from .options import load_problem_or_exit as _problem
from .parallel import in_order

@click.group()
def suite() -> None:
    """A deployment's secret hidden suites: drawn from its own secret, never shipped."""


@suite.command()
@click.argument("problem_ids", nargs=-1)
@click.option("--suite", "folder", type=click.Path(file_okay=False), required=True, metavar="DIR",
              help="The deployment's suite folder: its secret (DIR/secret, created when missing) and its drawn "
                   "suites. Keep it out of the package and the repository.")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Sandboxes grading the corpus in parallel.")
@JOBS
@click.option("--no-mutants", is_flag=True,
              help="Gate on the corpus alone, without comparing the suites' mutant kills (faster, weaker).")
def draw(problem_ids: tuple[str, ...], folder: str, workers: int, jobs: int, no_mutants: bool) -> None:
    """Draw each problem's hidden suite from the deployment's secret; a suite drawn for the
    problem's current revision is kept. Exit status 1 when a problem has no suite that
    passed the strength gate."""
    from ..authoring.suites import draw_suite
    from ..problem import all_problem_ids
    from ..problem.suite import SuiteError, SuiteStore, load_secret
    from ..sandbox.host import Pool

    try:
        secret = load_secret(Path(folder) / "secret", create=True)
    except SuiteError as exc:
        _fail(str(exc))
    store = SuiteStore(Path(folder), secret)
    ids = list(problem_ids) or all_problem_ids()
    click.echo(f"suite {secret.id}")

    def drawn(pid: str, session, first_pass: bool):
        # Another process drawing into this folder (a second server) holds the problem:
        # the first pass leaves it for later and draws the next, so that both share the work.
        waiting = _busy if first_pass else lambda: click.echo(f"waiting for another process drawing {pid} "
                                                              f"into {folder}")
        try:
            return draw_suite(_problem(pid), secret, store, pool, session, log=lambda m: None, waiting=waiting)
        except SuiteError as exc:
            return exc
        except _Busy:
            return None
        except Exception as exc:  # one problem's failure ends its draw, not the others'
            return SuiteError(f"the draw failed: {type(exc).__name__}: {exc}")

    failed = 0
    later: list[str] = []
    with Pool(workers) as pool:
        for pid, d in in_order(ids, jobs, not no_mutants, lambda pid, session: drawn(pid, session, True)):
            if d is None:
                later.append(pid)
            else:
                failed += _report_draw(pid, d)
        for pid, d in in_order(later, jobs, not no_mutants, lambda pid, session: drawn(pid, session, False)):
            failed += _report_draw(pid, d)
    sys.exit(EXIT_VERDICT if failed else EXIT_OK)


class _Busy(Exception):
    """A problem another process is drawing into the same folder."""


def _busy() -> None:
    raise _Busy


def _report_draw(pid: str, d) -> int:
    """Prints one problem's outcome (a server reads these lines: ``ID: ...``); 1 when it
    has no suite that passed."""
    if isinstance(d, Exception):
        click.echo(f"{pid}: {d}")
        return 1
    kills = f", mutants killed: shipped {d.killed[0]}, drawn {d.killed[1]}" if d.killed else ""
    state = "kept" if d.kept else f"drawn (attempt {d.attempt})" if d.passed else "FAILED"
    click.echo(f"{pid}: {state}, {len(d.ids)} hidden cases{kills}, {d.seconds:.1f} s")
    for reason in d.reasons:
        click.echo(f"  {reason}")
    return 0 if d.passed else 1
