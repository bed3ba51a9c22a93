"""First-order mutants of a reference, written as one *schema*: a copy of the source in
which every mutable expression becomes ``_jjm_switch(ids, templates, children)``.

The children (sub-expressions) are evaluated once, outside the switch, and every
template is a lambda of them: the original expression first, then one per mutant.
Which template runs is chosen by the worker (``worker``): in Python for one
mutant at a time, or by a traced mutant id, so that one compiled program serves every
mutant whose site is traced. Evaluating the children once keeps the schema linear in
the source (nested sites would otherwise be traced once per branch of every parent).

Pure AST work: no JAX here, so the judge's process can build mutants.
"""
from __future__ import annotations

import ast

from .sites import (
    DTYPE_SWAPS,
    UNARY_DROP,
    Mutant,
    Site,
    binop_site,
    call_site,
    compare_site,
    dotted,
    dotted_path,
    number,
)

SWITCH = "_jjm_switch"
_ARG = "_jjm_a"


class _Schema(ast.NodeTransformer):
    def __init__(self, source: str, modules: set[str], numpy: list[str] | None = None):
        self.source, self.modules, self.numpy = source, modules, numpy
        self.mutants: list[Mutant] = []
        self.depth = 0  # inside a decorator, default or annotation nothing is mutated
        self.local_names: list[tuple[tuple[str, int], ...]] = []  # per enclosing function: what it binds, where

    def _site_for(self, node: ast.expr) -> Site | None:
        if isinstance(node, ast.BinOp):
            return binop_site(node, self.numpy)
        if isinstance(node, ast.Compare):
            return compare_site(node)
        if isinstance(node, ast.Call):
            return call_site(node, self.modules, self.numpy, self.local_names[-1] if self.local_names else ())
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, UNARY_DROP) and number(node) is None:
            op = node.op
            site = Site(node, [node.operand], lambda s: ast.UnaryOp(op, s[0]))
            site.add("drop", lambda s: s[0])
            return site
        parts = dotted(node) if isinstance(node, ast.Attribute) else None
        if parts and parts[0] in self.modules and parts[-1] in DTYPE_SWAPS:
            site = Site(node, [], dotted_path(parts))
            for new in DTYPE_SWAPS[parts[-1]]:
                site.add("cast", dotted_path(parts[:-1] + [new]))
            return site
        value = number(node)
        if value is not None:
            site = Site(node, [node], lambda s: s[0])
            site.add_constant_changes()
            return site
        return None

    def visit_FunctionDef(self, node):  # decorators, defaults and annotations are left alone
        self.local_names.append(bound_names(node))
        try:
            node.body = [self.visit(s) for s in node.body]
        finally:
            self.local_names.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_JoinedStr(self, node):
        return node

    def visit_Lambda(self, node):
        node.body = self.visit(node.body)
        return node

    def generic_visit(self, node):
        if not isinstance(node, ast.expr) or isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            return super().generic_visit(node)
        site = self._site_for(node)
        if site is None or not site.alts:
            return super().generic_visit(node)
        return self._switch(site)

    def _switch(self, site: Site) -> ast.expr:
        # Literals stay inline in every template; every other slot is a child, evaluated once.
        inline = [number(s) is not None or isinstance(s, ast.Constant) for s in site.slots]
        params = [f"{_ARG}{i}" for i, keep in enumerate(inline) if not keep]
        it = iter(params)
        as_params = [slot if keep else ast.Name(next(it), ast.Load()) for slot, keep in zip(site.slots, inline)]
        # Texts first: visiting the children rewrites nodes in place.
        original = ast.unparse(site.node)
        before = " ".join((ast.get_source_segment(self.source, site.node) or original).split())
        ids: list[int] = []
        templates: list[ast.expr] = [self._lambda(params, site.render(as_params))]
        seen = {original}
        for kind, build in site.alts:
            after = ast.unparse(build(list(site.slots)))
            if after in seen:
                continue
            seen.add(after)
            ids.append(len(self.mutants))
            self.mutants.append(Mutant(len(self.mutants), site.node.lineno, kind, before, after))
            templates.append(self._lambda(params, build(list(as_params))))
        children = [self.visit(s) for s, keep in zip(site.slots, inline) if not keep]
        call = ast.Call(ast.Name(SWITCH, ast.Load()),
                        [ast.Tuple([ast.Constant(i) for i in ids], ast.Load()), ast.Tuple(templates, ast.Load()),
                         ast.Tuple(children, ast.Load())], [])
        return ast.copy_location(call, site.node)

    @staticmethod
    def _lambda(params: list[str], body: ast.expr) -> ast.Lambda:
        args = ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, [])
        return ast.Lambda(args, body)


def bound_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[str, int], ...]:
    """The values a function binds itself (its arguments, names it assigns), each with the
    line it is first bound on; not the functions it defines, nor names inside nested ones."""
    names = [(a.arg, fn.lineno) for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append((node.id, node.lineno))
        todo.extend(ast.iter_child_nodes(node))
    first: dict[str, int] = {}
    for name, line in names:
        first[name] = min(line, first.get(name, line))
    return tuple(first.items())


def imported_names(tree: ast.Module) -> set[str]:
    """Names the module binds to modules (``jax``, ``jnp``, ...): calls through them are
    library functions; calls on anything else are methods of a value."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def numpy_path(tree: ast.Module) -> list[str] | None:
    """How the module names ``jax.numpy`` (``["jnp"]``, ``["jax", "numpy"]``); None if it
    does not import it."""
    jax = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "jax.numpy" and a.asname:
                    return [a.asname]
                if a.name.split(".")[0] == "jax":
                    jax = a.asname if a.name == "jax" and a.asname else "jax"
        elif isinstance(node, ast.ImportFrom) and node.module == "jax":
            for a in node.names:
                if a.name == "numpy":
                    return [a.asname or "numpy"]
    return [jax, "numpy"] if jax else None


def build_schema(source: str) -> tuple[list[Mutant], str]:
    """Every first-order mutant of ``source`` and the schema source that holds them all."""
    tree = ast.parse(source)
    schema = _Schema(source, imported_names(tree), numpy_path(tree))
    body = []
    for stmt in tree.body:  # docstrings and imports stay as they are
        is_doc = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        body.append(stmt if is_doc or isinstance(stmt, (ast.Import, ast.ImportFrom)) else schema.visit(stmt))
    tree.body = body
    ast.fix_missing_locations(tree)
    return schema.mutants, ast.unparse(tree)
