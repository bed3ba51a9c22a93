"""The authors' commands: ``add-case``, ``generate``, ``validate``, ``new``, ``warm``,
``suite draw``.
The command line (``grader.cli``) adds them to ``grader``; they share its exit status
convention (0 fine, 1 a failed verdict or check, 2 bad input)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable

import click

from ..common.exits import EXIT_OK, EXIT_VERDICT
from ..common.exits import fail as _fail
from ..common.verdicts import Visibility
from ..problem import ProblemError, problem_folder, problems_root
from .parallel import in_order
from .options import JOBS, load_problem_or_exit
from .suite_command import suite

_problem = load_problem_or_exit


def _visibility(public: bool, hidden: bool) -> Visibility:
    if public and hidden:
        _fail("choose one of --public and --hidden")
    return "public" if public else "hidden"



@click.command("add-case")
@click.argument("problem_id")
@click.argument("input_file", type=click.Path(dir_okay=False))
@click.option("--public", is_flag=True, help="Add a public case (shown in full to submitters).")
@click.option("--hidden", is_flag=True, help="Add a hidden case (the default).")
@click.option("--name", default=None, help="Case name (file stem); chosen automatically when absent.")
def add_case(problem_id: str, input_file: str, public: bool, hidden: bool, name: str | None) -> None:
    """Validate INPUT_FILE (the input only), compute its expected output and add it as a case."""
    from ..authoring.cases import AuthoringError, add_cases
    from ..sandbox.host import Sandbox

    visibility = _visibility(public, hidden)
    problem = _problem(problem_id)
    if name is not None and not (name.replace("_", "a").replace("-", "a").isalnum() and len(name) <= 64):
        _fail("--name may hold letters, digits, '_' and '-' only (64 at most)")
    try:
        raw = json.loads(Path(input_file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        _fail(f"{input_file}: no such file")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        _fail(f"{input_file}: not a readable JSON file ({exc})")
    try:
        with Sandbox() as sandbox:
            written = add_cases(problem, [(name or Path(input_file).stem, raw)], visibility, sandbox,
                                exact_names=name is not None)
    except (AuthoringError, ProblemError) as exc:
        _fail(str(exc))
    for case in written:
        ex = ", ".join(f"{k} at {v:.3f} of tolerance" for k, v in case.oracle_excess.items())
        click.echo(f"added {visibility} case {case.name} ({case.path}); oracle agreement: {ex}")
    _report_catches(problem_id, [c.path for c in written])


def _report_catches(problem_id: str, paths: list[Path]) -> None:
    from ..authoring.cases import wrong_answers_caught

    problem = _problem(problem_id)
    names = {p.stem for p in paths}
    caught = wrong_answers_caught(problem, names)
    if caught is None:
        return
    if caught:
        click.echo("caught by the new case(s): " + ", ".join(caught))
    else:
        click.echo("no wrong_answer submission fails on the new case(s)")


@click.command()
@click.argument("problem_id")
@click.option("--count", type=click.IntRange(1, 1000), required=True)
@click.option("--seed", type=int, required=True)
@click.option("--public", is_flag=True)
@click.option("--hidden", is_flag=True)
@click.option("--recipe", metavar="NAME",
              help="Draw from the generator's recipe NAME (RECIPES in generator.py) instead of generate(); "
                   "each case keeps the recipe's name, so a secret suite can draw its like.")
def generate(problem_id: str, count: int, seed: int, public: bool, hidden: bool, recipe: str | None) -> None:
    """Add COUNT seeded cases from the problem's generator (same seed, same cases)."""
    from ..authoring.cases import AuthoringError, add_cases
    from ..problem.modules import generated_inputs, recipe_inputs
    from ..sandbox.host import Sandbox

    visibility = _visibility(public, hidden)
    problem = _problem(problem_id)
    try:
        inputs = recipe_inputs(problem, recipe, count, seed) if recipe else generated_inputs(problem, count, seed)
        with Sandbox() as sandbox:
            written = add_cases(problem, inputs, visibility, sandbox, exact_names=True, recipe=recipe)
    except (AuthoringError, ProblemError) as exc:
        _fail(str(exc))
    click.echo(f"added {len(written)} {visibility} case(s) to {problem_id}")


