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
- Per-token metrics g_t = I + U_tU_tᵀ (:mod:`operators.metric`): :func:`metric_from_factors`,
  :func:`metric_sqdist` (low-rank form), :func:`metric_sqdist_direct` (materialised).

One distance-attention core (:mod:`operators.core`): :func:`distance_attention` (streamed
over key blocks, online power-of-two normaliser) and its reference path
:func:`distance_weights`; on it :func:`ida_attention` (GeoResolver's Euclidean
Resolver, §2.1), :func:`hida_attention` (Dense-HIDA) and :func:`sida_attention` (SIDA).

Also :func:`softmax_weights`, :func:`softmax_attention` (the baseline, same semantics as
``torch.nn.functional.scaled_dot_product_attention``), :func:`ida_weights`,
:func:`ida_kernel` (the kernel of GeoResolver Theorem 2.8) and :func:`effective_rank`.

All accept float16/bfloat16/float32/float64 (half types computed in float32) on any
device, take geometry parameters keyword-only, and never synchronise with the device
(value checks are device-side asserts off the CPU), except where a docstring says so
(the Karcher mean's stopping test; an explicitly requested fast path on an accelerator).
The sub-quadratic HIDA family of GeoResolver §5.4–§5.6 (:mod:`operators.hida`: FP-, L-,
Nyström- and C-HIDA) and the HCC quantiser with its bit-packed key cache (:mod:`operators.hcc`).
The operator registry (:mod:`operators.opinfo`) describes each operator once for the tests
and the precision table.
"""

from . import hcc, hida
from .attention import hida_attention, sida_attention
from .core import distance_attention, distance_weights
from .distances import squared_distances
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
from .ida import effective_rank, ida_attention, ida_kernel, ida_weights
from .metric import metric_from_factors, metric_sqdist, metric_sqdist_direct
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
from .softmax import softmax_attention, softmax_weights
from .sphere import (
    sphere_distance,
    sphere_normalize,
    sphere_sqdist,
    sphere_stereographic,
    sphere_stereographic_inverse,
)

__all__ = [
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
    "effective_rank",
    "hida_attention",
    "ida_attention",
    "ida_kernel",
    "ida_weights",
    "metric_from_factors",
    "metric_sqdist",
    "metric_sqdist_direct",
    "mobius_add",
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
    "sida_attention",
    "softmax_attention",
    "softmax_weights",
    "sphere_distance",
    "sphere_normalize",
    "sphere_sqdist",
    "sphere_stereographic",
    "sphere_stereographic_inverse",
    "squared_distances",
]
