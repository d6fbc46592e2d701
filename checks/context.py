"""What a check is given: seed, profile, device and dtype, and seeded generators derived from them."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

PROFILES = ("quick", "full")
T = TypeVar("T")


def derive_seed(*parts: object) -> int:
    """A stable 63-bit seed from the run seed and names (Python's hash() is salted per process)."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


@dataclass(frozen=True)
class Context:
    claim_id: str
    seed: int
    profile: str = "quick"
    device: str = "cpu"
    dtype_name: str = "float64"
    # Per-claim-run memo: measurements shared by several checks of one claim are computed once
    # per run (never across runs, never at import). Keys are the spec's own tuples.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    # Measurements a spec attaches to its record (``record["attached"]``), e.g. a table of raw
    # counts that no single check's evidence holds. JSON-serialisable values only.
    attached: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # Which replicate of a measurement this context draws (see :meth:`replicate`); 0 is the run.
    replicate_index: int = 0

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r} (known: {', '.join(PROFILES)})")

    def cached(self, key: Any, compute: Callable[[], T]) -> T:
        """``compute()`` once per claim run for ``key``; later calls return the same object."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def attach(self, key: str, value: Any) -> None:
        """Put ``value`` (JSON-serialisable) into the record under ``attached[key]``."""
        self.attached[key] = value

    @property
    def dtype(self):
        import torch

        return getattr(torch, self.dtype_name)

    def pick(self, *, quick: T, full: T) -> T:
        """Sizes per profile; both profiles must reach the same verdicts."""
        return quick if self.profile == "quick" else full

    def seed_for(self, tag: str) -> int:
        if self.replicate_index == 0:
            return derive_seed(self.seed, self.claim_id, tag)
        return derive_seed(self.seed, self.claim_id, tag, f"replicate {self.replicate_index}")

    def replicate(self, r: int) -> Context:
        """The context of replicate ``r`` of a measurement: same claim, seed, profile, device and
        dtype, every generator (and :meth:`case_seeds`) keyed additionally by ``r``, so that the
        draws of different replicates differ and one seed gives byte-identical replicates.

        Replicate 0 is the run itself (its generators are the run's): a spec moving from one draw
        to ``replicates=R`` keeps its first draw. Each replicate has its own memo (a measurement
        cached by one replicate is not another replicate's draw), shared by every check of the run;
        ``attach`` writes to the run's record.
        """
        r = int(r)
        if r < 0:
            raise ValueError(f"a replicate index is >= 0, got {r}")
        if r == self.replicate_index:
            return self
        if self.replicate_index != 0:
            raise ValueError("replicate() is taken from the run's context, not from a replicate's")
        if r == 0:
            return self
        memo = self.memo.setdefault(("attnaudit.replicate", r), {})
        return Context(self.claim_id, self.seed, self.profile, self.device, self.dtype_name,
                       memo=memo, attached=self.attached, replicate_index=r)

    def case_seeds(self, tag: str, n: int) -> list[int]:
        """``n`` distinct reproducible integer seeds (in [0, 2**63)) derived from the claim seed,
        the claim id, ``tag`` (and the replicate): for specs that seed one generator per case."""
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        seeds: list[int] = []
        seen: set[int] = set()
        i = 0
        while len(seeds) < n:
            s = self.seed_for(f"{tag}:case {i}")
            i += 1
            if s not in seen:  # a 63-bit collision is astronomically rare; skip it if it happens
                seen.add(s)
                seeds.append(s)
        return seeds

    def generator(self, tag: str):
        """A torch generator on the run's device, seeded from (run seed, claim id, tag)."""
        import torch

        gen = torch.Generator(device=self.device)
        gen.manual_seed(self.seed_for(tag))
        return gen

    def numpy_rng(self, tag: str):
        import numpy as np

        return np.random.default_rng(self.seed_for(tag))

    def tensor(self, data, dtype=None):
        import torch

        return torch.as_tensor(data, dtype=dtype or self.dtype, device=self.device)


def one_thread() -> None:
    """One intra-op torch thread from here on, in this process: the engine calls it before each
    claim (checks.runner), so specs never set threads.

    For checks made of many small or mid-sized kernels, thread hand-offs on a 2-core machine cost
    more than they save (measured 5-10x slower under load by the Lemma 2.4 and Theorem 2.9/2.10
    specs; an outside pack's batched 64×64 SVD took 4.35 s CPU on two threads, 0.19 s on one).

    The count is never set back. With torch 2.13's CPU wheel (MKL 2024.2), any call
    ``torch.set_num_threads(k)`` with k ≥ 2 (even the default count) makes batched LU wrong from
    then on: ``torch.linalg.solve`` on a (4, 512, 512) batch returns errors of order 10 or fails
    with "Pivots given to lu_solve must all be greater or equal to 1", while the untouched
    default, or one thread, is correct (tests/test_context_threads.py). Claims run in processes of
    their own (checks.executor), so one thread costs at most a claim's own parallelism.
    """
    import torch

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
