"""A problem as its page shows it: the statement as HTML, cut into the story, its
requirements (with what the judge checks and runs), the constraints and worked
examples, and the hints one by one; the signature and what each argument accepts,
limits and a starter stub. Built from the trusted problem folder and kept until a
file the page shows changes (a page load must not parse every case file again)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...judge.contract import HEADING, contract_section
from ...problem import NAME_RE, ProblemError, all_problem_ids, load_problem, problem_folder
from ...problem.meta import Meta
from ...problem.suite import hidden_count
from .folder_cache import FolderCache

ACCEPTS = {"array": "array", "float": "number", "int": "number"}


@dataclass(frozen=True)
class Argument:
    name: str
    accepts: str  # object | array | number, as the seed's page names them
    detail: str


@dataclass(frozen=True)
class ProblemView:
    id: str
    title: str
    difficulty: str
    tags: tuple[str, ...]
    statement_html: str  # the story: the statement up to its requirements
    requirements_html: str  # the statement's own "## Requirements", "" if it has none
    contract_html: str  # what the judge runs (judge.contract), as the text statement has it
    details_html: str  # the rest: constraints, worked examples
    hints: tuple[str, ...]  # one HTML fragment per hint, in order
    signature: str
    arguments: tuple[Argument, ...]
    dims: tuple[str, ...]
    returns: tuple[str, ...]
    limits: dict
    requirements: tuple[str, ...]
    public_cases: int
    hidden_cases: int
    starter: str = field(repr=False)


def _render_math(self, tokens, idx, options, env) -> str:
    """The TeX source as text, for static/math.js to draw; readable as it is without it."""
    from markdown_it.common.utils import escapeHtml

    token = tokens[idx]
    tex = escapeHtml(token.content.strip())
    if token.type == "math_inline":
        return f'<span class="math inline">{tex}</span>'
    if token.type == "math_inline_double":  # $$...$$ inside a paragraph, where a div cannot go
        return f'<span class="math display">{tex}</span>'
    return f'<div class="math display">{tex}</div>\n'


def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    # Raw HTML off: statements are trusted, but nothing in them needs markup of its own.
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    # No space inside the dollars, so "costs $5 and $6" stays text. allow_digits stays on:
    # off, the plugin reads the character before a "$" that starts the text from its end.
    md.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=True, allow_blank_lines=False,
           double_inline=True)
    for rule in ("math_inline", "math_inline_double", "math_block"):
        md.add_render_rule(rule, _render_math)
    return md


_MD = _markdown()


def _untitled(text: str) -> str:
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):  # the page shows the title itself
        lines = lines[1:]
    return "\n".join(lines)


def statement_html(text: str) -> str:
    return _MD.render(_untitled(text))


def sentence_html(text: str) -> str:
    """One sentence of a statement, quoted on a page without KaTeX (the class insight):
    its math as plain text (``report.math_text``), its Markdown as inline HTML."""
    from ...report.math_text import statement_for_terminal

    return _MD.renderInline(statement_for_terminal(text))


@dataclass(frozen=True)
class StatementParts:
    story: str
    requirements: str
    details: str
    hints: tuple[str, ...]


@dataclass(frozen=True)
class _Section:
    heading: str  # "" for the text before the first section
    text: str  # heading line included
    body: str


def _sections(text: str) -> list[_Section]:
    """The level-2 sections, found in the parsed tokens so that a "## " line inside
    code is not taken for a heading."""
    lines = text.splitlines()
    tokens = _MD.parse(text)
    heads = [(tok.map, tokens[i + 1].content.strip()) for i, tok in enumerate(tokens)
             if tok.type == "heading_open" and tok.tag == "h2" and tok.level == 0 and tok.map]
    first = heads[0][0][0] if heads else len(lines)
    out = [_Section("", "\n".join(lines[:first]), "\n".join(lines[:first]))]
    for n, ((start, after), heading) in enumerate(heads):
        end = heads[n + 1][0][0] if n + 1 < len(heads) else len(lines)
        out.append(_Section(heading, "\n".join(lines[start:end]), "\n".join(lines[after:end])))
    return out


def hints_html(markdown: str) -> tuple[str, ...]:
    """Each item of the hints' list as HTML of its own; any other block is a hint too."""
    env: dict = {}
    tokens = _MD.parse(markdown, env)

    def html(start: int, stop: int) -> str:
        return _MD.renderer.render(tokens[start:stop], _MD.options, env).strip()

    out, i = [], 0
    while i < len(tokens):
        end = _close(tokens, i)
        if tokens[i].type in ("bullet_list_open", "ordered_list_open"):
            out += [html(j + 1, _close(tokens, j)) for j in range(i + 1, end)
                    if tokens[j].type == "list_item_open" and tokens[j].level == tokens[i].level + 1]
        else:
            out.append(html(i, end + 1))
        i = end + 1
    return tuple(h for h in out if h)


