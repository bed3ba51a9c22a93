"""A source as the token stream similarity compares: what survives renaming and reformatting.

Identifiers become ``V`` unless they name the language or a library (keywords, builtins,
attribute names after a dot, the usual module aliases such as ``jnp``, names imported with
``from M import name``, keyword arguments of calls); numbers become ``N`` and strings ``S``;
comments, blank lines, indentation and docstrings are dropped. Each token keeps its line, and
the top-level unit (a ``def``/``class`` with its decorators, or a run of other statements) it
belongs to, so that fingerprints never straddle two units and reordering them changes nothing.
A source that does not tokenize (a syntax error) is read on to its end by a plain regex."""
from __future__ import annotations

import builtins
import io
import keyword
import re
import tokenize
from dataclasses import dataclass

# Names a renamer leaves alone: library modules and their usual aliases.
LIBRARY_NAMES = frozenset({
    "jax", "jnp", "np", "numpy", "lax", "jsp", "scipy", "optax", "flax", "nn", "linen", "chex", "jtu", "tree_util",
    "random", "math", "functools", "partial", "itertools", "operator", "typing", "dataclasses", "collections",
})
_KEEP = (frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | LIBRARY_NAMES) - {"_"}
_DROP = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
_UNIT_START = {"def", "class", "async", "@"}
_FALLBACK = re.compile(r"""(?P<comment>\#[^\n]*)"""
                       r"""|(?P<string>[rRbBuUfF]{0,2}("(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?))"""
                       r"""|(?P<number>0[xXoObB][\da-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?[jJ]?)"""
                       r"""|(?P<name>[^\W\d]\w*)|(?P<op>\*\*=?|//=?|<<=?|>>=?|[-+*/%&|^@=!<>]=|->|:=|\.\.\.|[^\s\w])""")
_TRIPLE = re.compile(r"""[rRbBuUfF]{0,2}(\"\"\"|''').*?\1""")
_KINDS = {"comment": tokenize.COMMENT, "string": tokenize.STRING, "number": tokenize.NUMBER, "name": tokenize.NAME,
          "op": tokenize.OP}


@dataclass(frozen=True)
class Token:
    """One normalised token: its text (``V``, ``N``, ``S``, a keyword, an operator...),
    the lines it spans in its source, and the number of its top-level unit."""

    text: str
    line: int
    end_line: int
    unit: int


def _raw(source: str) -> list[tuple[int, str, int, int, int]]:
    """(type, string, first line, last line, column) of every token, by ``tokenize``; a source
    it cannot read whole (a syntax error) by ``_fallback`` instead."""
    try:
        return [(t.type, t.string, t.start[0], t.end[0], t.start[1])
                for t in tokenize.generate_tokens(io.StringIO(source).readline)]
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError, MemoryError):
        return _fallback(source)


def _fallback(source: str) -> list[tuple[int, str, int, int, int]]:
    """A regex lexer that reads what ``tokenize`` would, line by line: a statement ends at
    the end of a line outside brackets, a line inside a triple-quoted string is skipped, and
    an unclosed bracket is forgotten at the next line indented no further than the one that
    opened it."""
    out: list[tuple[int, str, int, int, int]] = []
    depth, in_triple, opened_at = 0, "", 0
    for number, line in enumerate(source.splitlines(), 1):
        if in_triple:
            if in_triple in line:
                in_triple, line = "", line.split(in_triple, 1)[1]
            else:
                continue
        indent = len(line) - len(line.lstrip())
        if depth and indent <= opened_at and line.strip()[:1] not in ("#", ")", "]", "}", ""):
            depth = 0  # continuation lines are indented further: the bracket was never closed
        line = _TRIPLE.sub('""', line)  # a triple-quoted string closed on its own line
        for quote in ('"""', "'''"):
            if quote in line:
                in_triple, line = quote, line.split(quote, 1)[0] + '""'
        joined = line.rstrip().endswith("\\")  # a backslash continues the statement
        line = line.rstrip().removesuffix("\\") if joined else line
        for m in _FALLBACK.finditer(line):
            kind = _KINDS[m.lastgroup or "op"]
            if kind == tokenize.OP and m.group() in ("(", "[", "{"):
                opened_at, depth = (indent if not depth else opened_at), depth + 1
            elif kind == tokenize.OP and m.group() in (")", "]", "}"):
                depth = max(depth - 1, 0)
            out.append((kind, m.group(), number, number, m.start()))
        if depth == 0 and not joined and line.strip():
            out.append((tokenize.NEWLINE, "\n", number, number, len(line)))
    return out


