"""Validate check: ``editorial.md``, when present, is UTF-8, has a ``# `` title and a
body, and renders as the site renders it. A problem without one, or with the template
``grader new`` wrote still in place, is a warning: an editorial is optional."""
from __future__ import annotations

from .context import Validation, Finding
from .scaffold import EDITORIAL_TEMPLATE_MARK

CHECK = "editorial"


def check_editorial(ctx: Validation) -> list[Finding]:
    p = ctx.problem
    path = p.editorial_path
    if not path.is_file():
        shown = "; learners who solve it see the reference alone" if p.meta.show_reference else ""
        return [Finding(CHECK, "warn", f"no editorial.md (optional: learners read it after an accepted Submit){shown}")]
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [Finding(CHECK, "fail", f"editorial.md cannot be read as UTF-8 text: {exc}")]
    if not text.strip():
        return [Finding(CHECK, "fail", "editorial.md is empty")]
    lines = text.splitlines()
    # The site drops the first line when it is the title, as for statement.md.
    if not lines[0].startswith("# ") or not lines[0][2:].strip():
        return [Finding(CHECK, "fail", "editorial.md must start with a '# ' title line")]
    body = "\n".join(lines[1:])
    if not body.strip():
        return [Finding(CHECK, "fail", "editorial.md holds only its title")]
    out, note = _render_problems(body)
    if EDITORIAL_TEMPLATE_MARK in text:
        out.append(Finding(CHECK, "warn", "editorial.md is still the template: write it and delete the line "
                                          "that says it is a template, or delete the file"))
    if not out:
        out.append(Finding(CHECK, "pass", f"editorial.md renders ({len(text.split())} words){note}"))
    return out


def _render_problems(body: str) -> tuple[list[Finding], str]:
    """What would show wrongly on the site: a code fence left open (it swallows the rest
    of the page) fails, raw HTML (the site shows it as text) warns. Also a note for the
    pass message when the renderer is missing."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # it comes with the serve extra, which renders the pages
        return [], " (rendering not checked: markdown-it-py, of the serve extra, is not installed)"
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(body)
    lines = body.splitlines()
    out = []
    for token in tokens:
        if token.type == "fence" and token.map and not _closed(lines, token.map, token.markup):
            out.append(Finding(CHECK, "fail", f"editorial.md line {token.map[0] + 2}: a code fence is never closed"))
    html = [t for t in tokens if t.type == "html_block"
            or t.type == "inline" and any(c.type == "html_inline" for c in t.children or ())]
    if html:
        at = html[0].map[0] + 2 if html[0].map else 2
        out.append(Finding(CHECK, "warn", f"editorial.md line {at}: raw HTML is shown as text on the site "
                                          "(use Markdown only)"))
    return out, ""


def _closed(lines: list[str], span: list[int], markup: str) -> bool:
    start, end = span
    if end - start < 2 or end > len(lines):
        return False
    last = lines[end - 1].strip()
    return last.startswith(markup) and set(last) == {markup[0]}
