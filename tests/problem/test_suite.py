"""Secret suites (``problem/suite.py``, ``authoring/suites.py``): a deployment draws its
own hidden cases from a secret, repeating the shipped suite's plan; the secret never
shows, and no drawn input is a case the repository holds."""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys

import pytest

from support import PROBLEMS, ROOT, console_script, drawn_suite, stripped_copy


def _secret(byte: int):
    from grader.problem.suite import Secret

    return Secret(bytes([byte]) * 32)


def test_two_secrets_draw_different_values_for_the_same_situations():
    from grader.authoring.suites import drawn_inputs
    from grader.problem import find_problem

    for pid in ("global_norm_clipping", "spectral_norm_power_iteration"):  # generated, and recipes too
        problem = find_problem(pid)
        a, b = drawn_inputs(problem, _secret(1), 0), drawn_inputs(problem, _secret(2), 0)
        assert [cid for cid, _ in a] == [cid for cid, _ in b]  # the same indices and recipes: the same scenarios
        assert len(a) == sum(c.hidden for c in problem.cases)
        assert all(x != y for (_, x), (_, y) in zip(a, b))


def test_the_same_secret_draws_the_same_suite_and_the_next_attempt_another():
    from grader.authoring.suites import drawn_inputs
    from grader.problem import find_problem

    problem = find_problem("traced_lr_schedule")
    first = drawn_inputs(problem, _secret(3), 0)
    assert drawn_inputs(problem, _secret(3), 0) == first
    assert all(x != y for (_, x), (_, y) in zip(first, drawn_inputs(problem, _secret(3), 1)))


def test_no_drawn_input_of_any_built_in_problem_is_a_case_the_repository_holds():
    from grader.authoring.suites import drawn_inputs
    from grader.problem import all_problem_ids, find_problem
    from grader.problem.inputs import canonical

    for pid in all_problem_ids():
        problem = find_problem(pid)
        stored = {canonical(problem.meta, c.input) for c in problem.cases}
        drawn = [canonical(problem.meta, x) for _, x in drawn_inputs(problem, _secret(4), 0)]
        assert not stored & set(drawn), pid
        assert len(set(drawn)) == len(drawn), pid


def test_a_new_secret_is_the_owners_alone_and_never_shown(tmp_path):
    from grader.problem.suite import SuiteError, load_secret

    secret = load_secret(tmp_path / "secret", create=True)
    assert os.stat(tmp_path / "secret").st_mode & 0o777 == 0o600
    assert secret.value.hex() not in repr(secret) and secret.id in repr(secret)
    assert load_secret(tmp_path / "secret", create=True) == secret  # kept, not replaced
    os.chmod(tmp_path / "secret", 0o644)
    with pytest.raises(SuiteError, match="chmod 600"):
        load_secret(tmp_path / "secret")
    with pytest.raises(SuiteError, match="no suite secret"):
        load_secret(tmp_path / "absent")


def _written(store, problem, ids: list[str], attempt: int = 0, text: str = '{"input": {}, "expected": {}}'):
    """A passing suite of the cases ``ids`` (each holding ``text``) in ``store``, written and
    sealed by what a draw writes with (``write_cases``, then ``_record``), without drawing."""
    from grader.authoring.suites import Draw, _record

    macs = store.write_cases(problem, {cid: text for cid in ids})
    _record(store, problem, Draw(problem.id, store.secret.id, passed=True, attempt=attempt, ids=ids, macs=macs), 0.0)
    return macs


def _copy(tmp_path, pid: str):
    from grader.problem import load_problem

    folder = tmp_path / pid
    shutil.copytree(PROBLEMS / pid, folder)
    return folder, load_problem


