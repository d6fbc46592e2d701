"""Attention operators and geometries audited by attnaudit: pure torch functions on ``(..., n, d)``.

Geometry layer (one module per geometry; squared distances exact and twice
differentiable at coincident points, plus the maps the papers use):

- Euclidean (:mod:`operators.distances`): :func:`squared_distances`.
- Poincaré ball of curvature -c (:mod:`operators.poincare`): :func:`poincare_distance`,
  :func:`poincare_sqdist`, :func:`poincare_distance_matrix`, :func:`mobius_add`,
  :func:`poincare_expmap0`, :func:`poincare_logmap0`, :func:`poincare_expmap`,
  :func:`poincare_logmap`, :func:`poincare_project`, :func:`poincare_tanh_map`,
  :func:`poincare_conformal_factor`, :func:`poincare_karcher_mean`.
- Sphere (:mod:`operators.sphere`): :func:`sphere_distance`, :func:`sphere_sqdist`,
  :func:`sphere_normalize`, :func:`sphere_stereographic`, :func:`sphere_stereographic_inverse`.
- Dynamic Memory Genesis (:mod:`operators.dmg`, GeoResolver §9): :func:`dmg_window_stats`,
  :func:`dmg_margins`, :func:`dmg_surprises`, :func:`dmg_detector` (the surprise detector with
  its adaptive threshold) and :func:`dmg_pool` (the prototype pool with spawn and merge).
- Per-token metrics g_t = I + U_tU_tᵀ (:mod:`operators.metric`): :func:`metric_from_factors`,
  :func:`metric_sqdist` (low-rank form), :func:`metric_sqdist_direct` (materialised);
  metric attention on them (:mod:`operators.metric_attention`): :func:`metric_scores`
  (direct and Eq. 16 decomposed), :func:`woodbury_inverse`, :func:`metricnet`,
  :func:`metric_attention_direct`, :func:`metric_bias_attention` (fused additive bias, key-block
  streamed), :func:`composite_norm`, :func:`composite_residual`, :func:`collapse_stack`.

One distance-attention core (:mod:`operators.core`): :func:`distance_attention` (streamed
over key blocks, online power-of-two normaliser) and its reference path
:func:`distance_weights`; on it :func:`ida_attention` (GeoResolver's Euclidean
Resolver, §2.1), :func:`hida_attention` (Dense-HIDA) and :func:`sida_attention` (SIDA).

Multi-head attention with explicit per-head parameters (:mod:`operators.mha`):
:func:`mha_attention` (biases, RoPE, grouped-query attention), :func:`mha_weights`,
:func:`rope_rotate`; and attention as a connection walk (:mod:`operators.connection`):
:func:`connection_walk`, :func:`mha_connection`.

LaplacianFormer (:mod:`operators.laplacian`): :func:`laplacian_kernel`, :func:`gaussian_kernel`,
:func:`segment_means`, :func:`nystrom_kernel`, :func:`newton_schulz_inverse`; RMSNorm
(:mod:`operators.rmsnorm`): :func:`rms_norm`.

HyperGate (:mod:`operators.hypergate`): :func:`hypergate`, :func:`hypergate_jacobian`. Routing
(:mod:`operators.routing`): :func:`sphere_mlp_map`, :func:`gsr_weights`, :func:`gsr_topk`,
:func:`gsr_attention`, :func:`gsr_exact`.

The sub-quadratic HIDA family of GeoResolver §5.4–§5.6 (:mod:`operators.hida`: FP-, L-,
Nyström- and C-HIDA) and the HCC quantiser with its bit-packed key cache (:mod:`operators.hcc`).

Also :func:`softmax_weights`, :func:`softmax_attention` (the baseline, same semantics as
``torch.nn.functional.scaled_dot_product_attention``), :func:`ida_weights`,
:func:`ida_kernel` (the kernel of GeoResolver Theorem 2.8) and :func:`effective_rank`.

The geometry layer and the distance-attention operators accept float16/bfloat16/float32/float64
(half types computed in float32) on any device, take geometry parameters keyword-only, and
never synchronise with the device (value checks are device-side asserts off the CPU), except
where a docstring says so (the Karcher mean's stopping test; an explicitly requested fast path
on an accelerator). The other families state their dtypes and devices in their docstrings.
The operator registry (:mod:`attnaudit.testing.opinfo`) describes each operator once for the
tests and the precision table.
"""

