"""The language layer of the sandbox: RestrictedPython plus explicit allow-lists.

Runs inside the child. A submission sees modules only as ``SafeModule``
proxies that expose allow-listed attributes; every attribute read on other
objects passes a deny-list of the names that lead out (devices, buffers,
frames, ``format`` walks); writes reach only plain dicts, lists and the
submission's own objects. Its code runs only inside "call windows" (loading
the module, calling the entry), after which the judge's own code gets a sane
interpreter back (see the section below). The OS layers (``lockdown``) back
this up: a hole here still meets a process that cannot open files, exec or
talk to a network.
"""
from __future__ import annotations

import ast
import builtins
import functools
import operator
import sys
import types
from typing import Any, Callable

from RestrictedPython import compile_restricted, safe_builtins
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import INSPECT_ATTRIBUTES, RestrictingNodeTransformer

from .wire import MAX_DEPTH, MAX_NODES

SUBMISSION_FILE = "<submission>"
SUBMISSION_MODULE = "submission"

_JNP = """abs absolute acos acosh add all allclose amax amin angle any append arange arccos arccosh arcsin
arcsinh arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around array array_equal array_equiv
array_split asarray asin asinh astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bfloat16 bincount
bitwise_and bitwise_not bitwise_or bitwise_xor block bool bool_ broadcast_arrays broadcast_shapes broadcast_to
cbrt ceil clip column_stack complex128 complex64 concat concatenate conj conjugate convolve copy copysign corrcoef
correlate cos cosh count_nonzero cov cross cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag
diag_indices diagflat diagonal diff digitize divide divmod dot dsplit dstack dtype e ediff1d einsum empty empty_like
equal exp exp2 expand_dims expm1 extract eye fabs fill_diagonal finfo flatnonzero flip fliplr flipud float16
float32 float64 float_power floating floor floor_divide fmax fmin fmod frexp full full_like gcd geomspace gradient
greater greater_equal heaviside hsplit hstack hypot identity iinfo imag indices inexact inf inner insert int16 int32
int64 int8 integer interp invert isclose isfinite isin isinf isnan isneginf isposinf isscalar issubdtype ix_ kron
lcm ldexp less less_equal linalg linspace log log10 log1p log2 logaddexp logaddexp2 logical_and logical_not
logical_or logical_xor logspace matmul matrix_transpose matvec max maximum mean median meshgrid mgrid min minimum mod
modf moveaxis multiply nan nan_to_num nanargmax nanargmin nanmax nanmean nanmin nanprod nanstd nansum nanvar ndarray
ndim negative newaxis nextafter nonzero not_equal number ogrid ones ones_like outer pad percentile permute_dims pi
piecewise positive pow power prod promote_types ptp quantile ravel real reciprocal remainder repeat reshape
result_type rint roll rot90 round searchsorted select shape sign signbit sin sinc sinh size sort split sqrt square
squeeze stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose trapezoid tri
tril triu true_divide trunc uint32 uint8 unique unravel_index unstack var vdot vecdot vecmat vmap vsplit vstack where
zeros zeros_like"""

