"""The static checks stage, on the submission's syntax tree: it parses, it keeps to
the language policy, it defines the entry, it imports only allowed modules, it
uses the transforms the problem requires and none it forbids.

Names are resolved through the file's own imports and simple aliases
(``import jax as J``, ``from jax import vmap as v``, ``g = jax.grad``), so
``J.vmap`` and ``v`` both count as ``jax.vmap``. Only code counts: comments,
docstrings and strings never do. Whether the code really runs is the runtime
check's business (``runtime_checks``).
"""
from __future__ import annotations

import ast

from ..problem import Problem, Requirements
from ..sandbox.allowlist import ALLOWED, module_message
from ..sandbox.language import restricted_errors
from .results import CheckResult
from .submission import ParsedSubmission


def _qualname(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


def _aliases(tree: ast.AST) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    # Plain rebinding (``v = jax.vmap``, ``v: Callable = jax.vmap``), iterated so chains resolve too.
    for _ in range(3):
        for node in ast.walk(tree):
            binding = _single_binding(node)
            if binding is not None:
                target, value = binding
                q = _qualname(value, aliases)
                if q:
                    aliases[target] = q
    return aliases


def _single_binding(node: ast.AST) -> tuple[str, ast.expr] | None:
    """The name ``node`` binds and its value, when it is ``name = value`` or ``name: annotation = value``."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value
    if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    return None


def _annotations(tree: ast.AST) -> list[ast.expr]:
    found: list[ast.expr | None] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
        elif isinstance(node, ast.arg):
            found.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(node.returns)
    return [a for a in found if a is not None]


def used_names(tree: ast.AST) -> dict[str, int]:
    """Every dotted name the code refers to (called, decorated or passed), with its first line."""
    aliases = _aliases(tree)
    # Annotations are kept as text and never run (``language.SubmissionPolicy``): like
    # strings, they neither use a required transform nor break a ban.
    skip = {id(n) for a in _annotations(tree) for n in ast.walk(a)}
    used: dict[str, int] = {}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(getattr(node, "ctx", None), ast.Load):
            q = _qualname(node, aliases)
            if q and (q not in used or node.lineno < used[q]):
                used[q] = node.lineno
    return used


def imported_modules(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.append(("." * node.level + (node.module or ""), node.lineno))
            elif node.module:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    allowed_here = node.module in ALLOWED and a.name in ALLOWED[node.module]
                    found.append((node.module if allowed_here or full in ALLOWED else full, node.lineno))
    return found


def check_source(tree: ast.AST, req: Requirements) -> list[CheckResult]:
    results: list[CheckResult] = []
    bad = [(m, line) for m, line in imported_modules(tree) if m not in ALLOWED]
    # ``from jax import profiler`` names a module or attribute outside the allow-lists;
    # the message is the one the child gives at run time (``allowlist.module_message``).
    results.append(CheckResult(
        "imports", not bad,
        "; ".join(f"line {line}: {module_message(m)}" for m, line in bad)
        or "only allowed modules are imported", verdict="CE"))
    used = used_names(tree)
    # Only module attributes can be found in the text; names such as jax.custom_vjp.bwd
    # (a rule that must run) are the runtime check's alone.
    for name in (n for n in req.calls if n.rpartition(".")[0] in ALLOWED):
        results.append(CheckResult(
            f"uses {name}", name in used,
            f"{name} is used (line {used[name]})" if name in used
            else f"the code never uses {name}; this problem requires it"))
    for name in req.forbid:
        results.append(CheckResult(
            f"avoids {name}", name not in used,
            f"{name} is not allowed in this problem (line {used[name]})" if name in used
            else f"{name} is not used"))
    return results


def static_stage(sub: ParsedSubmission, problem: Problem) -> list[CheckResult]:
    meta = problem.meta
    if sub.syntax_error:
        return [CheckResult("syntax", False, sub.syntax_error, "CE")]
    tree = sub.tree
    assert tree is not None, "a submission without a syntax error has its tree"
    checks = [CheckResult("syntax", True, "the file parses")]
    errors = restricted_errors(sub.source)
    checks.append(CheckResult("language policy", not errors, "; ".join(errors) or "within the allowed subset", "CE"))
    defined = meta.entry.name in _top_level_names(tree)
    checks.append(CheckResult("entry point", defined,
                              f"defines {meta.entry.name}" if defined else
                              f"no top-level function named '{meta.entry.name}'", "CE"))
    return checks + check_source(tree, meta.requirements)


def _top_level_names(tree: ast.Module) -> set[str]:
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            names.add(node.target.id)  # ``adamw: Callable = jax.jit(_adamw)``
    return names
