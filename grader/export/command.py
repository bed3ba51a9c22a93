"""``grader export``: bundles for the systems courses grade with (``grader export
gradescope PROBLEM -o autograder.zip``). Bad input gets one message and exit status 2,
and nothing is written."""
from __future__ import annotations

from pathlib import Path

import click

from ..common.exits import fail as _fail
from ..problem import ProblemError, find_problem
from .gradescope import ExportError, build_bundle
from .wheel import WheelError


@click.group()
def export() -> None:
    """Write a bundle that grades one problem elsewhere (an LMS's autograder)."""


@export.command()
@click.argument("problem_id")
@click.option("--output", "-o", type=click.Path(dir_okay=False), required=True, help="The zip to write.")
@click.option("--wheel", type=click.Path(dir_okay=False, exists=True), default=None,
              help="The judge's wheel to pin (default: this installation, packed; or built from this checkout).")
@click.option("--cell-tag", default=None, help="Notebooks: grade only the code cells with this tag.")
@click.option("--suite", "suite_dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Bundle the hidden cases the deployment drew (grader suite draw --suite DIR) in place of the "
                   "shipped ones.")
def gradescope(problem_id: str, output: str, wheel: str | None, cell_tag: str | None, suite_dir: str | None) -> None:
    """Write Gradescope's autograder zip for PROBLEM_ID: setup.sh installs this judge
    (pinned, with the problem); run_autograder grades the submitted .py or .ipynb file."""
    from ..problem.suite import SuiteError, load_suite

    try:
        problem = find_problem(problem_id)
        if suite_dir is not None:
            problem = load_suite(problem, Path(suite_dir))
        names = build_bundle(problem, Path(output), Path(wheel) if wheel else None, cell_tag)
    except (ProblemError, SuiteError, ExportError, WheelError, OSError) as exc:
        _fail(str(exc))
    wheel_name = next(n for n in names if n.endswith(".whl"))
    hidden = f", hidden cases of suite {problem.suite}" if problem.suite else ""
    click.echo(f"wrote {output}: {problem.id} ({len(problem.cases)} cases{hidden}), {wheel_name}, {len(names)} files; "
               f"upload it as the assignment's autograder (Gradescope: Configure Autograder > Zip file upload)")