# Module name -> the attributes a submission may use. Submodules listed here are
# exposed as SafeModules in turn; everything else simply does not exist.
ALLOWED: dict[str, frozenset[str]] = {
    "jax": frozenset("""Array ShapeDtypeStruct checkpoint custom_jvp custom_vjp eval_shape flatten_util grad hessian
        jacfwd jacobian jacrev jit jvp lax linearize named_call nn numpy random remat scipy tree tree_util
        value_and_grad vjp vmap block_until_ready dtypes""".split()),
    "jax.numpy": frozenset(set(_JNP.split()) - {"vmap"}),
    "jax.numpy.linalg": frozenset("""cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul
        matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr slogdet solve svd svdvals
        tensordot trace vecdot vector_norm""".split()),
    "jax.lax": frozenset("""abs add associative_scan batch_matmul broadcast broadcast_in_dim cond clamp
        concatenate convert_element_type cos cumsum cummax cummin cumprod div dot dot_general dynamic_slice
        dynamic_slice_in_dim dynamic_update_slice erf exp expand_dims fori_loop full full_like ge gt index_in_dim
        integer_pow iota le log log1p logistic lt map max min mul ne neg pad pow reduce reduce_max reduce_min
        reduce_sum reduce_prod reshape rsqrt rev scan select select_n sign sin slice slice_in_dim sort sqrt square
        squeeze stop_gradient sub switch tanh top_k transpose while_loop""".split()),
    "jax.nn": frozenset("""celu elu gelu glu hard_sigmoid hard_silu hard_swish hard_tanh identity leaky_relu
        log_sigmoid log_softmax logsumexp mish one_hot relu relu6 selu sigmoid silu soft_sign softmax softplus
        standardize swish tanh""".split()),
    "jax.random": frozenset("""PRNGKey bernoulli categorical choice exponential fold_in gumbel key key_data
        laplace normal permutation randint split truncated_normal uniform bits""".split()),
    "jax.tree_util": frozenset("""Partial all_leaves keystr tree_all tree_flatten tree_flatten_with_path tree_leaves
        tree_leaves_with_path tree_map tree_map_with_path tree_reduce tree_structure tree_transpose tree_unflatten
        treedef_children treedef_is_leaf""".split()),
    "jax.tree": frozenset("all flatten flatten_with_path leaves leaves_with_path map map_with_path reduce structure transpose unflatten".split()),
    "jax.flatten_util": frozenset({"ravel_pytree"}),
    "jax.scipy": frozenset({"special"}),
    "jax.scipy.special": frozenset({"logsumexp", "erf", "expit", "logit", "gammaln", "xlogy", "softmax", "log_softmax"}),
    "jax.dtypes": frozenset({"canonicalize_dtype", "float0"}),
    "numpy": frozenset("""abs allclose arange array asarray clip concatenate cos dot e einsum exp eye float32 float64
        full inf int32 int64 isclose isfinite isnan linspace log matmul max maximum mean min minimum nan ones
        ones_like outer pi prod reshape sign sin sqrt square stack sum tanh transpose where zeros zeros_like
        linalg""".split()),
    "numpy.linalg": frozenset({"norm"}),
    "math": frozenset("""sqrt exp log log1p expm1 pi e inf nan isfinite isnan isinf fabs floor ceil pow tanh
        sin cos prod fsum hypot""".split()),
    "functools": frozenset({"partial", "reduce"}),
    "operator": frozenset("add sub mul truediv neg pos matmul itemgetter getitem".split()),
    "itertools": frozenset("product combinations permutations chain accumulate repeat".split()),
    "typing": frozenset("Any Callable Dict List NamedTuple Optional Sequence Tuple Union Mapping".split()),
}

# Attribute names that lead from an ordinary object to the process, its memory,
# its devices or its frames. Leading-underscore names are refused at compile time.
DENIED_ATTRS = frozenset("""device devices sharding addressable_shards addressable_data global_shards
    unsafe_buffer_pointer copy_to_host_async on_device_size_in_bytes delete is_deleted client platform
    tofile dump dumps ctypes base data setflags format format_map mro lower trace compile runtime_executable
    as_text cost_analysis memory_analysis traceback gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await
    ag_frame ag_code f_back f_globals f_locals f_builtins f_code tb_frame tb_next func_globals func_code
    im_func im_self with_traceback jaxpr eqns cache_clear cache_info register defvjp_all
    obj bind bind_with_trace get_bind_params impl abstract_eval def_impl def_abstract_eval def_bind_with_trace
    def_effectful_abstract_eval def_effectful_abstract_eval2 to_lojax""".split()) | INSPECT_ATTRIBUTES
# ``obj``: since Python 3.10 an AttributeError carries the object whose lookup failed,
# which may be an object internal to JAX or numpy. ``bind`` .. ``to_lojax``: a
# jax.checkpoint policy is called with JAX Primitive objects, whose def_impl & co.
# would let a submission redefine primitives for the judge's code in the same process.
# INSPECT_ATTRIBUTES (frames, code, generators) are refused at compile time by
# RestrictedPython; this refuses them when the name is built at runtime.


class PolicyError(Exception):
    """A submission reached for something the policy does not allow."""


