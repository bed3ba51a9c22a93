"""``grader similar``: the text and JSON reports, the empty and missing cases, and hostile
submissions (markup, terminal escapes, huge files, links) that must print literally or be skipped."""
from __future__ import annotations

import json

from click.testing import CliRunner

from support import P1, SUBMISSIONS
from grader.cli import main

ACCEPTED = SUBMISSIONS / P1 / "accepted"
FLAT = (ACCEPTED / "flat_norm.py").read_text()


def run(*args: str):
    return CliRunner().invoke(main, ["similar", *args, "--problem", P1])


def corpus(folder, copies) -> None:
    _, disguise = copies
    for path in sorted(ACCEPTED.glob("*.py")):
        (folder / path.name).write_text(path.read_text())
    (folder / "zz_copy.py").write_text(disguise(FLAT, "per_example_grad_clip"))


def test_text_report_ranks_the_copy_first_with_regions_side_by_side(tmp_path, copies):
    corpus(tmp_path, copies)
    done = run(str(tmp_path), "--top", "3")
    assert done.exit_code == 0, done.output
    out = done.output
    assert "never a verdict" in out and "Jaccard index" in out
    first = next(line for line in out.splitlines() if line.lstrip().startswith("1 "))
    assert "flat_norm.py" in first and "zz_copy.py" in first and "1.00" in first
    side_by_side = [line for line in out.splitlines() if "jnp.concatenate" in line and "q2_talf" in line]
    assert side_by_side, out  # the original's line and the copy's on one row
    assert "(top 3 of" in out


def test_json_report_is_the_dataclasses(tmp_path, copies):
    corpus(tmp_path, copies)
    done = run(str(tmp_path), "--format", "json", "--top", "2", "--min-score", "0.1")
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["problem"] == P1 and report["submissions"] == len(list(ACCEPTED.glob("*.py"))) + 1
    assert "never a verdict" in report["note"]
    best = report["pairs"][0]
    assert (best["left"], best["right"], best["score"]) == ("flat_norm.py", "zz_copy.py", 1.0)
    match = best["matches"][0]
    assert set(match) == {"left_file", "left_lines", "right_file", "right_lines", "fingerprints"}
    assert len(match["left_lines"]) == 2 and match["left_lines"][0] <= match["left_lines"][1]
    assert all(p["score"] >= 0.1 for p in report["pairs"]) and len(report["pairs"]) <= 2
    assert report["fingerprints_from_starter"] > 0 and report["k"] == 12


def test_a_folder_with_one_file_gives_an_empty_report(tmp_path):
    (tmp_path / "only.py").write_text(FLAT)
    done = run(str(tmp_path))
    assert done.exit_code == 0 and "Nothing to compare: 1 submission(s) found" in done.output
    report = json.loads(run(str(tmp_path), "--format", "json").output)
    assert report["submissions"] == 1 and report["pairs"] == []


def test_unrelated_files_give_no_pair_and_say_so(tmp_path):
    (tmp_path / "a.py").write_text("import jax\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    done = run(str(tmp_path))
    assert done.exit_code == 0 and "No two submissions share code" in done.output


def test_a_missing_folder_is_a_click_error(tmp_path):
    done = run(str(tmp_path / "nope"))
    assert done.exit_code == 2 and "does not exist" in done.output


def test_an_unknown_problem_is_one_clear_error(tmp_path):
    done = CliRunner().invoke(main, ["similar", str(tmp_path), "--problem", "no_such_problem"])
    assert done.exit_code == 2 and "no such problem" in done.output


def test_hostile_text_prints_literally(tmp_path):
    evil = FLAT.replace('    mean = clipped.mean(axis=0)\n',
                        '    mean = clipped.mean(axis=0)  # [bold red]x[/bold red] \x1b[2J :smile:\n'
                        '    tag = "[link=http://e.test]click[/link]\x1b[31m"\n    z = "\x1b]0;owned\x07"\n')
    (tmp_path / "[red]one.py").write_text(evil)
    (tmp_path / "two\x1b[1m.py").write_text(evil)
    done = run(str(tmp_path))
    assert done.exit_code == 0, done.output
    out = done.output
    assert "\x1b" not in out and "\x07" not in out
    assert "[bold red]x[/bold red] \\x1b[2J :smile:" in out and '"\\x1b]0;owned\\x07"' in out
    assert "[link=http://e.test]click[/link]\\x1b[31m" in out
    assert "[red]one.py" in out and "two\\x1b[1m.py" in out


def test_large_files_links_and_other_files_are_skipped_with_a_note(tmp_path):
    (tmp_path / "a.py").write_text(FLAT)
    (tmp_path / "b.py").write_text(FLAT)
    (tmp_path / "huge.py").write_text("x = 1\n" * 60_000)
    (tmp_path / "link.py").symlink_to(tmp_path / "a.py")
    (tmp_path / "notes.txt").write_text("hello")
    done = run(str(tmp_path), "--format", "json")
    report = json.loads(done.output)
    reasons = {s["name"]: s["reason"] for s in report["skipped"]}
    assert report["submissions"] == 2 and "larger than 256 KiB" in reasons["huge.py"]
    assert "link" in reasons["link.py"] and "not a .py" in reasons["notes.txt"]
    assert "skipped huge.py: larger than 256 KiB" in run(str(tmp_path)).output


def test_notebooks_and_folders_per_learner_are_read(tmp_path):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# My work"]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
              "source": ["!pip install jax\n", *FLAT.splitlines(keepends=True)]}]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "learner").mkdir()
    head, loss, entry = FLAT.split("\n\n\n")
    (tmp_path / "learner" / "helpers.py").write_text(head + "\n\n\n" + loss + "\n")
    (tmp_path / "learner" / "main.py").write_text(head + "\n\n\n" + entry + "\n")
    report = json.loads(run(str(tmp_path), "--format", "json").output)
    assert report["submissions"] == 2 and report["pairs"][0]["score"] > 0.9, report
    assert {m["left_file"] for m in report["pairs"][0]["matches"]} <= {"helpers.py", "main.py"}
    assert report["pairs"][0]["left"] == "learner" and report["pairs"][0]["right"] == "nb.ipynb"


def test_an_extra_starter_file_is_left_out(tmp_path):
    (tmp_path / "a.py").write_text(FLAT)
    (tmp_path / "b.py").write_text(FLAT)
    handout = tmp_path.parent / f"{tmp_path.name}_handout.py"
    handout.write_text(FLAT)
    report = json.loads(run(str(tmp_path), "--format", "json", "--starter", str(handout)).output)
    assert report["pairs"] == [] and report["fingerprints_from_starter"] > 0
