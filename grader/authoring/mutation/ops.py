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
from dataclasses import dataclass
from typing import Callable

SWITCH = "_jjm_switch"
_ARG = "_jjm_a"

# Calls whose function (the last name of a module path such as jnp.maximum) has mutants.
SWAPS = {"maximum": ["minimum"], "minimum": ["maximum"], "max": ["min"], "min": ["max"], "sum": ["mean"],
         "mean": ["sum"], "argmax": ["argmin"], "argmin": ["argmax"], "all": ["any"], "any": ["all"],
         "floor": ["ceil"], "ceil": ["floor"], "round": ["floor", "ceil"], "sin": ["cos"], "cos": ["sin"],
         "logaddexp": ["maximum"]}
REDUCTIONS = {"sum", "mean", "max", "min", "prod", "all", "any", "argmax", "argmin", "std", "var", "logsumexp",
              "norm", "cumsum"}
# A call replaced by one of its positional arguments: a guard, a cast or a term dropped.
DROP_TO = {"maximum": ("guard", (0, 1)), "minimum": ("guard", (0, 1)), "clip": ("guard", (0,)),
           "where": ("guard", (1, 2)), "stop_gradient": ("guard", (0,)), "nan_to_num": ("guard", (0,)),
           "asarray": ("cast", (0,)), "array": ("cast", (0,)), "float32": ("cast", (0,)),
           "float16": ("cast", (0,)), "bfloat16": ("cast", (0,)), "float64": ("cast", (0,)),
           "int32": ("cast", (0,)), "sqrt": ("drop", (0,)), "abs": ("drop", (0,)), "square": ("drop", (0,)),
           "round": ("drop", (0,)), "floor": ("drop", (0,)), "ceil": ("drop", (0,)), "relu": ("drop", (0,)),
           "softplus": ("drop", (0,)), "log_softmax": ("drop", (0,)), "softmax": ("drop", (0,)),
           "exp": ("drop", (0,)), "log": ("drop", (0,)), "log1p": ("drop", (0,)), "expm1": ("drop", (0,)),
           "tanh": ("drop", (0,)), "sigmoid": ("drop", (0,)), "cos": ("drop", (0,)), "sin": ("drop", (0,))}
METHOD_SWAPS = {"sum": "mean", "mean": "sum", "max": "min", "min": "max"}
# Precision casts: a dtype (a module attribute such as jnp.float16) changed to another.
DTYPE_SWAPS = {"float16": ["float32"], "bfloat16": ["float32"], "float32": ["float16"], "float64": ["float32"]}
KEYWORD_SWAPS = {("side", "left"): "right", ("side", "right"): "left"}

_BIN_SWAP = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div], ast.Div: [ast.Mult],
             ast.Pow: [ast.Mult], ast.FloorDiv: [ast.Div], ast.BitAnd: [ast.BitOr], ast.BitOr: [ast.BitAnd]}
_BIN_OPERANDS_SWAP = (ast.Sub, ast.Div)  # a - b -> b - a
_BIN_DROP = {ast.Add: (0, 1), ast.Sub: (0, "neg"), ast.Mult: (0, 1), ast.Div: (0,), ast.Pow: (0,)}
_CMP_SWAP = {ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.GtE], ast.Gt: [ast.GtE, ast.Lt],
             ast.GtE: [ast.Gt, ast.LtE], ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq]}
_UNARY_DROP = (ast.USub, ast.Not, ast.Invert)


@dataclass(frozen=True)
class Mutant:
    id: int
    line: int
    kind: str  # operator | comparison | constant | swap | axis | keyword | guard | cast | drop
    before: str
    after: str

    def describe(self) -> str:
        return f"line {self.line}: {self.before} -> {self.after}"