def _close(tokens, i: int) -> int:
    """The index of the token that closes tokens[i] (i itself for a token that opens nothing)."""
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def statement_parts(text: str) -> StatementParts:
    """The statement cut for the page: the story up to "## Requirements" (or, without
    one, up to the constraints or examples), that section's body, the sections after it
    but "## Hints", and the hints."""
    sections = _sections(_untitled(text))
    headings = [s.heading for s in sections]
    if "Requirements" in headings:
        cut = headings.index("Requirements")
    else:
        cut = next((i for i, h in enumerate(headings) if h.startswith("Constraints") or h.endswith("xamples")),
                   len(sections))
    story = [s.text for s in sections[:cut] if s.heading != "Hints"]
    details = [s.text for s in sections[cut:] if s.heading not in ("Requirements", "Hints")]
    requirements = "\n".join(s.body for s in sections if s.heading == "Requirements")
    hints = tuple(h for s in sections if s.heading == "Hints" for h in hints_html(s.body))
    return StatementParts(story=_MD.render("\n".join(story)),
                          requirements=_MD.render(requirements) if requirements.strip() else "",
                          details=_MD.render("\n".join(details)), hints=hints)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _shape(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _range(spec: dict) -> str:
    lo, hi = spec.get("min"), spec.get("max")
    return f", values in [{lo:g}, {hi:g}]" if lo is not None and hi is not None else ""


def _leaf(spec: dict) -> str:
    if spec["kind"] == "array":
        return f"{spec['dtype']} array of shape {_shape(spec['shape'])}{_range(spec)}"
    return f"{'Python float' if spec['kind'] == 'float' else 'Python int'}{_range(spec)}"


def _argument(name: str, spec: dict) -> Argument:
    if "kind" in spec:
        return Argument(name, ACCEPTS[spec["kind"]], _leaf(spec))
    fields = "; ".join(f"{k}: {_leaf(v) if 'kind' in v else 'object'}" for k, v in spec.items())
    return Argument(name, "object", f"a dict with {fields}")


def _returns(meta: Meta) -> tuple[str, ...]:
    return tuple(f"{'.'.join(o.path)}: {o.dtype} of shape {_shape(o.shape)} (atol {o.atol:g}, rtol {o.rtol:g})"
                 for o in meta.outputs)


def _skeleton(tree) -> str:
    if isinstance(tree, dict) and "dtype" not in tree:
        return "{" + ", ".join(f'"{k}": {_skeleton(v)}' for k, v in tree.items()) + "}"
    return f"<{tree['dtype']} {_shape(tree.get('shape', []))}>"


def requirement_words(meta: Meta) -> tuple[str, ...]:
    r = meta.requirements
    out = []
    if r.calls:
        out.append("Your code must call " + " and ".join(r.calls) + " while it runs.")
    for chain in r.nest:
        out.append(f"{chain[0]} must be applied to a function that calls " + ", which calls ".join(chain[1:]) + ".")
    if r.forbid:
        out.append("Do not use " + ", ".join(r.forbid) + ".")
    if r.depends:
        source = " of ".join(r.perturbed) if r.perturbed else "the required transform"
        many = "s" if len(r.depends) > 1 else ""
        out.append(f"The output{many} {', '.join(r.depends)} must be computed from the result of {source}.")
    if r.vectorized:
        out.append("Vectorise: the program must not grow with " + ", ".join(r.vectorized) + " (no Python loop over "
                   "them).")
    if r.traced:
        out.append("The function must run under jax.jit with traced arguments: no Python branching on values.")
    return tuple(out)


def starter(meta: Meta) -> str:
    args = ", ".join(meta.entry.args)
    accepts = ", ".join(f"{a.name}: {a.accepts}" for a in (_argument(n, meta.input_tree[n]) for n in meta.entry.args))
    return (f"import jax\nimport jax.numpy as jnp\n\n\ndef {meta.entry.name}({args}):\n"
            f'    """{accepts}.\n\n    Returns {_skeleton(meta.output_tree)}.\n    """\n'
            f"    # Your code here.\n    pass\n")


def build(pid: str, folder: Path) -> ProblemView:
    p = load_problem(folder)
    meta = p.meta
    parts = statement_parts(_read(p.statement_path))
    public = len(p.public_cases())
    return ProblemView(
        id=pid, title=meta.title, difficulty=meta.difficulty, tags=tuple(meta.tags),
        statement_html=parts.story, requirements_html=parts.requirements,
        contract_html=_MD.render(contract_section(meta).removeprefix(HEADING)), details_html=parts.details,
        hints=parts.hints,
        signature=f"def {meta.entry.name}({', '.join(meta.entry.args)})",
        arguments=tuple(_argument(n, meta.input_tree[n]) for n in meta.entry.args),
        dims=tuple(f"{d} from {lo} to {hi}" for d, (lo, hi) in meta.dims.items()), returns=_returns(meta),
        limits={"time per case": f"{meta.limits.time_seconds:g} s", "loading the module":
                f"{meta.limits.load_seconds:g} s", "memory": f"{meta.limits.memory_mb} MB",
                "output": f"{meta.limits.output_kb} KB"},
        requirements=requirement_words(meta), public_cases=public, hidden_cases=hidden_count(p),
        starter=starter(meta))


_KEPT: FolderCache[ProblemView] = FolderCache(("problem.toml", "statement.md", "cases/public", "cases/hidden"))


def problem_view(pid: str, known: list[str] | None = None) -> ProblemView | None:
    """None for an id that is not in the catalogue; ProblemError for a broken problem."""
    if not NAME_RE.match(pid) or pid not in (all_problem_ids() if known is None else known):
        return None
    return _KEPT.get(pid, problem_folder(pid), build)


def all_views() -> list[ProblemView]:
    out, known = [], all_problem_ids()
    for pid in known:
        try:
            view = problem_view(pid, known)
        except ProblemError:
            continue  # a broken problem is the authors' business (grader validate), not the learners'
        if view is not None:
            out.append(view)
    return out