def _imported(raw: list[tuple[int, str, int, int, int]]) -> set[str]:
    """Names brought in by ``from M import a, b`` (not ``as``): a library's own names."""
    out: set[str] = set()
    first, importing = "", False
    for i, (kind, text, *_rest) in enumerate(raw):
        if kind == tokenize.NEWLINE:
            first, importing = "", False
            continue
        first = first or text
        around = (raw[i - 1][1], raw[i + 1][1] if i + 1 < len(raw) else "", text)
        if importing and kind == tokenize.NAME and "as" not in around:
            out.add(text)
        importing = importing or (first == "from" and text == "import")
    return out


def normalise(source: str) -> list[Token]:
    """The normalised tokens of ``source``, in order."""
    raw = [t for t in _raw(source) if t[0] not in _DROP and not (t[0] == tokenize.ERRORTOKEN and not t[1].strip())]
    keep = _KEEP | _imported(raw)
    out: list[Token] = []
    unit, depth, def_depth, line_start, in_fstring, decorated, in_def = 0, 0, -1, True, 0, False, False
    for i, (kind, text, line, end_line, col) in enumerate(raw):
        if kind == getattr(tokenize, "FSTRING_START", -1):
            in_fstring += 1
            if in_fstring == 1:
                out.append(Token("S", line, end_line, unit))
            continue
        if in_fstring:
            if kind == getattr(tokenize, "FSTRING_END", -1):
                in_fstring -= 1
            out[-1] = Token("S", out[-1].line, end_line, unit)
            continue
        if line_start and col == 0 and (text in _UNIT_START or in_def):
            unit += 0 if decorated else 1  # a decorated def belongs to the unit its decorators began
            decorated, in_def = text == "@", text in _UNIT_START
        nxt = raw[i + 1][1] if i + 1 < len(raw) else ""
        if kind == tokenize.NEWLINE:
            if not line_start:
                out.append(Token(";", line, end_line, unit))
            line_start = True
            continue
        if kind == tokenize.STRING and line_start and nxt in ("\n", ""):
            continue  # a docstring, or a string statement: words, not code
        line_start = False
        if kind == tokenize.OP and text in ("(", "[", "{"):
            depth += 1
            if out and len(out) > 1 and out[-2].text == "def":
                def_depth = depth
        elif kind == tokenize.OP and text in (")", "]", "}"):
            if depth == def_depth:
                def_depth = -1
            depth = max(0, depth - 1)
        if kind == tokenize.NAME:
            after_dot = bool(out) and out[-1].text == "."
            keyword_arg = depth > 0 and def_depth < 0 and nxt == "=" and bool(out) and out[-1].text in ("(", ",")
            text = text if text in keep or after_dot or keyword_arg else "V"
        elif kind == tokenize.NUMBER:
            text = "N"
        elif kind == tokenize.STRING:
            text = "S"
        out.append(Token(text, line, end_line, unit))
    return _unwrap(out)


def _unwrap(tokens: list[Token]) -> list[Token]:
    """Without the parentheses that change nothing: around a whole value (``return (a, b)``,
    ``x = (a, b)``) and doubled ones (``sum((v for v in vs))``)."""
    gone: set[int] = set()
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.text == "(":
            stack.append(i)
        elif tok.text == ")" and stack:
            start = stack.pop()
            before = tokens[start - 1].text if start else ";"
            after = tokens[i + 1].text if i + 1 < len(tokens) else ";"
            doubled = before == "(" and after == ")" and start - 1 not in gone
            if doubled or (before in ("return", "=", "yield", ";") and after in (";", "=")):
                gone |= {start, i}
    return [t for i, t in enumerate(tokens) if i not in gone]