from . import hcc, hida
from .attention import hida_attention, sida_attention
from .connection import connection_walk, mha_connection
from .core import distance_attention, distance_weights
from .distances import squared_distances
from .dmg import dmg_detector, dmg_margins, dmg_pool, dmg_surprises, dmg_window_stats
from .hcc import HCCKeyCache, hcc_dequantize, hcc_quantize, hcc_roundtrip
from .hida import (
    c_hida_attention,
    c_hida_online,
    dense_hida_gram,
    fp_hida_attention,
    fp_hida_index_sets,
    l_hida_attention,
    nystrom_hida_attention,
)
from .hypergate import hypergate, hypergate_jacobian
from .ida import effective_rank, ida_attention, ida_kernel, ida_weights
from .laplacian import (
    gaussian_kernel,
    laplacian_kernel,
    newton_schulz_inverse,
    nystrom_kernel,
    segment_means,
)
from .metric import metric_from_factors, metric_sqdist, metric_sqdist_direct
from .metric_attention import (
    collapse_stack,
    composite_norm,
    composite_residual,
    metric_attention_direct,
    metric_bias_attention,
    metric_scores,
    metricnet,
    woodbury_inverse,
)
from .mha import mha_attention, mha_weights, rope_rotate
from .poincare import (
    mobius_add,
    poincare_conformal_factor,
    poincare_distance,
    poincare_distance_matrix,
    poincare_expmap,
    poincare_expmap0,
    poincare_karcher_mean,
    poincare_logmap,
    poincare_logmap0,
    poincare_project,
    poincare_sqdist,
    poincare_tanh_map,
)
from .rmsnorm import rms_norm
from .routing import gsr_attention, gsr_exact, gsr_topk, gsr_weights, sphere_mlp_map
from .softmax import softmax_attention, softmax_weights
from .sphere import (
    sphere_distance,
    sphere_normalize,
    sphere_sqdist,
    sphere_stereographic,
    sphere_stereographic_inverse,
)

__all__ = [
    "connection_walk",
    "mha_attention",
    "mha_connection",
    "mha_weights",
    "rope_rotate",
    "collapse_stack",
    "composite_norm",
    "composite_residual",
    "sphere_mlp_map",
    "hypergate_jacobian",
    "hypergate",
    "gsr_weights",
    "gsr_topk",
    "gsr_exact",
    "gsr_attention",
    "HCCKeyCache",
    "c_hida_attention",
    "c_hida_online",
    "dense_hida_gram",
    "fp_hida_attention",
    "fp_hida_index_sets",
    "hcc",
    "hcc_dequantize",
    "hcc_quantize",
    "hcc_roundtrip",
    "hida",
    "l_hida_attention",
    "nystrom_hida_attention",
    "distance_attention",
    "distance_weights",
    "dmg_detector",
    "dmg_margins",
    "dmg_pool",
    "dmg_surprises",
    "dmg_window_stats",
    "effective_rank",
    "gaussian_kernel",
    "hida_attention",
    "ida_attention",
    "ida_kernel",
    "ida_weights",
    "laplacian_kernel",
    "metric_from_factors",
    "metric_sqdist",
    "metric_attention_direct",
    "metric_bias_attention",
    "metric_scores",
    "metric_sqdist_direct",
    "metricnet",
    "mobius_add",
    "newton_schulz_inverse",
    "nystrom_kernel",
    "poincare_conformal_factor",
    "poincare_distance",
    "poincare_distance_matrix",
    "poincare_expmap",
    "poincare_expmap0",
    "poincare_karcher_mean",
    "poincare_logmap",
    "poincare_logmap0",
    "poincare_project",
    "poincare_sqdist",
    "poincare_tanh_map",
    "rms_norm",
    "segment_means",
    "sida_attention",
    "softmax_attention",
    "softmax_weights",
    "sphere_distance",
    "sphere_normalize",
    "sphere_sqdist",
    "sphere_stereographic",
    "sphere_stereographic_inverse",
    "squared_distances",
    "woodbury_inverse",
]
