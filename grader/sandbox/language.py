"""The language layer, on source text only: RestrictedPython's rules plus the
call windows (see ``child.windows``). The judge compiles a submission with it to
report a compile error; the child compiles it again to run it.
"""
from __future__ import annotations

import ast
import types

from RestrictedPython import compile_restricted
from RestrictedPython.transformer import RestrictingNodeTransformer

SUBMISSION_FILE = "<submission>"
SUBMISSION_MODULE = "submission"


class SubmissionPolicy(RestrictingNodeTransformer):
    """RestrictedPython's rules, but private helper names such as ``_loss`` are fine:
    only dunder names and names shaped like the guards (``_x_``) stay forbidden.

    Two additions (see "Call windows" below): the module body runs inside ``with
    _window_():``, and every function body, lambda, ``except`` handler and ``finally``
    block starts with ``_live_()``, so that submission code can run only while the child
    is executing the module or calling the entry, never from a finaliser or a comparison
    that the judge's own code happens to trigger. And annotations are allowed, checked
    like any other expression and kept as text that never runs (``_annotation_text``)."""

    def check_name(self, node, name, allow_magic_methods=False):  # noqa: D401
        if name and name.startswith("_") and not name.startswith("__") and not name.endswith("_") and name != "_":
            return
        super().check_name(node, name, allow_magic_methods)

    @staticmethod
    def _live(at: ast.AST) -> ast.stmt:
        stmt = ast.Expr(ast.Call(ast.Name("_live_", ast.Load()), [], []))
        ast.copy_location(stmt, at)
        return ast.fix_missing_locations(stmt)

    def visit_Module(self, node):
        node = super().visit_Module(node)
        first = 0
        while first < len(node.body) and isinstance(node.body[first], ast.ImportFrom) \
                and node.body[first].module == "__future__":
            first += 1
        body = node.body[first:]
        if body:
            window = ast.With([ast.withitem(ast.Call(ast.Name("_window_", ast.Load()), [], []))], body)
            ast.copy_location(window, body[0])
            node.body[first:] = [ast.fix_missing_locations(window)]
        return node

    def _annotation_text(self, annotation: ast.expr | None) -> ast.expr | None:
        """An annotation, checked like any other expression (a ``__class__`` in one is a
        compile error) and then replaced by its source text, so that it never runs.

        Annotations can hold any expression (``x: (lambda: ...)()``). As text they are
        inert whatever the compile flags or the Python version (RestrictedPython 9.0
        happens to compile with PEP 563 on; Python 3.14 would evaluate them lazily,
        when ``__annotations__`` is read, outside any call window). Nothing open to
        submissions reads annotations back as values; ``typing.NamedTuple`` needs only
        the field names."""
        if annotation is None:
            return None
        text = ast.unparse(annotation)
        self.visit(annotation)
        return ast.copy_location(ast.Constant(text), annotation)

    def visit_AnnAssign(self, node):
        """``x: int = 3`` and class-body fields (``mu: dict``), which RestrictedPython
        refuses only for want of a rule: the target and the value are visited as in
        an assignment (``obj.attr: T = v`` is a guarded write), the annotation becomes
        text."""
        node.annotation = self._annotation_text(node.annotation)
        return self.node_contents_visit(node)

    def visit_arg(self, node):
        node.annotation = self._annotation_text(node.annotation)
        return self.node_contents_visit(node)

    def visit_FunctionDef(self, node):
        node.returns = self._annotation_text(node.returns)
        node = super().visit_FunctionDef(node)
        node.body.insert(0, self._live(node))
        return node

    def visit_Lambda(self, node):
        node = super().visit_Lambda(node)
        live = ast.Call(ast.Name("_live_", ast.Load()), [], [])
        node.body = ast.BoolOp(ast.Or(), [live, node.body])  # _live_() is None: the value is the body's
        ast.copy_location(node.body, node)
        ast.fix_missing_locations(node)
        return node

    def visit_ExceptHandler(self, node):
        node = super().visit_ExceptHandler(node)
        node.body.insert(0, self._live(node))
        return node

    def visit_Try(self, node):
        node = super().visit_Try(node)
        if node.finalbody:
            node.finalbody.insert(0, self._live(node.finalbody[0]))
        return node


def compile_submission(source: str) -> types.CodeType:
    """Compile under the policy; SyntaxError carries RestrictedPython's reasons."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # "prints, but never reads 'printed'": by design
        return compile_restricted(source, SUBMISSION_FILE, "exec", policy=SubmissionPolicy)


def restricted_errors(source: str) -> list[str]:
    """The policy's complaints about a source, without raising (for the CE message)."""
    try:
        compile_submission(source)
    except SyntaxError as exc:
        return [str(a) for a in exc.args[0]] if exc.args and isinstance(exc.args[0], tuple) else [str(exc)]
    except (RecursionError, MemoryError):
        return ["the code nests too deeply to be compiled"]
    return []
