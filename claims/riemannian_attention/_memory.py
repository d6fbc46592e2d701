"""Peak extra memory of an operator call by explicit allocation accounting (CPU, any device).

A ``TorchDispatchMode`` sees every tensor an op returns; a storage is counted (its ``nbytes``)
when first returned and released when the last tensor seen on it is garbage-collected, so the
running total is the memory held by tensors the call allocated, and its maximum the peak extra
memory. Inputs' storages are registered first and never counted (views of them are free). Run on
meta tensors, it measures sizes without allocating them, so L × L intermediates of any L can be
accounted. (On CUDA, ``torch.cuda.max_memory_allocated`` measures the same thing from the caching
allocator; this accounting needs no device.)
"""

from __future__ import annotations

import functools
import weakref

import torch


def peak_bytes(fn, *inputs) -> int:
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class LiveBytes(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.live: dict[int, list[int]] = {}
            self.current = self.peak = 0

        def _release(self, key):
            entry = self.live.get(key)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] == 0:
                self.current -= entry[0]
                del self.live[key]

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in tree_flatten(out)[0]:
                if not isinstance(t, torch.Tensor):
                    continue
                key = t.untyped_storage()._cdata
                if key in external:
                    continue
                if key not in self.live:
                    nbytes = t.untyped_storage().nbytes()
                    self.live[key] = [nbytes, 0]
                    self.current += nbytes
                    self.peak = max(self.peak, self.current)
                self.live[key][1] += 1
                weakref.finalize(t, self._release, key)
            return out

    external = {t.untyped_storage()._cdata for t in inputs}
    mode = LiveBytes()
    with mode:
        result = fn()
    del result
    return mode.peak


@functools.cache
def attention_peak(n: int, d: int, r: int, form: str, block: int = 64, n_keys: int | None = None) -> int:
    """Peak extra bytes of one metric-attention call, n queries and ``n_keys`` (default n) keys,
    float64 on meta tensors: ``form`` = ``"fused"`` (metric_bias_attention) or ``"direct"``
    (metric_attention_direct)."""
    from attnaudit import operators

    nk = n if n_keys is None else n_keys
    q = torch.empty(n, d, device="meta", dtype=torch.float64)
    k, v = (torch.empty(nk, d, device="meta", dtype=torch.float64) for _ in range(2))
    uq = torch.empty(n, d, r, device="meta", dtype=torch.float64)
    uk = torch.empty(nk, d, r, device="meta", dtype=torch.float64)
    if form == "fused":
        return peak_bytes(lambda: operators.metric_bias_attention(q, k, v, uq=uq, uk=uk, block=block),
                          q, k, v, uq, uk)
    return peak_bytes(lambda: operators.metric_attention_direct(q, k, v, uq=uq, uk=uk), q, k, v, uq, uk)
