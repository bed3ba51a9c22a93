"""The language layer of the sandbox: RestrictedPython plus explicit allow-lists.

Runs inside the child. A submission sees modules only as ``SafeModule``
proxies that expose allow-listed attributes; every attribute read on other
objects passes a deny-list of the names that lead out (devices, buffers,
frames, ``format`` walks); writes reach only plain dicts, lists and the
submission's own objects. The OS layers (``lockdown``) back this up: a hole
here still meets a process that cannot open files, exec or talk to a network.
"""
from __future__ import annotations

import ast
import builtins
import operator
import types
from typing import Any, Callable

from RestrictedPython import compile_restricted, safe_builtins
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import RestrictingNodeTransformer

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
    im_func im_self with_traceback jaxpr eqns cache_clear cache_info register defvjp_all""".split())


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
    only dunder names and names shaped like the guards (``_x_``) stay forbidden."""

    def check_name(self, node, name, allow_magic_methods=False):  # noqa: D401
        if name and name.startswith("_") and not name.startswith("__") and not name.endswith("_") and name != "_":
            return
        super().check_name(node, name, allow_magic_methods)


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
        text = text[: self.cap - self.size]
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
    return {
        "__builtins__": safe,
        "__name__": SUBMISSION_MODULE,
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
    }


def syntax_error(source: str) -> SyntaxError | None:
    try:
        ast.parse(source, SUBMISSION_FILE)
    except SyntaxError as exc:
        return exc
    return None


__all__ = ["ALLOWED", "DENIED_ATTRS", "ModuleTable", "PrintSink", "SafeModule", "compile_submission",
           "make_globals", "restricted_errors", "syntax_error"]
