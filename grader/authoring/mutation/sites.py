"""The mutation operators: which expressions of a reference have mutants, and what each
mutant writes there (``Site``: the original and its replacements as templates of the
site's children). ``ops`` turns the sites of a whole source into one schema.

Pure AST work: no JAX here."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

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
# The guards a learner adds "to be safe", each a family of its own: an epsilon added to a
# denominator or under a square root, a denominator kept from zero by a maximum, a norm
# clipped from below. Inside the constraints they often change the answer only at small
# scales, where a suite without small inputs lets them pass.
EPSILON = 1e-6
EPSILON_KINDS = ("epsilon denominator", "epsilon sqrt", "max guard", "norm floor", "sqrt floor", "max epsilon")
ROOTS = {"sqrt", "rsqrt"}
NORMS = {"norm", "sqrt"}
TINY, MAX_EPSILON = 1e-12, 1e-8  # the scales that hide best: sqrt(s + 1e-12), max(n, c + 1e-8)
# The mistakes at the edges: a difference clamped at a threshold ("robust" residuals), a
# boundary moved by a small epsilon, a finiteness test on another value of the function.
# Each is wrong only near an extreme or a boundary, which a suite may never reach.
CLAMPS, BOUNDARY_SHIFT, FINITE_TESTS = (1e2, 1e4), 1e-6, {"isfinite", "isnan", "isinf"}
NAMED_FAMILIES = ("clamp", "boundary shift", "finite of another")

_BIN_SWAP: dict[type[ast.operator], list[type[ast.operator]]] = {
    ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div], ast.Div: [ast.Mult], ast.Pow: [ast.Mult],
    ast.FloorDiv: [ast.Div], ast.BitAnd: [ast.BitOr], ast.BitOr: [ast.BitAnd]}
_BIN_OPERANDS_SWAP = (ast.Sub, ast.Div)  # a - b -> b - a
_BIN_DROP: dict[type[ast.operator], tuple[int | str, ...]] = {  # an operand kept, or "neg": a - b -> -b
    ast.Add: (0, 1), ast.Sub: (0, "neg"), ast.Mult: (0, 1), ast.Div: (0,), ast.Pow: (0,)}
_CMP_SWAP: dict[type[ast.cmpop], list[type[ast.cmpop]]] = {
    ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.GtE], ast.Gt: [ast.GtE, ast.Lt], ast.GtE: [ast.Gt, ast.LtE],
    ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq]}
UNARY_DROP = (ast.USub, ast.Not, ast.Invert)


@dataclass(frozen=True)
class Mutant:
    id: int
    line: int
    # operator | comparison | constant | swap | axis | keyword | guard | cast | drop, or one
    # of the ``EPSILON_KINDS``
    kind: str
    before: str
    after: str

    def describe(self) -> str:
        return f"line {self.line}: {self.before} -> {self.after}"


def number(node: ast.AST) -> float | int | None:
    """The value of a numeric literal (``-1`` included); None for anything else."""
    if isinstance(node, ast.Constant):
        return _int_or_float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = _int_or_float(node.operand.value)
        return None if value is None else -value
    return None


def _int_or_float(value: object) -> float | int | None:
    """``value`` if it is exactly an int or a float (a bool is no number here); else None."""
    return value if type(value) is int or type(value) is float else None


def constant_changes(value: int | float) -> list[int | float]:
    if type(value) is int:
        return [v for v in (value + 1, value - 1) if v != value]
    out = [1.0] if value == 0 else [0.0, value + 1.0, value - 1.0]
    return [v for v in dict.fromkeys(out) if v != value]


def _literal(value: int | float) -> ast.expr:
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def dotted(node: ast.AST) -> list[str] | None:
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


# An expression built from a site's slots (its operands): the original or one mutant.
Render = Callable[[list[ast.expr]], ast.expr]


class Site:
    """One mutable expression: its operand slots and how to render it from them."""

    def __init__(self, node: ast.expr, slots: list[ast.expr], render: Render):
        self.node, self.slots, self.render = node, slots, render
        self.alts: list[tuple[str, Render]] = []

    def add(self, kind: str, build: Render) -> None:
        self.alts.append((kind, build))

    def add_constant_changes(self) -> None:
        for i, slot in enumerate(self.slots):
            value = number(slot)
            if value is None:
                continue
            for new in constant_changes(value):
                self.add("constant", _with_slot(self.render, i, new))


# Renders are made by these functions rather than by lambdas in the loops: each binds its own loop values.
def _slot(k: int) -> Render:
    """Slot ``k`` alone: the expression dropped to one operand."""
    def render(s: list[ast.expr]) -> ast.expr:
        return s[k]
    return render


def _with_slot(render: Render, pos: int, value: int | float | str) -> Render:
    """``render`` with slot ``pos`` replaced by the literal ``value``."""
    def changed(s: list[ast.expr]) -> ast.expr:
        literal = ast.Constant(value) if isinstance(value, str) else _literal(value)
        return render(s[:pos] + [literal] + s[pos + 1:])
    return changed


def _binop(op: ast.operator, left: int, right: int) -> Render:
    def render(s: list[ast.expr]) -> ast.expr:
        return ast.BinOp(s[left], op, s[right])
    return render


def _compare(op: ast.cmpop) -> Render:
    def render(s: list[ast.expr]) -> ast.expr:
        return ast.Compare(s[0], [op], [s[1]])
    return render


def _call(fn: list[str], npos: int, names: list[str]) -> Render:
    """A call of the library function at the dotted path ``fn``: ``npos`` positional
    arguments, then keyword arguments ``names``."""
    def render(s: list[ast.expr]) -> ast.expr:
        return ast.Call(_path(fn), s[:npos], [ast.keyword(k, v) for k, v in zip(names, s[npos:])])
    return render


def _method_call(attr: str, npos: int, names: list[str]) -> Render:
    """A call of method ``attr`` on slot 0: ``npos`` positional arguments, then keyword arguments ``names``."""
    def render(s: list[ast.expr]) -> ast.expr:
        return ast.Call(ast.Attribute(s[0], attr, ast.Load()), s[1:1 + npos],
                        [ast.keyword(k, v) for k, v in zip(names, s[1 + npos:])])
    return render


def dotted_path(parts: list[str]) -> Render:
    def render(s: list[ast.expr]) -> ast.expr:
        return _path(parts)
    return render


def _plus_eps(e: ast.expr) -> ast.expr:
    return _plus(e, EPSILON)


def _floor(numpy: list[str], e: ast.expr, at: float = EPSILON) -> ast.expr:
    """``e`` kept at or above ``at``: ``jnp.maximum(e, 1e-06)``."""
    return ast.Call(_path(numpy + ["maximum"]), [e, ast.Constant(at)], [])


def _plus(e: ast.expr, value: float) -> ast.expr:
    """``e + value``, written ``e - |value|`` for a negative one."""
    return ast.BinOp(e, ast.Add(), ast.Constant(value)) if value >= 0 else ast.BinOp(e, ast.Sub(), ast.Constant(-value))


def _clamped(numpy: list[str], bound: float) -> Render:
    """A difference clamped to ``[-bound, bound]``."""
    def render(s: list[ast.expr]) -> ast.expr:
        return _clamp(numpy, ast.BinOp(s[0], ast.Sub(), s[1]), bound)
    return render


def _shifted(op: ast.cmpop, shift: float) -> Render:
    """A comparison whose right side is moved by ``shift``."""
    def render(s: list[ast.expr]) -> ast.expr:
        return ast.Compare(s[0], [op], [_plus(s[1], shift)])
    return render


def _first_arg(render: Render, name: str) -> Render:
    """A call of the same function on the value ``name`` instead of its first argument."""
    def changed(s: list[ast.expr]) -> ast.expr:
        return render([ast.Name(name, ast.Load())] + s[1:])
    return changed


def _clamp(numpy: list[str], e: ast.expr, bound: float) -> ast.expr:
    """``e`` clamped to ``[-bound, bound]``: ``jnp.clip(e, -1e4, 1e4)``."""
    return ast.Call(_path(numpy + ["clip"]), [e, _literal(-bound), _literal(bound)], [])


def _epsilon_changes(site: Site, node: ast.BinOp, numpy: list[str] | None) -> None:
    """A divisor (not a literal) with an epsilon added or a maximum around it; a power of
    one half with an epsilon under it."""
    if isinstance(node.op, ast.Div) and number(node.right) is None:
        site.add("epsilon denominator", lambda s: ast.BinOp(s[0], ast.Div(), _plus_eps(s[1])))
        if numpy:
            site.add("max guard", lambda s: ast.BinOp(s[0], ast.Div(), _floor(numpy, s[1])))
    if isinstance(node.op, ast.Pow) and number(node.right) == 0.5:
        site.add("epsilon sqrt", lambda s: ast.BinOp(_plus_eps(s[0]), ast.Pow(), s[1]))
        site.add("epsilon sqrt", lambda s: ast.BinOp(_plus(s[0], TINY), ast.Pow(), s[1]))
    if isinstance(node.op, ast.Sub) and numpy and number(node.left) is None and number(node.right) is None:
        for bound in CLAMPS:
            site.add("clamp", _clamped(numpy, bound))


def binop_site(node: ast.BinOp, numpy: list[str] | None = None) -> Site | None:
    """``numpy``: the path the source imports ``jax.numpy`` by, for the guards that need it."""
    site = Site(node, [node.left, node.right], _binop(node.op, 0, 1))
    for op in _BIN_SWAP.get(type(node.op), []):
        site.add("operator", _binop(op(), 0, 1))
    if isinstance(node.op, _BIN_OPERANDS_SWAP):
        site.add("operator", _binop(node.op, 1, 0))
    for keep in _BIN_DROP.get(type(node.op), ()):
        site.add("drop", _slot(keep) if isinstance(keep, int) else lambda s: ast.UnaryOp(ast.USub(), s[1]))
    _epsilon_changes(site, node, numpy)
    site.add_constant_changes()
    return site


def compare_site(node: ast.Compare) -> Site | None:
    if len(node.ops) != 1:
        return None
    site = Site(node, [node.left, node.comparators[0]], _compare(node.ops[0]))
    for op in _CMP_SWAP.get(type(node.ops[0]), []):
        site.add("comparison", _compare(op()))
    if isinstance(node.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
        for shift in (BOUNDARY_SHIFT, -BOUNDARY_SHIFT):
            site.add("boundary shift", _shifted(node.ops[0], shift))
    site.add_constant_changes()
    return site


def call_site(node: ast.Call, modules: set[str], numpy: list[str] | None = None,
              local_names: tuple[tuple[str, int], ...] = ()) -> Site | None:
    """``local_names``: the names the enclosing function binds, each with the line it is
    first bound on, for a finiteness test moved to another of its values."""
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    func = node.func
    parts = dotted(func)
    names = [k.arg for k in node.keywords if k.arg is not None]  # every one: **kwargs returned above
    npos = len(node.args)
    fn: list[str] | None  # the library function's path; None for a method
    if parts and parts[0] in modules and len(parts) > 1:
        name, fn = parts[-1], parts
        slots = list(node.args) + [k.value for k in node.keywords]
        render = _call(parts, npos, names)
    elif isinstance(func, ast.Attribute) and not (parts and parts[0] in modules):
        name, fn = func.attr, None
        slots = [func.value] + list(node.args) + [k.value for k in node.keywords]
        render = _method_call(func.attr, npos, names)
    else:
        return None
    site = Site(node, slots, render)
    if fn is None:
        if name == "astype" and npos + len(names) >= 1:
            site.add("cast", lambda s: s[0])
        for new in [METHOD_SWAPS[name]] if name in METHOD_SWAPS else []:
            site.add("swap", _method_call(new, npos, names))
    else:
        for new in SWAPS.get(name, []):
            site.add("swap", _call(fn[:-1] + [new], npos, names))
        kind, keep = DROP_TO.get(name, ("", ()))
        for k in keep:
            if k < npos and (kind != "cast" or npos + len(names) >= 2 or name not in ("asarray", "array")):
                site.add(kind, _slot(k))
        if name == "where" and npos == 3:
            site.add("guard", lambda s: render([s[0], s[2], s[1]] + s[3:]))
        if name in REDUCTIONS:
            _axis_changes(site, fn, names, npos, len(slots))
        if name in ROOTS and npos >= 1:
            site.add("epsilon sqrt", lambda s: render([_plus_eps(s[0])] + s[1:]))
            site.add("epsilon sqrt", lambda s: render([_plus(s[0], TINY)] + s[1:]))
            if numpy:
                site.add("sqrt floor", lambda s: render([_floor(numpy, s[0], TINY)] + s[1:]))
        if name in NORMS and numpy:
            site.add("norm floor", lambda s: _floor(numpy, render(s)))
        if name in ("maximum", "max") and npos == 2:
            site.add("max epsilon", lambda s: render([s[0], _plus(s[1], MAX_EPSILON)] + s[2:]))
            site.add("max epsilon", lambda s: render([_plus(s[0], MAX_EPSILON), s[1]] + s[2:]))
        if name in FINITE_TESTS and npos == 1:
            used = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
            for other, line in local_names:
                if other not in used and line < node.lineno:  # bound before the test
                    site.add("finite of another", _first_arg(render, other))
    for j, key in enumerate(names):
        value = node.keywords[j].value
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and (key, value.value) in KEYWORD_SWAPS:
            pos = len(slots) - len(names) + j
            site.add("keyword", _with_slot(site.render, pos, KEYWORD_SWAPS[(key, value.value)]))
    site.add_constant_changes()
    return site if site.alts else None


def _axis_changes(site: Site, fn: list[str], names: list[str], npos: int, nslots: int) -> None:
    """Mutants of a reduction's axis: moved by one, dropped, or added (``axis=0``)."""
    if "axis" in names:
        pos = nslots - len(names) + names.index("axis")
        axis = number(site.slots[pos])
        if axis is None:
            return
        for new in sorted({axis + 1, axis - 1} - {axis}):
            site.add("axis", _with_slot(site.render, pos, new))
        without = _call(fn, npos, [n for n in names if n != "axis"])
        site.add("axis", lambda s: without(s[:pos] + s[pos + 1:]))
    elif npos == 1:
        with_axis = _call(fn, npos, names + ["axis"])
        site.add("axis", lambda s: with_axis(s + [ast.Constant(0)]))
