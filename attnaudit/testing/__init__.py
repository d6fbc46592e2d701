"""Test support that ships with attnaudit (as PyTorch keeps OpInfo in ``torch/testing/_internal``).

:mod:`attnaudit.testing.opinfo` is the operator registry: every public operator described once,
with the references, samples, error inputs and tolerances that the operator tests and the precision
table (``benchmarks/precision.py``) run. Nothing here is imported by the engine or the claims.
"""