@click.command()
@click.argument("problem_ids", nargs=-1)
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Sandboxes grading submissions in parallel.")
@JOBS
@click.option("--no-submissions", is_flag=True, help="Skip grading the files under submissions/.")
@click.option("--mutants", is_flag=True, help="Also grade the reference's mutants; a hole in the suite fails.")
@click.option("--fresh", is_flag=True,
              help="Prove every problem again, even one whose proof is kept (nothing it depends on changed).")
def validate(problem_ids: tuple[str, ...], workers: int, jobs: int, no_submissions: bool, mutants: bool,
             fresh: bool) -> None:
    """Prove problems sound: metadata, cases, oracles, reference, statement, submissions.
    A problem proved before, with nothing it depends on changed since, is not proved
    again (``--fresh`` proves it anyway). Problems are proved ``--jobs`` at a time and
    reported in order."""
    import time

    from ..authoring.mutation import print_table, table_rows
    from ..authoring.proofs import Proof, ProofStore, proof_key
    from ..authoring.validate import print_finding, validate_problem
    from ..problem import all_problem_ids
    from ..report.text import make_console
    from ..sandbox.host import Pool

    con = make_console()
    try:
        folders = {pid: problem_folder(pid) for pid in (list(problem_ids) or all_problem_ids())}
    except ProblemError as exc:
        _fail(str(exc))
    ids = list(folders) or _fail(f"no problems under {problems_root()}")
    store = ProofStore()
    started = time.monotonic()

    def prove(pid: str, session) -> tuple[Proof, bool]:
        """The problem's proof, and whether it was kept from an earlier run."""
        corpus = None if no_submissions else folders[pid].parent.parent / "submissions" / pid
        key = proof_key(folders[pid], corpus, mutants)
        kept = None if fresh else store.get(pid, key)
        if kept is not None:
            return kept, True
        _, findings = validate_problem(folders[pid], pool, not no_submissions, mutation=session)
        row = table_rows(session.analyses[-1:])[0] if session is not None and session.analyses else None
        if session is not None:
            session.analyses.clear()
        proof = Proof(key, findings, row)
        store.put(pid, proof)
        return proof, False

    failed = 0
    rows: list[tuple[list[str], bool]] = []
    with Pool(workers) as pool:
        for pid, (proof, kept) in in_order(ids, jobs, mutants, prove):
            con.print(f"[bold]{pid}[/bold]")
            if kept:
                con.print("  (proved before, and nothing it depends on changed since: kept; --fresh proves it again)")
            if proof.mutation_row:
                rows.append((proof.mutation_row, kept))
            for f in proof.findings:
                print_finding(con, f)
            bad = sum(1 for f in proof.findings if f.status == "fail")
            failed += bad > 0
            con.print(f"  => {'[red]FAILED[/red]' if bad else '[green]ok[/green]'}\n")
    if mutants:
        print_table(con, rows, time.monotonic() - started)
    con.print(f"{len(ids) - failed}/{len(ids)} problem(s) valid")
    sys.exit(EXIT_VERDICT if failed else EXIT_OK)


@click.command()
@click.argument("problem_id")
def new(problem_id: str) -> None:
    """Create problems/PROBLEM_ID from a template; then follow `grader validate PROBLEM_ID`."""
    from ..authoring.scaffold import scaffold
    from ..problem import NAME_RE

    if not NAME_RE.match(problem_id):
        _fail("a problem id is lower case letters, digits and underscores")
    try:
        folder = scaffold(problems_root(), problem_id)
    except FileExistsError as exc:
        _fail(str(exc))
    click.echo(f"created {folder}\nnext steps:\n"
               f"  1. edit problem.toml, statement.md, reference.py, oracle.py, generator.py\n"
               f"  2. grader add-case {problem_id} EXAMPLE.json --public --name example_1\n"
               f"  3. grader generate {problem_id} --count 20 --seed 1 --hidden\n"
               f"  4. add submissions/{problem_id}/accepted/*.py and wrong_answer/*.py\n"
               f"  5. grader validate {problem_id}   (it says what is still missing)")


def _echo_for(problem_id: str) -> Callable[[str], None]:
    """Echo a message prefixed with the problem it is about."""
    def echo(message: str) -> None:
        click.echo(f"{problem_id}: {message}")
    return echo


