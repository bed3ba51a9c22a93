"""The command line contract: exit codes, JSON fields, clear errors for bad input."""
import json
import subprocess
import sys

import pytest

from support import ROOT, SUBMISSIONS, console_script

P1 = "per_example_grad_clipping"


def grader(*args, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=env)


def test_accepted_json_report_and_exit_0():
    r = grader("grade", str(SUBMISSIONS / P1 / "accepted" / "flat_norm.py"), "--problem", P1, "--format", "json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["verdict"] == "AC" and report["problem"] == P1
    assert {"problem", "submission", "verdict", "static_checks", "cases"} <= set(report)
    case = report["cases"][0]
    assert {"id", "visibility", "verdict", "reason", "message", "time_ms"} <= set(case)
    assert {c["visibility"] for c in report["cases"]} == {"public", "hidden"}
    assert all({"name", "passed", "message"} <= set(c) for c in report["static_checks"])


@pytest.mark.slow
def test_wrong_answer_text_report_and_exit_1():
    r = grader("grade", str(SUBMISSIONS / P1 / "wrong_answer" / "norm_without_bias.py"), "--problem", P1)
    assert r.returncode == 1
    assert r.stdout.startswith("WA Wrong Answer")
    assert "expected:" in r.stdout and "worst:" in r.stdout and "wrong value" in r.stdout


@pytest.mark.parametrize("args, words", [
    (["grade", "nope.py", "--problem", P1], "no such file"),
    (["grade", "README.md", "--problem", "no_such_problem"], "no such problem"),
    (["grade", "README.md", "--problem", "../etc"], "problem id"),
    (["grade", "README.md", "--problem", P1, "--format", "xml"], "Invalid value"),
    (["grade", "README.md"], "Missing option"),
    (["validate", "no_such_problem"], "no such problem"),
    (["generate", P1, "--count", "0", "--seed", "1"], "Invalid value"),
    (["add-case", P1, "missing.json"], "no such file"),
])
def test_usage_errors_exit_2_without_a_traceback(args, words):
    r = grader(*args)
    assert r.returncode == 2
    assert words in r.stderr
    assert "Traceback" not in r.stderr


def test_a_submission_that_is_not_utf8_or_too_large_is_a_compile_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"\xff\xfe\x00garbage")
    big = tmp_path / "big.py"
    big.write_bytes(b"x = 1\n" * (256 * 1024 // 6 + 1))
    for path, words in ((bad, "not UTF-8 text (byte 0)"), (big, "larger than 256 KiB")):
        r = grader("grade", str(path), "--problem", P1, "--format", "json")
        report = json.loads(r.stdout)
        assert r.returncode == 1 and report["verdict"] == "CE" and words in report["message"], r.stdout[-500:]


def test_a_submission_the_judge_cannot_open_is_a_usage_error(tmp_path):
    r = grader("grade", str(tmp_path), "--problem", P1)  # a folder, not a file
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_list_and_show():
    r = grader("list")
    assert r.returncode == 0 and P1 in r.stdout and "medium" in r.stdout
    r = grader("show", P1)
    assert r.returncode == 0 and "Per-Example Gradient Clipping" in r.stdout


def test_show_prints_the_statements_math_as_text_not_as_markdown_read_it():
    r = grader("show", "hessian_vector_product")
    out = r.stdout.replace("\xa0", " ")
    assert r.returncode == 0 and "H(w) v" in out and "H(w),v" not in out  # TeX's \, is a space, not a comma
    assert "λ ≥ 0" in out and "f(w) = 1/N Σₙ (softplus(zₙ) - yₙ zₙ) + 1/2 λ ‖w‖²" in out
    assert "$" not in out and "\\" not in out


def test_python_dash_m_and_console_script_print_the_same_help():
    script = subprocess.run([console_script("grader"), "--help"], capture_output=True, text=True)
    module = subprocess.run([sys.executable, "-m", "grader", "--help"], capture_output=True, text=True)
    assert script.returncode == module.returncode == 0 and "grade" in script.stdout
    assert script.stdout.split("\n", 1)[1] == module.stdout.split("\n", 1)[1]  # all but the usage line's name


def test_every_command_another_module_defines_is_reachable_by_its_name_and_listed():
    import click

    from grader.authoring.commands import COMMANDS as AUTHORING
    from grader.cli import LAZY_COMMANDS, main
    from grader.export.command import export
    from grader.service.commands import COMMANDS as SERVICE

    defined = {c.name: c for c in [*AUTHORING, export, *SERVICE]}
    assert set(LAZY_COMMANDS) == set(defined)  # a command added to a COMMANDS list is added here too
    ctx = click.Context(main)
    assert set(defined) <= set(main.list_commands(ctx))
    assert all(main.get_command(ctx, name) is command for name, command in defined.items())
    assert main.get_command(ctx, "no-such-command") is None


def test_new_scaffold_then_validate_explains(tmp_path):
    (tmp_path / "problems").mkdir()
    r = grader("new", "toy_problem", cwd=tmp_path)
    assert r.returncode == 0 and "next steps" in r.stdout
    assert grader("new", "toy_problem", cwd=tmp_path).returncode == 2
    v = grader("validate", "toy_problem", cwd=tmp_path)
    assert v.returncode == 1 and "FAIL cases: no public case" in v.stdout and "PASS metadata" in v.stdout


@pytest.mark.slow
def test_text_report_escapes_submission_markup(tmp_path):
    sub = tmp_path / "markup.py"
    sub.write_text("import jax\n\ndef per_example_grad_clip(params, x, y, max_norm):\n"
                   "    jax.vmap(jax.grad(lambda p: p.sum()))(x)\n    raise ValueError('[/oops] [red]x')\n")
    r = grader("grade", str(sub), "--problem", P1, "--no-feedback")
    assert r.returncode == 1 and "[/oops] [red]x" in r.stdout and "Traceback" not in r.stderr


def test_new_writes_to_the_first_author_folder_else_to_the_working_folder(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k != "JAXJUDGE_PROBLEMS"}
    work = tmp_path / "work"
    work.mkdir()
    r = grader("new", "toy_here", cwd=work, env=env)  # no problems/ above: ./problems, not the checkout's
    assert r.returncode == 0, r.stderr
    assert (work / "problems" / "toy_here" / "problem.toml").is_file()
    assert not (ROOT / "problems" / "toy_here").exists()
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    r = grader("--problems", str(first), "--problems", str(second), "new", "toy_first", cwd=work, env=env)
    assert r.returncode == 0, r.stderr
    assert (first / "toy_first" / "problem.toml").is_file() and not (second / "toy_first").exists()
    # Both author folders are searched (repeatable --problems): a problem in the second is found.
    r = grader("--problems", str(first), "--problems", str(work / "problems"), "list", cwd=tmp_path, env=env)
    assert r.returncode == 0 and "toy_here" in r.stdout and "toy_first" in r.stdout
