"""The refusals: every public name of the JAX modules the judge opens that a
submission may not use, with the reason it is told. Pure data, like ``allowlist``.

A JAX module listed in ``allowlist.ALLOWED`` is covered completely: each public name
of it is either allowed there or refused here (``tests/test_allowlist.py`` holds this
against the installed JAX), so a name is refused on purpose, never by omission.
"""
from __future__ import annotations

from typing import NamedTuple


class Reason(NamedTuple):
    label: str  # a few words, for the statement's "what your code may use" line
    why: str  # completes "'jax.x' is refused by the judge: ..."
    summary: bool = False  # named in that line


CALLBACK = Reason("callbacks", "it calls back into Python outside the sandboxed trace", True)
DEVICES = Reason("devices", "it reaches devices, hosts, meshes or shardings, which the judge chooses", True)
TRANSFER = Reason("devices", "it moves data between the host and devices outside the traced program", True)
EXPERIMENTAL = Reason("callbacks", "its experimental APIs include callbacks into Python (io_callback) and "
                      "control of devices", True)
OFFLOAD = Reason("devices", "some of its policies offload residuals to host memory, a host transfer (pass a "
                 "policy function of your own)", True)
IO = Reason("I/O", "it reads or writes files", True)
CONFIG = Reason("config", "it reads or changes JAX's process-wide configuration, which the judge sets", True)
PROFILE = Reason("profiling", "it profiles, logs or describes the process and its host")
COMPILE = Reason("compilation internals", "it reaches compilation internals (exported, lowered or compiled "
                 "programs, caches, foreign functions)")
INTERNAL = Reason("JAX internals", "it exposes JAX internals (primitives, jaxprs, tracing machinery)")
PRIMITIVE = Reason("JAX internals", "it is a JAX primitive object, whose bind and def_impl reach JAX internals")
ALL_ARRAYS = Reason("devices", "it lists every array in the process, the judge's own included")
REGISTRY = Reason("JAX internals", "it changes JAX's process-wide pytree registry, which the judge's own code "
                  "uses to flatten results (use a dict, a tuple or a NamedTuple)")
STATE = Reason("mutable state", "mutable array references keep state between calls, outside the traced program")
EAGER = Reason("JAX internals", "it evaluates eagerly inside a trace, out of sight of the judge's measurement "
               "of the program")
COLLECTIVE = Reason("devices", "it exchanges data between devices; it needs pmap or shard_map, which are refused")
PLATFORM = Reason("devices", "it chooses code by the platform the judge happens to run on")
TOKEN = Reason("JAX internals", "it orders side effects with tokens, and submissions have no side effects")
RNG_STATE = Reason("stateful random numbers", "it is XLA's stateful random generator: use jax.random with a key")
PRINT = Reason("config", "it changes numpy's process-wide print settings")
OBJECT = Reason("object arrays", "an object array holds Python objects, which no JAX program computes with")
DECOMPOSITIONS = Reason("duplicates", "its decompositions are offered once, as jax.numpy.linalg, which a "
                        "problem's rules name")
NOT_OPENED = Reason("other modules", "the judge does not open this module to submissions")


def _refuse(reason: Reason, module: str, names: str) -> dict[str, Reason]:
    return {f"{module}.{name}": reason for name in names.split()}


# Fully qualified name -> why a submission may not use it.
REFUSED: dict[str, Reason] = {
    **_refuse(CALLBACK, "jax", "pure_callback make_array_from_callback effects_barrier debug monitoring"),
    **_refuse(EXPERIMENTAL, "jax", "experimental"),
    **_refuse(DEVICES, "jax", """Device NamedSharding P Shard sharding make_mesh set_mesh shard_map smap reshard
        remove_size_one_mesh_axis_from_type devices device_count local_devices local_device_count default_backend
        default_device host_count host_id host_ids process_count process_index process_indices pmap distributed
        memory make_array_from_process_local_data make_array_from_single_device_arrays"""),
    **_refuse(TRANSFER, "jax", "device_put device_get copy_to_host_async dlpack"),
    **_refuse(OFFLOAD, "jax", "checkpoint_policies"),
    **_refuse(ALL_ARRAYS, "jax", "live_arrays"),
    **_refuse(CONFIG, "jax", """config allow_f16_reductions array_garbage_collection_guard auto_pcast
        check_tracer_leaks checking_leaks debug_infs debug_key_reuse debug_nans default_matmul_precision
        default_prng_impl disable_jit enable_checks enable_custom_prng enable_x64 explain_cache_misses
        jax2tf_associative_scan_reductions legacy_prng_key log_compiles make_user_context no_execution no_tracing
        numpy_dtype_promotion numpy_rank_promotion softmax_custom_jvp thread_guard threefry_partitionable
        transfer_guard transfer_guard_device_to_device transfer_guard_device_to_host
        transfer_guard_host_to_device"""),
    **_refuse(PROFILE, "jax", "profiler print_environment_info"),
    **_refuse(COMPILE, "jax", "clear_caches export stages ffi lib extend"),
    **_refuse(INTERNAL, "jax", "ad api_util core custom_batching custom_derivatives interpreters make_jaxpr "
                               "typeof closure_convert"),
    **_refuse(STATE, "jax", "Ref new_ref empty_ref free_ref freeze ref ds"),
    **_refuse(EAGER, "jax", "ensure_compile_time_eval"),
    **_refuse(NOT_OPENED, "jax", "errors version"),
    **_refuse(COLLECTIVE, "jax.lax", "all_to_all ppermute psend precv pshuffle pswapaxes psum_scatter "
                                     "ragged_all_to_all pbroadcast pcast"),
    **_refuse(DEVICES, "jax.lax", "with_sharding_constraint"),
    **_refuse(PLATFORM, "jax.lax", "platform_dependent"),
    **_refuse(TOKEN, "jax.lax", "after_all create_token"),
    **_refuse(RNG_STATE, "jax.lax", "rng_uniform"),
    **_refuse(INTERNAL, "jax.lax", "composite dce_sink shape_as_value"),
    **_refuse(DECOMPOSITIONS, "jax.lax", "linalg"),
    **_refuse(IO, "jax.numpy", "load fromfile save savez"),
    **_refuse(TRANSFER, "jax.numpy", "from_dlpack"),
    **_refuse(PRINT, "jax.numpy", "printoptions set_printoptions"),
    **_refuse(OBJECT, "jax.numpy", "object_"),
    **_refuse(REGISTRY, "jax.tree_util", """register_dataclass register_pytree_node register_pytree_node_class
        register_pytree_with_keys register_pytree_with_keys_class register_static default_registry"""),
    **_refuse(NOT_OPENED, "jax.scipy", "cluster fft integrate interpolate linalg ndimage signal sparse stats"),
}

# Name shapes refused in every JAX module: lax.add_p, random.random_gamma_p, ...
REFUSED_SUFFIXES: dict[str, Reason] = {"_p": PRIMITIVE}


def refusal(module: str, name: str) -> Reason | None:
    """Why ``module.name`` is refused, or None when the table does not refuse it."""
    reason = REFUSED.get(f"{module}.{name}")
    if reason is None and (module == "jax" or module.startswith("jax.")):
        reason = next((r for suffix, r in REFUSED_SUFFIXES.items() if name.endswith(suffix)), None)
    return reason
