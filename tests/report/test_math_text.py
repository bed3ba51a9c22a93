"""``grader show``'s math: a statement's TeX as plain text a terminal shows legibly, found
where the web's renderer finds it and never inside code."""
from __future__ import annotations

import pytest
from rich.console import Console
from rich.markdown import Markdown

from grader.report.math_text import _DISPLAY, _INLINE, statement_for_terminal, tex_lines
from support import PROBLEMS


@pytest.mark.parametrize("tex, text", [
    (r"H(w)\,v", "H(w) v"),
    (r"\lambda \ge 0", "λ ≥ 0"),
    (r"D \times D", "D × D"),
    (r"\mathrm{norm}_n = \lVert g_n \rVert_2", "normₙ = ‖gₙ‖₂"),
    (r"\sigma = u^\top W v", "σ = uᵀ W v"),
    (r"N = n_0 + \dots + n_{B-1}", "N = n₀ + … + n_(B-1)"),  # B has no subscript letter: brackets
    (r"\frac{1}{2N} \sum_n x_n^2", "1/(2N) Σₙ xₙ²"),
    (r"\sqrt{\hat\nu} + \epsilon", "√ν̂ + ε"),
    (r"\text{max\_norm} / \text{global\_norm}", "max_norm / global_norm"),
    (r"\unknowncommand{x_1}", r"\unknowncommand{x₁}"),  # what it does not know stays as written
])
def test_a_formula_reads_as_plain_text(tex, text):
    assert tex_lines(tex) == [text]


def test_the_rows_of_cases_and_aligned_stay_on_lines_of_their_own_with_columns_level():
    cases = r"\frac{dq}{dx} := \begin{cases} 1 & \text{if } |x| \le 1 \\ 0 & \text{otherwise} \end{cases}"
    assert tex_lines(cases) == [
        "dq/dx := { 1  if |x| ≤ 1",
        "         { 0  otherwise"]
    assert tex_lines(r"\begin{aligned} \mu &= b_1 \mu \\ \hat\mu &= \mu / (1 - b_1^t) \end{aligned}") == [
        "μ = b₁ μ", "μ̂ = μ / (1 - b₁ᵗ)"]  # the hat takes no column


def _shown(markdown: str) -> str:
    console = Console(width=200, record=True, color_system=None)
    console.print(Markdown(markdown))
    return console.export_text().replace("\xa0", " ")


def test_markdown_shows_the_math_literally_and_leaves_code_and_prices_alone():
    text = "The product $H(w)\\,v$ of $a_i * b_i$; it costs $5 and $6.\n\n`$x_1$` stays\n\n```\n$y$\n```\n"
    shown = _shown(statement_for_terminal(text))
    assert "The product H(w) v of aᵢ * bᵢ; it costs $5 and $6." in shown
    assert "$x_1$ stays" in shown and "$y$" in shown


def test_every_formula_of_the_catalogue_is_written_without_tex():
    for statement in sorted(PROBLEMS.glob("*/statement.md")):
        text = statement.read_text(encoding="utf-8")
        for m in [*_DISPLAY.finditer(text), *_INLINE.finditer(_DISPLAY.sub("", text))]:
            assert not any("\\" in line for line in tex_lines(m.group(1))), (statement.parent.name, m.group(1))
