"""A matching region as rows of line pairs (``grader.similarity.align``): lines that agree once
renamed share a row and are marked, a line only one side has gets a row of its own, and the
context before a region ends level on both sides."""
from __future__ import annotations

from grader.similarity.align import Cell, Row, align

LEFT = "import jax\n\n\ndef f(x, y):\n    s = x + y\n    return s * 2\n"
RIGHT = "# mine\nimport jax\n\ndef g(a, b):\n    total = a + b\n    print(total)\n    return total * 2\n"


def test_lines_that_agree_once_renamed_share_a_marked_row_and_an_extra_line_gets_its_own():
    rows = align(LEFT, (4, 6), RIGHT, (4, 7), context=0)
    assert rows == [
        Row(Cell(4, "def f(x, y):", True), Cell(4, "def g(a, b):", True)),
        Row(Cell(5, "    s = x + y", True), Cell(5, "    total = a + b", True)),
        Row(Cell(None), Cell(6, "    print(total)")),
        Row(Cell(6, "    return s * 2", True), Cell(7, "    return total * 2", True)),
    ]


def test_context_before_a_region_ends_level_and_is_not_marked():
    rows = align(LEFT, (4, 4), RIGHT, (4, 4), context=2)
    assert [(r.left.line, r.right.line) for r in rows] == [(2, 2), (3, 3), (4, 4), (5, 5), (6, 6)]
    assert [r.left.shared for r in rows] == [False, False, True, False, False]
    rows = align(LEFT, (1, 1), RIGHT, (2, 2), context=2)  # nothing before the left's, a comment before the right's
    assert [(r.left.line, r.right.line, r.left.shared) for r in rows[:2]] == [(None, 1, False), (1, 2, True)]


def test_control_characters_show_as_escapes():
    rows = align("x = 1\x1b[2J\n", (1, 1), "y = 1\n", (1, 1), context=0)
    assert rows[0].left.text == "x = 1\\x1b[2J"