def test_validate_refuses_a_hand_made_hidden_case_without_a_recipe_unless_the_problem_is_not_drawable(tmp_path):
    from grader.authoring.context import Validation
    from grader.authoring.validate import check_suite

    folder, load = _copy(tmp_path, "spectral_norm_power_iteration")
    case = folder / "cases" / "hidden" / "small_lengths_a.json"
    doc = json.loads(case.read_text())
    assert check_suite(Validation(load(folder), None))[0].status == "pass"
    del doc["recipe"]
    case.write_text(json.dumps(doc))
    [finding] = check_suite(Validation(load(folder), None))
    assert finding.status == "fail" and "small_lengths_a" in finding.message and "recipe" in finding.message
    doc["recipe"] = "no_such_recipe"
    case.write_text(json.dumps(doc))
    [finding] = check_suite(Validation(load(folder), None))
    assert finding.status == "fail" and "no_such_recipe" in finding.message
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text() + "\n[suite]\ndrawable = false\n")
    [finding] = check_suite(Validation(load(folder), None))
    assert finding.status == "pass" and "drawable = false" in finding.message


@pytest.mark.slow  # draws and gates a whole suite (corpus and mutants): about a minute
def test_a_drawn_suite_grades_a_submission_and_the_report_names_its_id_never_its_secret(tmp_path):
    folder = tmp_path / "suite"
    grader = [console_script("grader")]
    draw = subprocess.run(grader + ["suite", "draw", "value_and_grad_loss", "--suite", str(folder)],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert draw.returncode == 0, draw.stdout + draw.stderr
    secret = (folder / "secret").read_text().strip()
    suite_id = draw.stdout.split()[1]
    assert "drawn (attempt 0), 26 hidden cases" in draw.stdout
    shipped, drawn = re.search(r"mutants killed: shipped (\d+), drawn (\d+)", draw.stdout).groups()
    assert int(drawn) == int(shipped) > 0  # the gate: every mutant the shipped suite kills, the drawn one kills
    graded = subprocess.run(grader + ["grade", str(ROOT / "problems" / "value_and_grad_loss" / "reference.py"),
                                      "--problem", "value_and_grad_loss", "--suite", str(folder), "--format", "json"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    report = json.loads(graded.stdout)
    assert report["verdict"] == "AC" and report["suite"] == suite_id
    ids = {f"gen_{i:03d}" for i in range(24)} | {"largest_residuals_000", "largest_residuals_001"}  # recipe cases
    assert {c["id"] for c in report["cases"] if c["visibility"] == "hidden"} == ids
    manifest = next(folder.rglob("suite.json")).read_text()
    for text in (draw.stdout, draw.stderr, graded.stdout, graded.stderr, manifest):
        assert secret not in text
    # Two problems at once (--jobs 2), reported in the order given; the one drawn before is kept.
    pair = ("global_norm_clipping", "value_and_grad_loss")
    again = subprocess.run(grader + ["suite", "draw", *pair, "--suite", str(folder), "--no-mutants", "--jobs", "2"],
                           capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert again.returncode == 0, again.stdout + again.stderr
    lines = [line for line in again.stdout.splitlines() if line.split(":")[0] in pair]
    assert [line.split(":")[0] for line in lines] == list(pair)
    assert "drawn (attempt" in lines[0] and "kept" in lines[1]


@pytest.mark.slow  # grades the corpus twice in the sandbox
def test_a_draw_the_gate_refuses_is_drawn_again_from_the_next_seed_and_the_reason_kept(tmp_path, monkeypatch):
    from grader.authoring import suites
    from grader.authoring.context import Finding
    from grader.problem import find_problem
    from grader.problem.suite import SuiteStore, load_secret
    from grader.sandbox.host import Pool

    real = suites.check_submissions
    calls: list[int] = []

    def refuse_the_first(ctx):
        calls.append(1)
        if len(calls) == 1:
            return [Finding("submission verdicts", "fail", "sum_not_mean.py: expected WA, got AC")]
        return real(ctx)

    monkeypatch.setattr(suites, "check_submissions", refuse_the_first)
    problem = find_problem("value_and_grad_loss")
    secret = load_secret(tmp_path / "secret", create=True)
    store = SuiteStore(tmp_path, secret)
    with Pool(1) as pool:
        draw = suites.draw_suite(problem, secret, store, pool)
    assert draw.passed and draw.attempt == 1 and len(calls) == 2
    assert draw.reasons == ["draw 0: the corpus does not get its verdicts: sum_not_mean.py: expected WA, got AC"]
    manifest = json.loads((store.folder(problem) / "suite.json").read_text())
    assert manifest["attempt"] == 1 and manifest["reasons"] == draw.reasons
    assert [c.id for c in store.cases(problem)] == draw.ids


def test_a_draw_waits_for_another_draw_of_the_problem_into_the_same_folder_and_keeps_what_it_drew(tmp_path):
    """Two servers (or a server and ``grader suite draw``) drawing into one folder take
    turns per problem; the second keeps the first's suite rather than draw over it."""
    import threading

    from grader.authoring.suites import draw_suite
    from grader.problem import find_problem
    from grader.problem.suite import SuiteStore

    problem = find_problem("value_and_grad_loss")
    store = SuiteStore(tmp_path, _secret(7))
    said: list[str] = []
    got: list = []
    second = threading.Thread(target=lambda: got.append(draw_suite(problem, _secret(7), store, pool=None,
                                                                    waiting=lambda: said.append("waiting"))))
    with store.drawing(problem):  # the first draw, in progress
        second.start()
        second.join(timeout=0.5)
        assert second.is_alive() and said == ["waiting"]
        _written(store, problem, ["gen_0"], attempt=2)
    second.join(timeout=30)
    assert got[0].kept and got[0].attempt == 2 and got[0].ids == ["gen_0"]  # pool=None: it drew nothing


def test_suite_draw_puts_off_a_problem_another_process_is_drawing_and_draws_the_others_first(tmp_path):
    """Two servers starting on one folder draw in the same order: each leaves the problem
    the other holds for the end, so that they share the work instead of taking turns."""
    from grader.problem import find_problem
    from grader.problem.suite import SuiteStore, load_secret

    secret = load_secret(tmp_path / "secret", create=True)
    store = SuiteStore(tmp_path, secret)
    held, other = find_problem("value_and_grad_loss"), find_problem("ema_with_scan")
    _written(store, other, ["gen_0", "gen_1"])  # quick to report
    with store.drawing(held):
        proc = subprocess.Popen([sys.executable, "-m", "grader", "suite", "draw", held.id, other.id, "--suite",
                                 str(tmp_path), "--no-mutants"], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        lines = [proc.stdout.readline().rstrip("\n") for _ in range(3)]
        assert lines[1:] == ["ema_with_scan: kept, 2 hidden cases, 0.0 s",
                             f"waiting for another process drawing value_and_grad_loss into {tmp_path}"]
        _written(store, held, ["gen_0"])
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out == "value_and_grad_loss: kept, 1 hidden cases, 0.0 s\n"


def test_the_command_line_refuses_a_suite_folder_without_a_secret(tmp_path):
    r = subprocess.run([sys.executable, "-m", "grader", "grade", str(ROOT / "problems" / "value_and_grad_loss" /
                                                                     "reference.py"),
                        "--problem", "value_and_grad_loss", "--suite", str(tmp_path)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2 and "no suite secret" in r.stderr


def test_a_changed_problem_has_a_new_revision_and_no_drawn_suite_until_drawn_again(tmp_path):
    from grader.problem.suite import SuiteError, SuiteStore, load_suite, revision

    folder, load = _copy(tmp_path, "global_norm_clipping")
    before = revision(load(folder))
    (folder / "generator.py").write_text((folder / "generator.py").read_text() + "\n# a change\n")
    assert revision(load(folder)) != before
    (folder / "statement.md").write_text("# only the words\n")  # no draw depends on the statement
    (tmp_path / "suite").mkdir()
    secret_file = tmp_path / "suite" / "secret"
    from grader.problem.suite import load_secret

    load_secret(secret_file, create=True)
    with pytest.raises(SuiteError, match="no drawn suite for this revision"):
        load_suite(load(folder), tmp_path / "suite")
    assert SuiteStore(tmp_path / "suite", load_secret(secret_file)).manifest(load(folder)) is None


def test_the_problem_version_of_a_drawn_suite_covers_its_cases_not_the_shipped_hidden_ones(tmp_path):
    from grader.problem import find_problem
    from grader.problem.cases import Case
    from grader.problem.catalogue import content_hash
    from grader.problem.suite import with_suite

    problem = find_problem("value_and_grad_loss")
    case = tmp_path / "gen_000.json"
    case.write_text('{"input": {}, "expected": {}}')
    drawn = with_suite(problem, [Case("gen_000", "hidden", case, {})], "abc")
    first = content_hash(drawn)
    assert first != content_hash(problem)
    case.write_text('{"input": {"x": 1}, "expected": {}}')  # another draw
    assert content_hash(drawn) != first


def test_a_process_using_a_suite_refuses_a_problem_it_has_not_drawn(tmp_path):
    from grader.problem import ProblemError, find_problem
    from grader.problem.catalogue import use_suite
    from grader.problem.suite import load_secret

    load_secret(tmp_path / "secret", create=True)
    use_suite(tmp_path)
    try:
        with pytest.raises(ProblemError, match="grader suite draw"):
            find_problem("value_and_grad_loss")
    finally:
        use_suite(None)
    assert find_problem("value_and_grad_loss").suite is None


def _stripped(tmp_path, pid: str, name: str | None = None):
    """A copy of ``pid``'s folder as a package built without hidden cases holds it: its plan
    file, no cases/hidden/."""
    return stripped_copy(tmp_path, pid, name)


def test_a_problem_without_its_hidden_cases_draws_the_same_suite_from_its_plan_file(tmp_path):
    from grader.authoring.suites import drawn_inputs
    from grader.problem import find_problem, load_problem
    from grader.problem.suite import plan, revision, stripped

    for pid in ("value_and_grad_loss", "spectral_norm_power_iteration"):  # generated; generated and recipes
        full = find_problem(pid)
        bare = load_problem(_stripped(tmp_path, pid))
        assert stripped(bare) and not stripped(full) and not any(c.hidden for c in bare.cases)
        assert plan(bare) == plan(full) and revision(bare) == revision(full)  # a suite drawn on either serves both
        assert drawn_inputs(bare, _secret(5), 0) == drawn_inputs(full, _secret(5), 0)


def test_validate_refuses_a_plan_file_that_does_not_list_the_hidden_cases(tmp_path):
    from grader.authoring.context import Validation
    from grader.authoring.validate import check_suite
    from grader.problem.suite import PLAN_FILE, plan_doc

    folder, load = _copy(tmp_path, "spectral_norm_power_iteration")
    doc = plan_doc(load(folder))
    (folder / "cases" / PLAN_FILE).write_text(json.dumps(doc))
    assert check_suite(Validation(load(folder), None))[0].status == "pass"
    doc["cases"] = doc["cases"][1:]
    (folder / "cases" / PLAN_FILE).write_text(json.dumps(doc))
    [finding] = check_suite(Validation(load(folder), None))
    assert finding.status == "fail" and PLAN_FILE in finding.message


def test_grade_and_batch_without_a_suite_refuse_a_problem_installed_without_its_hidden_cases(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from grader.cli import main
    from grader.problem.catalogue import PROBLEMS_ENV

    _stripped(tmp_path, "value_and_grad_loss", "bare_value_and_grad")
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path))
    (tmp_path / "subs").mkdir()
    shutil.copy(PROBLEMS / "value_and_grad_loss" / "reference.py", tmp_path / "subs" / "a.py")
    for args in (["grade", str(tmp_path / "subs" / "a.py")], ["batch", str(tmp_path / "subs")]):
        r = CliRunner().invoke(main, [*args, "--problem", "bare_value_and_grad"])
        assert r.exit_code == 2 and "ships without its hidden cases" in r.stderr and "--suite" in r.stderr, r.output
        assert r.stdout == ""  # no verdict from the public cases alone


def test_a_draw_without_the_shipped_hidden_cases_refuses_the_mutant_gate(tmp_path):
    from grader.authoring.suites import draw_suite
    from grader.problem import load_problem
    from grader.problem.suite import SuiteStore

    problem = load_problem(_stripped(tmp_path, "value_and_grad_loss"))
    store = SuiteStore(tmp_path / "suite", _secret(6))
    draw = draw_suite(problem, _secret(6), store, pool=None, mutation=object())  # refused before either is used
    assert not draw.passed and "--no-mutants" in draw.reasons[0]
    assert store.manifest(problem) is None


def test_serve_without_a_suite_refuses_to_start_with_a_problem_installed_without_its_hidden_cases(tmp_path,
                                                                                                     monkeypatch):
    from click.testing import CliRunner

    from grader.cli import main
    from grader.problem.catalogue import PROBLEMS_ENV

    _stripped(tmp_path, "value_and_grad_loss", "bare_value_and_grad")
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path))
    # A database it cannot open: were the refusal gone, the start would stop there rather than serve.
    (tmp_path / "a_file").write_text("")
    r = CliRunner().invoke(main, ["serve", "--db", f"sqlite:///{tmp_path / 'a_file' / 'judge.sqlite3'}"])
    assert r.exit_code == 2 and "bare_value_and_grad: installed without hidden cases" in r.stderr, r.output
    assert "--suite" in r.stderr


def test_every_grade_of_all_cases_of_a_stripped_problem_without_a_suite_is_ie_saying_to_draw_one(tmp_path):
    from grader.batch import Item, grade_item
    from grader.problem import load_problem

    problem = load_problem(_stripped(tmp_path, "value_and_grad_loss"))
    data = (PROBLEMS / "value_and_grad_loss" / "reference.py").read_bytes()
    # grade_item is what the local batch's pool and each Dask worker (grade_on_worker) run;
    # the refusal comes before the sandbox is used, so none is started here.
    report = grade_item(problem, Item("a.py", data, "0" * 64), sandbox=None)
    assert report["verdict"] == "IE" and "ships without its hidden cases" in report["message"]
    assert "grader suite draw --suite DIR" in report["message"] and not report["cases"]
    pytest.importorskip("sqlalchemy", reason="the service's grading needs the serve extra")
    from grader.service.queue.grading import grade_problem

    outcome = grade_problem(problem, "submit", data.decode(), "s1", None, feedback=False, strict=False)
    assert outcome.verdict == "IE" and "grader suite draw" in outcome.report["message"]


def test_grade_with_a_suite_on_a_stripped_problem_needs_no_shipped_hidden_case(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from grader.cli import main
    from grader.problem import load_problem
    from grader.problem.catalogue import PROBLEMS_ENV

    folder = _stripped(tmp_path, "value_and_grad_loss", "bare_value_and_grad")
    suite_id, ids = drawn_suite(tmp_path / "suite", load_problem(folder), "value_and_grad_loss", keep=3)
    monkeypatch.setenv(PROBLEMS_ENV, str(tmp_path))
    r = CliRunner().invoke(main, ["grade", str(PROBLEMS / "value_and_grad_loss" / "reference.py"), "--problem",
                                  "bare_value_and_grad", "--suite", str(tmp_path / "suite"), "--format", "json"])
    report = json.loads(r.stdout)
    assert r.exit_code == 0 and report["verdict"] == "AC" and report["suite"] == suite_id, r.output
    assert [c["id"] for c in report["cases"] if c["visibility"] == "hidden"] == ids


def test_a_problem_installed_without_its_hidden_cases_counts_as_many_as_its_plan_holds(tmp_path):
    from grader.problem import find_problem, load_problem
    from grader.problem.suite import hidden_count, with_suite

    shipped = find_problem("value_and_grad_loss")
    bare = load_problem(_stripped(tmp_path, "value_and_grad_loss"))
    assert hidden_count(shipped) == hidden_count(bare) == sum(c.hidden for c in shipped.cases) > 0
    drawn = with_suite(bare, [c for c in shipped.cases if c.hidden][:2], "s")
    assert hidden_count(drawn) == 2


# A drawn suite is sealed: each case and the record carry a MAC under the deployment's secret.

SEALED = "value_and_grad_loss"


def _sealed_suite(tmp_path, keep: int = 3):
    """A sealed suite of ``keep`` cases for the checkout's ``SEALED``, written as a draw writes
    it; its store, the problem and the cases' ids."""
    from grader.problem import find_problem
    from grader.problem.suite import SuiteStore, load_secret

    problem = find_problem(SEALED)
    _, ids = drawn_suite(tmp_path / "suite", problem, SEALED, keep=keep)
    store = SuiteStore(tmp_path / "suite", load_secret(tmp_path / "suite" / "secret"))
    assert [c.id for c in store.cases(problem)] == ids  # sealed as written: accepted
    return store, problem, ids


def _refused(store, problem, caplog, failing: str) -> str:
    """Asserts ``store`` treats ``problem``'s suite as not drawn, on every path that reads
    it, and that the log names the problem, the suite and ``failing`` (a file), never the
    secret. The log's text."""
    from grader.problem.suite import SuiteError, load_suite

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="grader"):
        assert store.manifest(problem) is None  # what grader suite draw and the server's start draw by
        with pytest.raises(SuiteError, match="no drawn suite for this revision.*passes its seal"):
            store.cases(problem)
        with pytest.raises(SuiteError, match="passes its seal"):
            load_suite(problem, store.root)  # what find_problem grades with under grader serve --suite
    lines = [r.getMessage() for r in caplog.records if r.name == "grader"]
    assert len(lines) == 3, lines
    for line in lines:
        assert problem.id in line and store.secret.id in line and failing in line, line
        assert store.secret.value.hex() not in line
    return lines[0]


def _flip_a_digit_of_the_input(path) -> None:
    data = bytearray(path.read_bytes())
    at = next(i for i in range(data.index(b'"input"'), len(data)) if chr(data[i]).isdigit())
    data[at] = ord("1") if data[at] != ord("1") else ord("2")
    path.write_bytes(bytes(data))


def test_a_drawn_case_with_one_byte_of_its_input_changed_on_disk_is_refused_logged_and_the_suite_not_drawn(
        tmp_path, caplog):
    store, problem, ids = _sealed_suite(tmp_path)
    changed = store.folder(problem) / "hidden" / f"{ids[1]}.json"
    _flip_a_digit_of_the_input(changed)
    json.loads(changed.read_text())  # still a readable case: only its seal tells
    assert "fails its MAC" in _refused(store, problem, caplog, str(changed))


def test_a_process_using_a_suite_refuses_a_problem_whose_drawn_case_was_changed(tmp_path, caplog):
    from grader.problem import ProblemError, find_problem
    from grader.problem.catalogue import use_suite

    store, problem, ids = _sealed_suite(tmp_path)
    _flip_a_digit_of_the_input(store.folder(problem) / "hidden" / f"{ids[0]}.json")
    use_suite(store.root)
    try:
        with caplog.at_level(logging.WARNING, logger="grader"), pytest.raises(ProblemError, match="passes its seal"):
            find_problem(SEALED)
    finally:
        use_suite(None)
    assert f"{ids[0]}.json" in caplog.text


def test_a_suite_that_fails_its_seal_is_drawn_again_by_grader_suite_draw_not_kept(tmp_path, monkeypatch):
    from grader.authoring import suites

    store, problem, ids = _sealed_suite(tmp_path)
    _flip_a_digit_of_the_input(store.folder(problem) / "hidden" / f"{ids[0]}.json")
    drawn: list[int] = []

    def draw_stand_in(problem, secret, store, pool, mutation, shipped, draw, log):  # the gate takes a minute
        drawn.append(draw.attempt)
        draw.macs = store.write_cases(problem, {"gen_000": '{"input": {}, "expected": {}}'})
        draw.ids = ["gen_000"]
        return None

    monkeypatch.setattr(suites, "_attempt", draw_stand_in)
    draw = suites.draw_suite(problem, store.secret, store, pool=None)
    assert drawn == [0] and draw.passed and not draw.kept
    assert [c.id for c in store.cases(problem)] == ["gen_000"]


def test_a_server_starting_on_a_suite_that_fails_its_seal_draws_it_again(tmp_path):
    pytest.importorskip("sqlalchemy", reason="the service's drawing needs the serve extra")
    from grader.service.queue.drawing import Drawing

    store, problem, ids = _sealed_suite(tmp_path)
    assert Drawing(store.root, [SEALED]).pending() == []
    _flip_a_digit_of_the_input(store.folder(problem) / "hidden" / f"{ids[0]}.json")
    assert Drawing(store.root, [SEALED]).pending() == [SEALED]


def test_two_drawn_case_files_swapped_on_disk_are_refused(tmp_path, caplog):
    store, problem, ids = _sealed_suite(tmp_path)
    a, b = (store.folder(problem) / "hidden" / f"{cid}.json" for cid in ids[:2])
    first, second = a.read_bytes(), b.read_bytes()
    a.write_bytes(second)
    b.write_bytes(first)
    assert "fails its MAC" in _refused(store, problem, caplog, str(a))


@pytest.mark.parametrize("move", ["slot", "problem", "revision"])
def test_a_case_moved_with_its_mac_to_another_slot_problem_or_revision_fails_its_seal(tmp_path, caplog, move):
    """Even in a record sealed with the moved MAC, a case's MAC holds only where it was
    drawn: its problem, its revision, its case id."""
    from grader.authoring.suites import Draw, _record
    from grader.problem import find_problem, load_problem
    from grader.problem.suite import SuiteStore, load_secret, revision

    store = SuiteStore(tmp_path / "suite", load_secret(tmp_path / "suite" / "secret", create=True))
    text = (next(c for c in find_problem(SEALED).cases if c.hidden)).path.read_text()
    if move == "revision":
        folder, load = _copy(tmp_path, SEALED)
        source = load(folder)
        mac = store.write_cases(source, {"gen_000": text})["gen_000"]
        (folder / "generator.py").write_text((folder / "generator.py").read_text() + "\n# a change\n")
        target, slot = load(folder), "gen_000"
    else:
        source = find_problem(SEALED)
        mac = store.write_cases(source, {"gen_000": text})["gen_000"]
        if move == "slot":
            target, slot = source, "gen_001"
        else:  # a copy under another name: the same revision, so only the problem's id tells them apart
            shutil.copytree(PROBLEMS / SEALED, tmp_path / "a_copy", ignore=shutil.ignore_patterns("__pycache__"))
            target, slot = load_problem(tmp_path / "a_copy"), "gen_000"
            assert revision(target) == revision(source)
    own = _written(store, target, [slot], text=text)[slot]
    assert store.manifest(target) is not None and own != mac  # the same bytes, sealed where they are
    _record(store, target, Draw(target.id, store.secret.id, passed=True, ids=[slot], macs={slot: mac}), 0.0)
    assert "fails its MAC" in _refused(store, target, caplog, f"{slot}.json")


def test_a_suite_copied_into_another_deployments_folder_fails_its_seal_under_that_secret(tmp_path, caplog):
    from grader.problem.suite import SuiteStore, load_secret

    store, problem, _ = _sealed_suite(tmp_path)
    other = SuiteStore(tmp_path / "other", load_secret(tmp_path / "other" / "secret", create=True))
    shutil.copytree(store.root / store.secret.id, other.root / other.secret.id)
    assert "fails its MAC" in _refused(other, problem, caplog, str(other.folder(problem) / "suite.json"))


def test_a_record_whose_list_of_cases_is_edited_fails_its_seal(tmp_path, caplog):
    store, problem, ids = _sealed_suite(tmp_path)
    record = store.folder(problem) / "suite.json"
    doc = json.loads(record.read_text())
    doc["cases"] = ids[1:]  # a hidden case left out: the suite is weaker, every case still sealed
    record.write_text(json.dumps(doc, indent=1))
    assert "fails its MAC" in _refused(store, problem, caplog, str(record))


def test_a_suite_drawn_before_suites_were_sealed_is_refused_and_the_log_says_why(tmp_path, caplog):
    store, problem, _ = _sealed_suite(tmp_path)
    record = store.folder(problem) / "suite.json"
    doc = json.loads(record.read_text())
    del doc["mac"], doc["macs"]  # the record as a draw wrote it before
    record.write_text(json.dumps(doc, indent=1))
    assert "drawn before drawn suites were sealed" in _refused(store, problem, caplog, str(record))


def test_a_drawn_suites_folders_are_the_owners_alone_and_wider_ones_are_tightened(tmp_path):
    from grader.problem import find_problem
    from grader.problem.suite import SuiteStore, load_secret

    problem = find_problem(SEALED)
    store = SuiteStore(tmp_path / "suite", load_secret(tmp_path / "suite" / "secret", create=True))
    revision_folder = store.folder(problem)
    (revision_folder / "hidden").mkdir(parents=True)
    levels = [revision_folder.parent.parent, revision_folder.parent, revision_folder, revision_folder / "hidden"]
    for folder in levels:
        os.chmod(folder, 0o755)  # made by an earlier version, or by hand
    drawn_suite(store.root, problem, SEALED, keep=2)
    assert [oct(f.stat().st_mode & 0o777) for f in levels] == [oct(0o700)] * 4
    assert {oct(f.stat().st_mode & 0o777) for f in revision_folder.rglob("*") if f.is_file()} == {oct(0o600)}
    shutil.rmtree(store.root / store.secret.id)
    with store.drawing(problem):  # a draw's first step makes them, as owner-only
        assert [oct(f.stat().st_mode & 0o777) for f in levels[:3]] == [oct(0o700)] * 3
        assert oct((revision_folder / "draw.lock").stat().st_mode & 0o777) == oct(0o600)


@pytest.mark.slow  # builds a problem's tables in a sandbox: about 15 s
def test_grader_warm_with_a_suite_builds_the_drawn_problems_tables_beside_the_suite_and_says_where(tmp_path):
    from grader.problem import load_problem
    from grader.problem.suite import revision

    folder = tmp_path / "suite"
    problem = load_problem(PROBLEMS / "value_and_grad_loss")
    suite, _ = drawn_suite(folder, problem, "value_and_grad_loss", keep=4)
    env = {**os.environ, "JAXJUDGE_CACHE": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-m", "grader", "warm", "value_and_grad_loss", "--suite", str(folder)],
                       cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    tables = folder / suite / "value_and_grad_loss" / revision(problem) / "tables"
    lines = r.stdout.splitlines()
    assert any(f"built into {tables / 'probe'}" in line for line in lines), r.stdout
    assert any("misconception of" in line and f"built into {tables / 'mistakes'}" in line for line in lines)
    assert not (tmp_path / "cache" / "probe").exists()  # none in the judge's own cache: they are the suite's
    again = subprocess.run([sys.executable, "-m", "grader", "warm", "value_and_grad_loss", "--suite", str(folder)],
                           cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert f"dependence probe table kept in {tables / 'probe'}" in again.stdout  # built once


def test_validate_refuses_a_stored_case_without_the_property_its_scenario_declares(tmp_path):
    from grader.authoring.context import Validation
    from grader.authoring.validate import check_suite

    folder, load = _copy(tmp_path, "pairwise_distances_vmap")
    [finding] = check_suite(Validation(load(folder), None))
    assert finding.status == "pass" and "each case of near_duplicates has the property it declares" in finding.message
    case = folder / "cases" / "hidden" / "gen_s2026_002.json"  # index 2: near_duplicates
    doc = json.loads(case.read_text())
    doc["input"]["b"] = [[v + 1.0 for v in row] for row in doc["input"]["b"]]  # no row near another now
    case.write_text(json.dumps(doc))
    [finding] = check_suite(Validation(load(folder), None))
    assert finding.status == "fail" and "gen_s2026_002" in finding.message and "near_duplicates" in finding.message


@pytest.mark.parametrize("byte", [1, 2])
def test_every_drawn_case_of_a_scenario_has_the_property_the_scenario_declares(byte):
    from grader.authoring.suites import drawn_inputs
    from grader.problem import find_problem
    from grader.problem.labels import lacking
    from grader.problem.modules import properties

    problem = find_problem("pairwise_distances_vmap")
    assert set(properties(problem)) == {"near_duplicates"}
    for attempt in range(3):
        assert lacking(problem, drawn_inputs(problem, _secret(byte), attempt)) is None


def test_a_draw_whose_scenario_case_lacks_its_property_is_refused_with_the_reason(tmp_path, monkeypatch):
    from grader.authoring import suites
    from grader.problem import find_problem
    from grader.problem.suite import SuiteStore

    problem = find_problem("pairwise_distances_vmap")
    real = suites.drawn_inputs

    def far_apart(problem, secret, attempt):  # every row of b moved away from every row of a
        return [(cid, {"a": raw["a"], "b": [[v + 1.0 for v in row] for row in raw["b"]]})
                for cid, raw in real(problem, secret, attempt)]

    monkeypatch.setattr(suites, "drawn_inputs", far_apart)
    secret = _secret(3)
    draw = suites.draw_suite(problem, secret, SuiteStore(tmp_path, secret), pool=None)
    assert not draw.passed and len(draw.reasons) == suites.MAX_ATTEMPTS
    assert "lacks the property of its scenario near_duplicates" in draw.reasons[0]