class SafeModule:
    """A module as a submission sees it: only the allow-listed attributes exist."""

    __slots__ = ("_jj_name", "_jj_attrs")

    def __init__(self, name: str, attrs: dict[str, Any]):
        object.__setattr__(self, "_jj_name", name)
        object.__setattr__(self, "_jj_attrs", attrs)

    def __getattr__(self, item: str) -> Any:
        attrs = object.__getattribute__(self, "_jj_attrs")
        if item in attrs:
            return attrs[item]
        name = object.__getattribute__(self, "_jj_name")
        raise AttributeError(f"'{name}.{item}' is not available to submissions")

    def __setattr__(self, key: str, value: Any) -> None:
        raise PolicyError(f"modules cannot be modified ({object.__getattribute__(self, '_jj_name')}.{key})")

    __delattr__ = __setattr__  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<module '{object.__getattribute__(self, '_jj_name')}'>"


class ModuleTable:
    """Builds the SafeModules once per run; ``overrides`` swap in instrumented callables."""

    def __init__(self, overrides: dict[str, Callable] | None = None):
        import importlib

        self._import = importlib.import_module
        self.overrides = overrides or {}
        self.cache: dict[str, SafeModule] = {}

    def get(self, name: str) -> SafeModule:
        if name in self.cache:
            return self.cache[name]
        real = self._import(name)
        attrs: dict[str, Any] = {}
        for attr in ALLOWED[name]:
            full = f"{name}.{attr}"
            if full in ALLOWED:
                attrs[attr] = self.get(full)
            elif full in self.overrides:
                attrs[attr] = self.overrides[full]
            elif hasattr(real, attr):
                attrs[attr] = getattr(real, attr)
        module = self.cache[name] = SafeModule(name, attrs)
        return module


class SubmissionPolicy(RestrictingNodeTransformer):
    """RestrictedPython's rules, but private helper names such as ``_loss`` are fine:
    only dunder names and names shaped like the guards (``_x_``) stay forbidden.

    Two additions (see "Call windows" below): the module body runs inside ``with
    _window_():``, and every function body, lambda, ``except`` handler and ``finally``
    block starts with ``_live_()``, so that submission code can run only while the child
    is executing the module or calling the entry, never from a finaliser or a comparison
    that the judge's own code happens to trigger."""

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

    def visit_FunctionDef(self, node):
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
    return []


# ------------------------------------------------------------------- guards

def guarded_getattr(obj: Any, name: str, *default: Any) -> Any:
    if type(name) is not str or name.startswith("_"):
        raise AttributeError(f"attribute {name!r} is not available to submissions")
    if type(obj) is SafeModule:
        return getattr(obj, name, *default)
    if isinstance(obj, types.ModuleType):
        raise AttributeError("raw modules are not available to submissions")
    if name in DENIED_ATTRS:
        raise AttributeError(f"'.{name}' is not available to submissions")
    return getattr(obj, name, *default)


def guarded_hasattr(obj: Any, name: str) -> bool:
    try:
        guarded_getattr(obj, name)
    except Exception:
        return False
    return True


def _writable(obj: Any) -> Any:
    t = type(obj)
    if t is dict or t is list or t.__module__ == SUBMISSION_MODULE:
        return obj
    raise PolicyError(f"objects of type {t.__name__} cannot be modified by submissions")


def guarded_setattr(obj: Any, name: str, value: Any) -> None:
    if type(name) is not str or name.startswith("_"):
        raise PolicyError(f"attribute {name!r} cannot be set")
    setattr(_writable(obj), name, value)


_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "@=": operator.imatmul,
            "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
            ">>=": operator.irshift}


def inplacevar(op: str, x: Any, y: Any) -> Any:
    return _INPLACE[op](x, y)


