"""A problem as its page shows it: the statement as HTML, the signature and what each
argument accepts, limits, requirements in words, and a starter stub. Built from the
trusted problem folder and kept until a file the page shows changes (a page load
must not parse every case file again)."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from ...judge.contract import statement_text
from ...problem import NAME_RE, ProblemError, all_problem_ids, load_problem, problem_folder
from ...problem.meta import Meta

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
    statement_html: str
    signature: str
    arguments: tuple[Argument, ...]
    dims: tuple[str, ...]
    returns: tuple[str, ...]
    limits: dict
    requirements: tuple[str, ...]
    public_cases: int
    hidden_cases: int
    starter: str = field(repr=False)


def _math_rule(state, silent: bool) -> bool:
    """``$...$`` becomes code, readable as written, instead of emphasis and escapes."""
    src, start = state.src, state.pos
    if src[start] != "$" or start + 1 >= state.posMax or src[start + 1] in " $":
        return False
    end = src.find("$", start + 1)
    if end < 0 or src[end - 1] == " ":
        return False
    if not silent:
        token = state.push("math_inline", "code", 0)
        token.content = src[start + 1:end]
        token.markup = "$"
    state.pos = end + 1
    return True


def _render_math(self, tokens, idx, options, env) -> str:
    from markdown_it.common.utils import escapeHtml

    return f'<code class="math">{escapeHtml(tokens[idx].content)}</code>'


def _markdown():
    from markdown_it import MarkdownIt

    # Raw HTML off: statements are trusted, but nothing in them needs markup of its own.
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.inline.ruler.before("escape", "math_inline", _math_rule)
    md.add_render_rule("math_inline", _render_math)
    return md


_MD = _markdown()


def statement_html(text: str) -> str:
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):  # the page shows the title itself
        lines = lines[1:]
    return _MD.render("\n".join(lines))


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
    text = statement_text(p)
    public = len(p.public_cases())
    return ProblemView(
        id=pid, title=meta.title, difficulty=meta.difficulty, tags=tuple(meta.tags),
        statement_html=statement_html(text),
        signature=f"def {meta.entry.name}({', '.join(meta.entry.args)})",
        arguments=tuple(_argument(n, meta.input_tree[n]) for n in meta.entry.args),
        dims=tuple(f"{d} from {lo} to {hi}" for d, (lo, hi) in meta.dims.items()), returns=_returns(meta),
        limits={"time per case": f"{meta.limits.time_seconds:g} s", "loading the module":
                f"{meta.limits.load_seconds:g} s", "memory": f"{meta.limits.memory_mb} MB",
                "output": f"{meta.limits.output_kb} KB"},
        requirements=requirement_words(meta), public_cases=public, hidden_cases=len(p.cases) - public,
        starter=starter(meta))


_CACHE: dict[str, tuple[tuple, ProblemView]] = {}
_LOCK = threading.Lock()


def _fingerprint(folder: Path) -> tuple:
    marks = [str(folder.resolve())]
    for rel in ("problem.toml", "statement.md", "cases/public", "cases/hidden"):
        try:
            st = (folder / rel).stat()
            marks.append((st.st_mtime_ns, st.st_size))
        except OSError:
            marks.append(None)
    return tuple(marks)


def problem_view(pid: str, known: list[str] | None = None) -> ProblemView | None:
    """None for an id that is not in the catalogue; ProblemError for a broken problem."""
    if not NAME_RE.match(pid) or pid not in (all_problem_ids() if known is None else known):
        return None
    folder = problem_folder(pid)
    key = _fingerprint(folder)
    with _LOCK:
        hit = _CACHE.get(pid)
    if hit is not None and hit[0] == key:
        return hit[1]
    view = build(pid, folder)
    with _LOCK:
        _CACHE[pid] = (key, view)
    return view


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
