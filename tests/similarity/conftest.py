"""Copies disguised as a learner hiding a copy would: every local identifier renamed, the code
reformatted (two-space indentation, lines broken inside brackets with odd indentation, comments
and blank lines added) and the top-level functions reordered. Built with ``ast`` from an
accepted file; the disguised source still parses."""
from __future__ import annotations

import ast
import builtins
import io
import tokenize

import pytest


def _local_names(tree: ast.Module, keep: set[str]) -> list[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    imported = {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    return sorted(names - imported - set(dir(builtins)) - keep)


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]):
        self.mapping = mapping

    def visit_Name(self, node):
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.mapping.get(node.arg, node.arg)
        return node

    def visit_FunctionDef(self, node):
        node.name = self.mapping.get(node.name, node.name)
        self.generic_visit(node)
        return node

    def visit_ClassDef(self, node):
        node.name = self.mapping.get(node.name, node.name)
        self.generic_visit(node)
        return node

    def visit_Call(self, node):  # keyword arguments of the file's own functions follow their parameters
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in self.mapping.values():
            for kw in node.keywords:
                kw.arg = self.mapping.get(kw.arg, kw.arg) if kw.arg else kw.arg
        return node


def _renamed(source: str, entry: str) -> tuple[ast.Module, dict[str, str]]:
    tree = ast.parse(source)
    mapping = {n: f"q{i}_{n[::-1]}" for i, n in enumerate(_local_names(tree, {entry}))}
    return _Rename(mapping).visit(tree), mapping


def _reorder(tree: ast.Module) -> ast.Module:
    slots = [i for i, n in enumerate(tree.body) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for i, node in zip(slots, [tree.body[i] for i in slots][::-1]):
        tree.body[i] = node
    return tree


def _reformat(text: str) -> str:
    text = "\n".join(" " * ((len(line) - len(line.lstrip(" "))) // 2) + line.lstrip(" ")
                     for line in text.splitlines()) + "\n"
    breaks: dict[int, int] = {}
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.OP and tok.string in ("(", "[", "{"):
            depth += 1
        elif tok.type == tokenize.OP and tok.string in (")", "]", "}"):
            depth -= 1
        elif tok.type == tokenize.OP and tok.string == "," and depth > 0:
            breaks.setdefault(tok.start[0], tok.end[1])
    out = ["# my solution, written from scratch", ""]
    for n, line in enumerate(text.splitlines(), 1):
        indent = " " * (len(line) - len(line.lstrip()))
        if line.lstrip().startswith(("def ", "return ")):
            out.append(indent + "# next step")
        if n in breaks:
            out += [line[:breaks[n]], " " * 13 + line[breaks[n]:].lstrip()]
        else:
            out.append(line + ("  # done" if line.rstrip().endswith(")") else ""))
        if line.startswith("def ") or line.lstrip().startswith("return"):
            out.append("")
    return "\n".join(out) + "\n"


def rename_only(source: str, entry: str) -> str:
    """``source`` with every local identifier renamed (``ast.unparse`` lays it out anew)."""
    return ast.unparse(_renamed(source, entry)[0]) + "\n"


def disguise(source: str, entry: str) -> str:
    """``source`` renamed, reformatted and with its top-level functions in reverse order."""
    tree, _mapping = _renamed(source, entry)
    text = _reformat(ast.unparse(_reorder(tree)))
    ast.parse(text)
    return text


@pytest.fixture
def copies():
    """(rename_only, disguise)"""
    return rename_only, disguise