def printable(text: str) -> str:
    """``text`` without lone surrogates (``chr(0xD800)``), which no UTF-8 stream accepts:
    the text report crashed on a submission that printed or raised one."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _clean_exception(exc: BaseException) -> None:
    """Make the message the judge will render from ``exc`` printable (see ``printable``)."""
    try:
        args = tuple(exc.args)
        clean = tuple(printable(str.__str__(a)) if isinstance(a, str) else a for a in args)
        if any(c is not a for c, a in zip(clean, args)):
            exc.args = clean
    except Exception:  # an exception type with read-only args: leave it
        pass


class PrintSink:
    """Collects ``print`` output, capped so that a flood costs nothing."""

    cap = 8192

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def take(self) -> str:
        text = "".join(self.parts) + ("\n[output truncated]" if self.truncated else "")
        self.parts, self.size, self.truncated = [], 0, False
        return text

    def write(self, text: str) -> None:
        if self.size >= self.cap:
            self.truncated = True
            return
        text = printable(text[: self.cap - self.size])
        self.parts.append(text)
        self.size += len(text)


def make_print_factory(sink: PrintSink):
    class _Collector:
        def __init__(self, _getattr=None):
            pass

        def _call_print(self, *objects, **kwargs):
            kwargs.pop("file", None)
            sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
            sink.write(str(sep).join(str(o) for o in objects) + str(end))

        def __call__(self):
            return ""

    return _Collector


def make_import(table: ModuleTable) -> Callable:
    import sys

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            raise ImportError("relative imports are not available to submissions")
        if name in ALLOWED:
            top = name if fromlist else name.split(".")[0]
            return table.get(top)
        if name in sys.modules:
            # Internal lazy imports by numpy/JAX C code land here (the caller ignores
            # the result); a submission gets an empty module it can do nothing with.
            return SafeModule(name, {})
        raise ImportError(f"module '{name}' is not available to submissions")

    return guarded_import


_BUILTIN_NAMES = """abs all any bool callable chr dict divmod enumerate filter float frozenset int isinstance
    issubclass iter len list map max min next ord pow range repr reversed round set slice sorted str sum tuple zip
    ArithmeticError AssertionError AttributeError Exception FloatingPointError IndexError KeyError LookupError
    NotImplementedError OverflowError RuntimeError StopIteration SystemExit TypeError ValueError ZeroDivisionError
    True False None""".split()


# ------------------------------------------------------------ call windows
#
# Submission code runs only inside a window: the module body (``with _window_():``,
# added by SubmissionPolicy) and calls of the entry (``SubmissionGlobals`` hands the
# child a guarded entry). Leaving a window protects the judge code that runs next in
# the same process (exception messages are also made printable, see ``printable``):
#
# * It restores the interpreter's recursion headroom. jaxlib's pytree code leaks the
#   recursion counter when a RecursionError meets it inside a flatten with a Python
#   callback (is_leaf, key comparisons); a submission feeding a 10000-deep dict to
#   jax.vmap or tree_map left the child unable to call a function, so it died as an
#   internal error (IE). Python 3.11 cannot reset the counter, only raise the limit.
# * Results and argument containers handed back to the judge are capped to the wire's
#   own limits (MAX_DEPTH, MAX_NODES): anything larger becomes a marker the wire
#   rejects as too deeply nested (OLE), before JAX flattens it (a deep or cyclic tree
#   would hit the same leak; a 100000-leaf list made jit crawl into a TLE).
#
# Outside windows ``_live_()`` raises: a generator finalised by the garbage collector
# while the judge sends a frame, or an ``__lt__`` that jit calls while sorting dict keys,
# cannot run submission code in the judge's context.

HEADROOM = 400  # frames of recursion the judge's code gets after a window closes
_OPEN = [0]  # how many windows are open (a list, so that _live_ can bind it as a default)


def restore_headroom() -> None:
    """Make sure at least HEADROOM frames of recursion are left. sys.setrecursionlimit
    refuses a limit at or below the current depth, which makes the test O(1)."""
    limit = sys.getrecursionlimit()
    for _ in range(1000):
        try:
            sys.setrecursionlimit(limit - HEADROOM)
        except RecursionError:  # fewer than HEADROOM frames left
            limit += HEADROOM
            sys.setrecursionlimit(limit)
        else:
            sys.setrecursionlimit(limit)
            return


class _Window:
    """Context manager around submission code; see the comment above."""

    def __enter__(self) -> None:
        _OPEN[0] += 1

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is not None:
            _clean_exception(exc)
        _OPEN[0] -= 1
        if _OPEN[0] <= 0:
            _OPEN[0] = 0
            restore_headroom()


def _window_() -> _Window:
    return _Window()


def _live_(_open: list = _OPEN) -> None:  # runs at every submission function call: kept cheap
    if not _open[0]:
        raise PolicyError("submission code may run only while the judge loads the module or calls the entry "
                          "(the entry must be fetched through SubmissionGlobals.get)")


def _children(node: Any) -> list:
    if isinstance(node, dict):
        return list(dict.values(node))
    if isinstance(node, (list, tuple)):
        return list(list.__iter__(node) if isinstance(node, list) else tuple.__iter__(node))
    if isinstance(node, functools.partial):  # jax.tree_util.Partial is a pytree node
        return [*node.args, *node.keywords.values()]
    return []


def oversized(tree: Any) -> bool:
    """Whether the tree nests deeper than MAX_DEPTH or has more than MAX_NODES parts
    (the wire's limits). Iterative, stops at the limits, so cycles cost nothing."""
    stack, nodes = [(tree, 0)], 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            return True
        stack.extend((child, depth + 1) for child in _children(node))
    return False


def too_large_marker() -> list:
    """Nested lists one level deeper than the wire accepts: cheap for JAX, OLE on the wire."""
    marker: Any = None
    for _ in range(MAX_DEPTH + 2):
        marker = [marker]
    return marker


def _printable_keys(tree: Any) -> None:
    """Dict keys are the only submission strings the wire carries (the structure check
    quotes them); make them printable in place. Call on trees that are not oversized."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            if any(type(k) is str and printable(k) is not k for k in dict.keys(node)):
                items = list(dict.items(node))
                dict.clear(node)
                dict.update(node, [((printable(k) if type(k) is str else k), v) for k, v in items])
            stack.extend(dict.values(node))
        elif type(node) in (list, tuple):
            stack.extend(node)


def _cap_in_place(container: Any) -> None:
    if type(container) is dict and oversized(container):
        dict.clear(container)
        container["too_large"] = too_large_marker()
    elif type(container) is list and oversized(container):
        list.clear(container)
        container.append(too_large_marker())
    else:
        _printable_keys(container)


def guard_entry(fn: Callable, namespace: dict, name: str) -> Callable:
    """The entry as the child calls it: inside a window, with its result and the
    containers it was given capped to the wire's limits."""

    @functools.wraps(fn)
    def entry(*args: Any, **kwargs: Any) -> Any:
        with _Window():
            try:
                out = fn(*args, **kwargs)
            finally:
                for arg in (*args, *kwargs.values()):
                    _cap_in_place(arg)
                current = dict.get(namespace, name)
                if callable(current) and not getattr(current, "__guarded_entry__", False):
                    dict.__setitem__(namespace, name, guard_entry(current, namespace, name))  # rebound by ``global``
            if oversized(out):
                return too_large_marker()
            _printable_keys(out)
            return out

    entry.__guarded_entry__ = True
    return entry


class SubmissionGlobals(dict):
    """The submission's module namespace. The child finds the entry with ``get`` after
    loading the module; from then on the name holds the guarded entry, so the child's
    later ``globals[entry]`` lookups (jit, eager, probes) call it inside a window."""

    def __missing__(self, key: Any) -> Any:
        # A dict subclass as globals sends every global lookup through the mapping
        # protocol; answering builtins here spares each builtin name a KeyError.
        return dict.__getitem__(dict.__getitem__(self, "__builtins__"), key)

    def get(self, key: Any, default: Any = None) -> Any:
        value = dict.get(self, key, default)
        if key in self and callable(value) and not getattr(value, "__guarded_entry__", False):
            value = guard_entry(value, self, key)
            dict.__setitem__(self, key, value)
        return value


def make_globals(table: ModuleTable, sink: PrintSink) -> dict[str, Any]:
    safe = {name: getattr(builtins, name) for name in _BUILTIN_NAMES}
    safe.update(
        __build_class__=safe_builtins["__build_class__"],
        __import__=make_import(table),
        getattr=guarded_getattr,
        hasattr=guarded_hasattr,
        setattr=guarded_setattr,
        staticmethod=staticmethod,
        classmethod=classmethod,
        property=property,
    )
    return SubmissionGlobals({
        "__builtins__": safe,
        "__name__": SUBMISSION_MODULE,
        "_window_": _window_,
        "_live_": _live_,
        "__metaclass__": type,
        "_getattr_": guarded_getattr,
        "_getitem_": operator.getitem,
        "_getiter_": iter,
        "_write_": _writable,
        "_inplacevar_": inplacevar,
        "_print_": make_print_factory(sink),
        "_apply_": lambda f, *a, **k: f(*a, **k),
        "_unpack_sequence_": guarded_unpack_sequence,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    })


def syntax_error(source: str) -> SyntaxError | None:
    try:
        ast.parse(source, SUBMISSION_FILE)
    except SyntaxError as exc:
        return exc
    return None


__all__ = ["ALLOWED", "DENIED_ATTRS", "ModuleTable", "PrintSink", "SafeModule", "SubmissionGlobals",
           "compile_submission", "make_globals", "restricted_errors", "restore_headroom", "syntax_error"]
