"""Validate check: each wrong answer's ``# misreads:`` line quotes its problem's
statement. A quote the statement does not hold fails (the class-insight page would show
a sentence learners never read); a wrong answer with a ``# hint:`` but no ``# misreads:``
warns. It reads the corpus, so it runs only when the corpus is (not under
``--no-submissions``, whose kept proofs do not cover the corpus's files)."""
from __future__ import annotations

from ..common.verdicts import Verdict
from ..problem.corpus import occurs_in, submission_files
from .context import Validation, Finding

CHECK = "misreads"


def check_misreads(ctx: Validation) -> list[Finding]:
    if not ctx.with_submissions:
        return []
    p = ctx.problem
    hinted = [e for e in submission_files(p) if e.verdict is Verdict.WA and e.hint]
    if not hinted:
        return []
    try:
        statement = p.statement_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Finding(CHECK, "fail", f"statement.md cannot be read: {exc}")]
    out = []
    for exp in hinted:
        name = f"{exp.path.parent.name}/{exp.path.name}"
        if exp.misreads is None:
            out.append(Finding(CHECK, "warn", f"{name} has a '# hint:' but no '# misreads:' line (the sentence of "
                                              "statement.md its mistake misreads)"))
        elif not occurs_in(exp.misreads, statement):
            out.append(Finding(CHECK, "fail", f"{name}: its '# misreads:' text is not in statement.md: "
                                              f"{exp.misreads!r}"))
    if not out:
        out.append(Finding(CHECK, "pass", f"the {len(hinted)} hinted wrong answer(s) each quote statement.md"))
    return out
