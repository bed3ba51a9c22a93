"""What a submission may name: per-module allow-lists and a deny-list of attributes.

Pure data, read by the judge's static checks (imports outside the lists are a
compile error) and by the child, which builds the module views a submission sees
from it (``child.namespace``) and refuses the denied attributes at run time
(``child.guards``).
"""
from __future__ import annotations

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

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
    def_effectful_abstract_eval def_effectful_abstract_eval2 to_lojax to_device fun fwd bwd jvp""".split()) \
    | INSPECT_ATTRIBUTES
# ``obj``: since Python 3.10 an AttributeError carries the object whose lookup failed,
# which may be an object internal to JAX or numpy. ``bind`` .. ``to_lojax``: a
# jax.checkpoint policy is called with JAX Primitive objects, whose def_impl & co.
# would let a submission redefine primitives for the judge's code in the same process.
# ``fun`` .. ``jvp``: a custom_vjp/custom_jvp object keeps the functions it was built
# from, which the judge wraps to record how transforms nest; calling them directly
# would forge that record. (Modules are exempt: ``jax.jvp`` stays available.)
# INSPECT_ATTRIBUTES (frames, code, generators) are refused at compile time by
# RestrictedPython; this refuses them when the name is built at runtime.

# Keyword arguments, for the calls that configure compilation: only these may be passed
# (``jax.jit(f, compiler_options={"xla_dump_to": ...})`` would make XLA write files).
KEYWORDS: dict[str, frozenset[str]] = {
    "jax.jit": frozenset({"static_argnums", "static_argnames", "inline", "keep_unused"}),
    "jax.checkpoint": frozenset({"prevent_cse", "static_argnums", "policy"}),
    "jax.remat": frozenset({"prevent_cse", "static_argnums", "policy"}),
    "jax.named_call": frozenset({"name"}),
}
# Keywords no other allowed callable may be given: they choose devices, backends,
# shardings or compiler settings.
DENIED_KEYWORDS = frozenset({"device", "backend", "compiler_options", "sharding", "out_sharding", "in_shardings",
                             "out_shardings", "donate_argnums", "donate_argnames"})