def _number(node: ast.AST) -> float | int | None:
    """The value of a numeric literal (``-1`` included); None for anything else."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return -node.operand.value
    return None


def constant_changes(value: int | float) -> list[int | float]:
    if type(value) is int:
        return [v for v in (value + 1, value - 1) if v != value]
    out = [1.0] if value == 0 else [0.0, value + 1.0, value - 1.0]
    return [v for v in dict.fromkeys(out) if v != value]


def _literal(value: int | float) -> ast.expr:
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def _dotted(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def _path(parts: list[str]) -> ast.expr:
    node: ast.expr = ast.Name(parts[0], ast.Load())
    for attr in parts[1:]:
        node = ast.Attribute(node, attr, ast.Load())
    return node


class _Site:
    """One mutable expression: its operand slots and how to render it from them."""

    def __init__(self, node: ast.AST, slots: list[ast.expr], render: Callable[[list[ast.expr]], ast.expr]):
        self.node, self.slots, self.render = node, slots, render
        self.alts: list[tuple[str, Callable[[list[ast.expr]], ast.expr]]] = []

    def add(self, kind: str, build: Callable[[list[ast.expr]], ast.expr]) -> None:
        self.alts.append((kind, build))

    def add_constant_changes(self) -> None:
        for i, slot in enumerate(self.slots):
            value = _number(slot)
            if value is None:
                continue
            for new in constant_changes(value):
                self.add("constant", lambda s, i=i, new=new: self.render(s[:i] + [_literal(new)] + s[i + 1:]))


def _binop_site(node: ast.BinOp) -> _Site | None:
    site = _Site(node, [node.left, node.right], lambda s, op=node.op: ast.BinOp(s[0], op, s[1]))
    for op in _BIN_SWAP.get(type(node.op), []):
        site.add("operator", lambda s, op=op: ast.BinOp(s[0], op(), s[1]))
    if isinstance(node.op, _BIN_OPERANDS_SWAP):
        site.add("operator", lambda s, op=node.op: ast.BinOp(s[1], op, s[0]))
    for keep in _BIN_DROP.get(type(node.op), ()):
        site.add("drop", (lambda s: ast.UnaryOp(ast.USub(), s[1])) if keep == "neg" else (lambda s, k=keep: s[k]))
    site.add_constant_changes()
    return site


def _compare_site(node: ast.Compare) -> _Site | None:
    if len(node.ops) != 1:
        return None
    site = _Site(node, [node.left, node.comparators[0]], lambda s, op=node.ops[0]: ast.Compare(s[0], [op], [s[1]]))
    for op in _CMP_SWAP.get(type(node.ops[0]), []):
        site.add("comparison", lambda s, op=op: ast.Compare(s[0], [op()], [s[1]]))
    site.add_constant_changes()
    return site


def _call_site(node: ast.Call, modules: set[str]) -> _Site | None:
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    func = node.func
    parts = _dotted(func)
    names = [k.arg for k in node.keywords]
    npos = len(node.args)
    if parts and parts[0] in modules and len(parts) > 1:
        name, method = parts[-1], False
        slots = list(node.args) + [k.value for k in node.keywords]

        def render(s, fn=parts, npos=npos, names=names):
            return ast.Call(_path(fn), s[:npos], [ast.keyword(k, v) for k, v in zip(names, s[npos:])])
    elif isinstance(func, ast.Attribute) and not (parts and parts[0] in modules):
        name, method = func.attr, True
        slots = [func.value] + list(node.args) + [k.value for k in node.keywords]

        def render(s, attr=func.attr, npos=npos, names=names):
            return ast.Call(ast.Attribute(s[0], attr, ast.Load()), s[1:1 + npos],
                            [ast.keyword(k, v) for k, v in zip(names, s[1 + npos:])])
    else:
        return None
    site = _Site(node, slots, render)
    if method:
        if name == "astype" and npos + len(names) >= 1:
            site.add("cast", lambda s: s[0])
        for new in [METHOD_SWAPS[name]] if name in METHOD_SWAPS else []:
            site.add("swap", lambda s, new=new: ast.Call(ast.Attribute(s[0], new, ast.Load()), s[1:1 + npos],
                                                         [ast.keyword(k, v) for k, v in zip(names, s[1 + npos:])]))
    else:
        for new in SWAPS.get(name, []):
            site.add("swap", lambda s, new=new: render(s, fn=parts[:-1] + [new]))
        kind, keep = DROP_TO.get(name, ("", ()))
        for k in keep:
            if k < npos and (kind != "cast" or npos + len(names) >= 2 or name not in ("asarray", "array")):
                site.add(kind, lambda s, k=k: s[k])
        if name == "where" and npos == 3:
            site.add("guard", lambda s: render([s[0], s[2], s[1]] + s[3:]))
        if name in REDUCTIONS:
            _axis_changes(site, render, names, npos, len(slots))
    for j, key in enumerate(names):
        value = node.keywords[j].value
        if isinstance(value, ast.Constant) and (key, value.value) in KEYWORD_SWAPS:
            pos = len(slots) - len(names) + j
            new = KEYWORD_SWAPS[(key, value.value)]
            site.add("keyword", lambda s, pos=pos, new=new: site.render(s[:pos] + [ast.Constant(new)] + s[pos + 1:]))
    site.add_constant_changes()
    return site if site.alts else None


def _axis_changes(site: _Site, render, names: list[str], npos: int, nslots: int) -> None:
    if "axis" in names:
        pos = nslots - len(names) + names.index("axis")
        axis = _number(site.slots[pos])
        if axis is None:
            return
        for new in sorted({axis + 1, axis - 1} - {axis}):
            site.add("axis", lambda s, pos=pos, new=new: render(s[:pos] + [_literal(new)] + s[pos + 1:]))
        rest = [n for n in names if n != "axis"]
        site.add("axis", lambda s, pos=pos: render(s[:pos] + s[pos + 1:], names=rest))
    elif npos == 1:
        site.add("axis", lambda s: render(s + [ast.Constant(0)], names=names + ["axis"]))


class _Schema(ast.NodeTransformer):
    def __init__(self, source: str, modules: set[str]):
        self.source, self.modules = source, modules
        self.mutants: list[Mutant] = []
        self.depth = 0  # inside a decorator, default or annotation nothing is mutated

    def _site_for(self, node: ast.AST) -> _Site | None:
        if isinstance(node, ast.BinOp):
            return _binop_site(node)
        if isinstance(node, ast.Compare):
            return _compare_site(node)
        if isinstance(node, ast.Call):
            return _call_site(node, self.modules)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY_DROP) and _number(node) is None:
            site = _Site(node, [node.operand], lambda s, op=node.op: ast.UnaryOp(op, s[0]))
            site.add("drop", lambda s: s[0])
            return site
        parts = _dotted(node) if isinstance(node, ast.Attribute) else None
        if parts and parts[0] in self.modules and parts[-1] in DTYPE_SWAPS:
            site = _Site(node, [], lambda s, parts=parts: _path(parts))
            for new in DTYPE_SWAPS[parts[-1]]:
                site.add("cast", lambda s, new=new: _path(parts[:-1] + [new]))
            return site
        value = _number(node)
        if value is not None:
            site = _Site(node, [node], lambda s: s[0])
            site.add_constant_changes()
            return site
        return None

    def visit_FunctionDef(self, node):  # decorators, defaults and annotations are left alone
        node.body = [self.visit(s) for s in node.body]
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

    def _switch(self, site: _Site) -> ast.expr:
        # Literals stay inline in every template; every other slot is a child, evaluated once.
        inline = [_number(s) is not None or isinstance(s, ast.Constant) for s in site.slots]
        params = [f"{_ARG}{i}" for i, keep in enumerate(inline) if not keep]
        it = iter(params)
        as_params = [slot if keep else ast.Name(next(it), ast.Load()) for slot, keep in zip(site.slots, inline)]
        # Texts first: visiting the children rewrites nodes in place.
        original = ast.unparse(site.node)
        before = " ".join((ast.get_source_segment(self.source, site.node) or original).split())
        ids, templates, seen = [], [self._lambda(params, site.render(as_params))], {original}
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


def imported_names(tree: ast.Module) -> set[str]:
    """Names the module binds to modules (``jax``, ``jnp``, ...): calls through them are
    library functions; calls on anything else are methods of a value."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def build_schema(source: str) -> tuple[list[Mutant], str]:
    """Every first-order mutant of ``source`` and the schema source that holds them all."""
    tree = ast.parse(source)
    schema = _Schema(source, imported_names(tree))
    body = []
    for stmt in tree.body:  # docstrings and imports stay as they are
        is_doc = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        body.append(stmt if is_doc or isinstance(stmt, (ast.Import, ast.ImportFrom)) else schema.visit(stmt))
    tree.body = body
    ast.fix_missing_locations(tree)
    return schema.mutants, ast.unparse(tree)
