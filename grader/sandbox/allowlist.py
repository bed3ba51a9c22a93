"""What a submission may name: per-module allow-lists, the refusals with their
reasons (``allowlist_table``) and a deny-list of attributes.

Pure data and the words built from it, read by the judge's static checks (imports
outside the lists are a compile error) and by the child, which builds the module
views a submission sees from it (``child.namespace``) and refuses the denied
attributes at run time (``child.guards``). Both say why through ``refused_message``.
The judge's process never imports JAX, so the lists are written out here, and
``tests/test_allowlist.py`` compares each JAX module's list with the installed JAX.
"""
from __future__ import annotations

import difflib

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from .allowlist_table import Reason, REFUSED, refusal


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Module name -> the attributes a submission may use. Submodules listed here are
# exposed as SafeModules in turn; everything else simply does not exist. Every JAX
# module here is listed whole: each public name is either here or in REFUSED.
ALLOWED: dict[str, frozenset[str]] = {
    "jax": _names("""Array ShapeDtypeStruct block_until_ready checkpoint custom_gradient
        custom_jvp custom_vjp dtypes eval_shape flatten_util float0 fwd_and_bwd grad hessian image jacfwd jacobian
        jacrev jit jvp lax linear_transpose linearize named_call named_scope nn numpy ops random remat scipy tree
        tree_util typing value_and_grad vjp vmap"""),
    "jax.numpy": _names("""ComplexWarning abs absolute acos acosh add all allclose amax amin angle any append
        apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin
        argpartition argsort argwhere around array array_equal array_equiv array_repr array_split array_str asarray
        asin asinh astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bartlett bfloat16 bincount
        bitwise_and bitwise_count bitwise_invert bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift
        bitwise_xor blackman block bool bool_ broadcast_arrays broadcast_shapes broadcast_to c_ can_cast cbrt
        cdouble ceil character choose clip column_stack complex128 complex64 complex_ complexfloating compress
        concat concatenate conj conjugate convolve copy copysign corrcoef correlate cos cosh count_nonzero cov cross
        csingle cumprod cumsum cumulative_prod cumulative_sum deg2rad degrees delete diag diag_indices
        diag_indices_from diagflat diagonal diff digitize divide divmod dot double dsplit dstack dtype e ediff1d
        einsum einsum_path empty empty_like equal euler_gamma exp exp2 expand_dims expm1 extract eye fabs fft
        fill_diagonal finfo flatnonzero flexible flip fliplr flipud float16 float32 float4_e2m1fn float64
        float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3 float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz
        float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float_ float_power floating floor floor_divide fmax fmin fmod
        frexp frombuffer fromfunction fromiter frompyfunc fromstring full full_like gcd generic geomspace
        get_printoptions gradient greater greater_equal hamming hanning heaviside histogram histogram2d
        histogram_bin_edges histogramdd hsplit hstack hypot i0 identity iinfo imag index_exp indices inexact inf
        inner insert int1 int16 int2 int32 int4 int64 int8 int_ integer interp intersect1d invert isclose iscomplex
        iscomplexobj isdtype isfinite isin isinf isnan isneginf isposinf isreal isrealobj isscalar issubdtype
        iterable ix_ kaiser kron lcm ldexp left_shift less less_equal lexsort linalg linspace log log10 log1p log2
        logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logspace mask_indices matmul
        matrix_transpose matvec max maximum mean median meshgrid mgrid min minimum mod modf moveaxis multiply nan
        nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod
        nanquantile nanstd nansum nanvar ndarray ndim negative newaxis nextafter nonzero not_equal number ogrid ones
        ones_like outer packbits pad partition percentile permute_dims pi piecewise place poly polyadd polyder
        polydiv polyfit polyint polymul polysub polyval positive pow power prod promote_types ptp put put_along_axis
        quantile r_ rad2deg radians ravel ravel_multi_index real reciprocal remainder repeat reshape resize
        result_type right_shift rint roll rollaxis roots rot90 round s_ searchsorted select setdiff1d setxor1d shape
        sign signbit signedinteger sin sinc single sinh size sort sort_complex spacing split sqrt square squeeze
        stack std subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose trapezoid tri
        tril tril_indices tril_indices_from trim_zeros triu triu_indices triu_indices_from true_divide trunc ufunc
        uint uint1 uint16 uint2 uint32 uint4 uint64 uint8 union1d unique unique_all unique_counts unique_inverse
        unique_values unpackbits unravel_index unsignedinteger unstack unwrap vander var vdot vecdot vecmat
        vectorize vsplit vstack where zeros zeros_like"""),
    "jax.numpy.linalg": _names("""cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul
        matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr slogdet solve svd svdvals
        tensordot tensorinv tensorsolve trace vecdot vector_norm"""),
    "jax.numpy.fft": _names("""fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2
        irfftn rfft rfft2 rfftfreq rfftn"""),
    "jax.lax": _names("""AccuracyMode ConvDimensionNumbers ConvGeneralDilatedDimensionNumbers DotAlgorithm
        DotAlgorithmPreset DotDimensionNumbers FftType GatherDimensionNumbers GatherScatterMode Precision
        PrecisionLike RaggedDotDimensionNumbers RandomAlgorithm RoundingMethod ScatterDimensionNumbers Tolerance abs
        acos acosh add all_gather approx_max_k approx_min_k argmax argmin asin asinh associative_scan atan atan2
        atanh axis_index axis_size batch_matmul bessel_i0e bessel_i1e betainc bitcast_convert_type bitwise_and
        bitwise_not bitwise_or bitwise_xor broadcast broadcast_in_dim broadcast_like broadcast_shapes
        broadcast_to_rank broadcasted_iota cbrt ceil clamp clz collapse complex concatenate cond conj conv
        conv_dimension_numbers conv_general_dilated conv_general_dilated_local conv_general_dilated_patches
        conv_general_permutations conv_general_shape_tuple conv_shape_tuple conv_transpose
        conv_transpose_shape_tuple conv_with_general_padding convert_element_type cos cosh cumlogsumexp cummax
        cummin cumprod cumsum custom_linear_solve custom_root digamma div dot dot_general dtype dynamic_index_in_dim
        dynamic_slice dynamic_slice_in_dim dynamic_update_index_in_dim dynamic_update_slice
        dynamic_update_slice_in_dim empty eq erf erf_inv erfc exp exp2 expand_dims expm1 fft floor fori_loop full
        full_like gather ge gt igamma igamma_grad_a igammac imag index_in_dim index_take integer_pow iota is_finite
        le lgamma log log1p logistic lt map max min mul mulhi ne neg nextafter optimization_barrier pad
        padtype_to_pads pmax pmean pmin polygamma population_count pow psum ragged_dot ragged_dot_general
        random_gamma_grad real reciprocal reduce reduce_and reduce_max reduce_min reduce_or reduce_precision
        reduce_prod reduce_sum reduce_window reduce_window_shape_tuple reduce_xor rem reshape rev rng_bit_generator
        round rsqrt scaled_dot scan scatter scatter_add scatter_apply scatter_max scatter_min scatter_mul
        scatter_sub select select_n shift_left shift_right_arithmetic shift_right_logical sign sin sinh slice
        slice_in_dim sort sort_key_val split sqrt square squeeze stack stage stop_gradient sub switch tan tanh tile
        top_k transpose unstack while_loop zeta"""),
    "jax.nn": _names("""celu dot_product_attention elu gelu get_scaled_dot_general_config glu hard_sigmoid hard_silu
        hard_swish hard_tanh identity initializers leaky_relu log1mexp log_sigmoid log_softmax logmeanexp logsumexp
        mish one_hot relu relu6 scaled_dot_general scaled_matmul selu sigmoid silu soft_sign softmax softplus
        sparse_plus sparse_sigmoid squareplus standardize swish tanh"""),
    "jax.nn.initializers": _names("""Initializer constant delta_orthogonal glorot_normal glorot_uniform he_normal
        he_uniform kaiming_normal kaiming_uniform lecun_normal lecun_uniform normal ones orthogonal truncated_normal
        uniform variance_scaling xavier_normal xavier_uniform zeros"""),
    "jax.tree_util": _names("""DictKey FlattenedIndexKey GetAttrKey KeyEntry KeyPath Partial PyTreeDef SequenceKey
        all_leaves flatten_one_level flatten_one_level_with_keys is_tree_node keystr tree_all tree_broadcast
        tree_flatten tree_flatten_with_path tree_leaves tree_leaves_with_path tree_map tree_map_with_path
        tree_reduce tree_reduce_associative tree_structure tree_transpose tree_unflatten treedef_children
        treedef_is_leaf treedef_tuple"""),
    "jax.tree": _names("""all broadcast flatten flatten_with_path leaves leaves_with_path map map_with_path reduce
        reduce_associative static structure transpose unflatten"""),
    "jax.random": _names("""PRNGKey ball bernoulli beta binomial bits categorical cauchy chisquare choice clone
        dirichlet double_sided_maxwell exponential f fold_in gamma generalized_normal geometric gumbel key key_data
        key_dtype key_impl laplace loggamma logistic lognormal maxwell multinomial multivariate_normal normal
        orthogonal pareto permutation poisson rademacher randint rayleigh split t triangular truncated_normal
        uniform wald weibull_min wrap_key_data"""),
    "jax.scipy": _names("""special"""),
    "jax.scipy.special": _names("""bernoulli bessel_jn beta betainc betaln boxcox boxcox1p comb dawsn digamma entr
        erf erfc erfcx erfinv exp1 expi expit expn factorial fresnel gamma gammainc gammaincc gammaln gammasgn
        hyp1f1 hyp2f1 i0 i0e i1 i1e kl_div log_ndtr log_softmax loggamma logit logsumexp multigammaln ndtr ndtri
        owens_t poch polygamma rel_entr sici softmax spence sph_harm_y wofz xlog1py xlogy zeta"""),
    "jax.flatten_util": _names("""ravel_pytree"""),
    "jax.dtypes": _names("""TypePromotionError bfloat16 canonicalize_dtype extended finfo float0 iinfo issubdtype
        itemsize_bits prng_key result_type scalar_type_of"""),
    "jax.typing": _names("""ArrayLike DTypeLike"""),
    "jax.ops": _names("""segment_max segment_min segment_prod segment_sum"""),
    "jax.image": _names("""ResizeMethod resize scale_and_translate"""),
    "numpy": _names("""abs allclose arange array asarray clip concatenate cos dot e einsum exp eye float32
        float64 full inf int32 int64 isclose isfinite isnan linspace log matmul max maximum mean min minimum nan
        ones ones_like outer pi prod reshape sign sin sqrt square stack sum tanh transpose where zeros zeros_like
        linalg"""),
    "numpy.linalg": frozenset({"norm"}),
    "math": _names("""sqrt exp log log1p expm1 pi e inf nan isfinite isnan isinf fabs floor ceil pow tanh
        sin cos prod fsum hypot"""),
    "functools": frozenset({"partial", "reduce"}),
    "operator": _names("add sub mul truediv neg pos matmul itemgetter getitem"),
    "itertools": _names("product combinations permutations chain accumulate repeat"),
    # PEP 563: annotations kept as text. The import also runs, and binds a harmless
    # __future__._Feature; no other future feature is needed by honest code.
    "__future__": frozenset({"annotations"}),
    # For annotations and NamedTuple state. None of these can be called to make an object
    # (typing.Type, which would call type(), is left out on purpose).
    "typing": _names("""Any Callable ClassVar Dict Final FrozenSet Iterable Iterator List Literal Mapping NamedTuple
        Optional Sequence Set Tuple Union"""),
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


# How the statement line describes a module, where its name alone would mislead.
NOTES: dict[str, str] = {"jax": "transforms", "numpy": "a few functions"}


def _is_jax(module: str) -> bool:
    return module == "jax" or module.startswith("jax.")


def refused_message(module: str, name: str) -> str:
    """Why ``module.name`` cannot be used: the table's reason for a refused name, else
    that no such name is open to submissions, with the nearest allowed one."""
    reason = refusal(module, name)
    if reason is not None:
        return f"'{module}.{name}' is refused by the judge: {reason.why}"
    allowed = ALLOWED.get(module, frozenset())
    near = difflib.get_close_matches(name, sorted(allowed), n=1)
    hint = f"; did you mean '{near[0]}'?" if near else ""
    if module not in ALLOWED:
        return f"module '{module}' is not available to submissions"
    if _is_jax(module):
        # A JAX module is listed whole, so a name in neither list is not JAX's.
        return f"no attribute '{name}' in {module}{hint}"
    return f"'{module}.{name}' is not among the names of {module} open to submissions{hint}"


def module_message(dotted: str) -> str:
    """Why ``import dotted`` (or ``from parent import child``) is refused."""
    parent, _, child = dotted.rpartition(".")
    if parent in ALLOWED:
        return refused_message(parent, child)
    return f"module '{dotted}' is not available to submissions"


def _summary_labels() -> list[str]:
    labels: list[str] = []
    for reason in REFUSED.values():
        if reason.summary and reason.label not in labels:
            labels.append(reason.label)
    return labels


def may_use_line() -> str:
    """The statement's one line on what a submission may use, built from the tables:
    every module open to submissions, then the main kinds of refusal. A submodule goes
    with its shown parent (``jax.numpy.linalg`` with ``jax.numpy``), and a package that
    only holds submodules (``jax.scipy``) gives way to them."""
    shown: list[str] = []
    for module, attrs in ALLOWED.items():
        if module.startswith("_") or attrs and all(f"{module}.{n}" in ALLOWED for n in attrs):
            continue
        parent = module.rpartition(".")[0]
        if parent in shown and parent != "jax":
            continue
        shown.append(module)
    parts = [f"{m} ({NOTES[m]})" if m in NOTES else m for m in shown]
    labels = _summary_labels()
    refusals = ", ".join(labels[:-1]) + f" or {labels[-1]}" if len(labels) > 1 else "".join(labels)
    return f"Your code may use {', '.join(parts)}; not {refusals}."


__all__ = ["ALLOWED", "DENIED_ATTRS", "DENIED_KEYWORDS", "KEYWORDS", "NOTES", "REFUSED", "Reason",
           "module_message", "may_use_line", "refused_message", "refusal"]