@click.command()
@click.argument("problem_ids", nargs=-1)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Problems warmed at once, each in a sandbox of its own.")
@click.option("--suite", "folder", type=click.Path(file_okay=False, exists=True), default=None, metavar="DIR",
              help="Warm each problem as a server with --suite DIR grades it: with its drawn suite, whose tables are "
                   "kept beside it in DIR for every server that uses DIR.")
@click.option("--ship", is_flag=True,
              help="Build the whole built-in catalogue's dependence-probe tables, misconception entries and shipped "
                   "suites' kills (mutants the hidden cases kill) and write them, with a manifest of their "
                   "SHA-256, where the package ships them (problems/_tables); for a checkout, before a release. "
                   "A server then finds them built.")
def warm(problem_ids: tuple[str, ...], workers: int, folder: str | None, ship: bool) -> None:
    """Build the caches a first grade would otherwise build: probe and misconception
    tables, XLA's compilation cache. Run once per machine after problems change. Each
    line says what was kept already, taken from the shipped tables, or built, and where."""
    from ..authoring.warm import steps
    from ..problem import all_problem_ids, load_problem
    from ..problem.catalogue import builtin_root
    from ..sandbox.host import Pool

    if ship:
        root = builtin_root()
        if problem_ids or folder or root is None or root.name != "problems":
            _fail("--ship writes the tables of the whole built-in catalogue in a checkout (problems/): "
                  "name no problem and no --suite, and run it from the repository")
        assert root is not None
        problems = [load_problem(root / pid) for pid in all_problem_ids(root)]
    else:
        if folder is not None:
            from ..problem.catalogue import use_suite

            use_suite(Path(folder))  # find_problem then gives each problem with its drawn suite, or refuses it
        problems = [_problem(pid) for pid in list(problem_ids) or all_problem_ids()]

    def work(sandbox, problem) -> list[str]:
        said = []
        for step in steps(problem):
            if ship and step.phase == "cache":
                continue  # XLA's cache is this machine's: never shipped
            try:
                said.append(step.run(sandbox))
            except ProblemError as exc:
                said.append(f"FAILED: {exc}")
        return said

    failed = False
    with Pool(workers) as pool:
        for problem, said in zip(problems, pool.map_in_order(work, problems)):
            for line in said:
                click.echo(f"{problem.id}: {line}")
                failed = failed or line.startswith("FAILED")
    if ship:
        failed = _ship_kills(problems, workers) or failed
    if failed:
        _fail("some tables could not be built (see above)")
    if ship:
        _ship(problems)


def _ship_kills(problems, workers: int) -> bool:
    """The shipped suites' kills (``mutation.kills``), computed for ``--ship``; True when
    one failed."""
    from ..authoring.mutation import kills
    from ..authoring.warm import how_built

    by_id = {p.id: p for p in problems}

    def work(pid: str, session) -> str:
        where = kills.path(by_id[pid])
        had = where.exists()
        try:
            table = kills.get(by_id[pid], session)
        except RuntimeError as exc:
            return f"FAILED: the shipped suite's kills: {exc}"
        return f"the shipped suite kills {len(table.killed)} of {table.mutants} mutants, {how_built(where, had)}"

    failed = False
    for pid, line in in_order(list(by_id), workers, True, work):
        click.echo(f"{pid}: {line}")
        failed = failed or line.startswith("FAILED")
    return failed


def _ship(problems) -> None:
    from ..authoring.mutation import kills
    from ..judge import mistakes, probe_table
    from ..judge.tables import ship, shipped_root

    chosen = []
    for problem in problems:
        files: dict = {"probe": [], "mistakes": [], "kills": [kills.path(problem)]}
        if probe_table.path(problem).exists():
            files["probe"].append(probe_table.path(problem))
        for exp in mistakes.wrong_answers(problem):
            path = mistakes.entry_path(problem, exp)
            if path.exists() and not json.loads(path.read_text()).get("partial"):
                files["mistakes"].append(path)
        chosen.append((problem, files))
    root = shipped_root()
    assert root is not None
    manifest = ship(chosen, root)
    count = sum(len(v) for _, files in chosen for v in files.values())
    click.echo(f"shipped {count} tables of {len(chosen)} problems in {root} (manifest {manifest.name})")


COMMANDS = [add_case, generate, validate, new, warm, suite]
