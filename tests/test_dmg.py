"""operators.dmg beyond the registry: the event-driven surprise count against a per-step loop, batch
shapes, and the pool's bookkeeping (spawns, merges, slots)."""

import pytest
import torch

from attnaudit.operators import dmg_detector, dmg_margins, dmg_pool, dmg_surprises

F64 = torch.float64


def _loop(margins, gamma):
    out = torch.zeros(margins.shape, dtype=torch.bool)
    for r in range(margins.shape[0]):
        count = 0
        for t in range(margins.shape[1]):
            out[r, t] = bool(margins[r, t] > gamma * count / (t + 1))
            count += int(out[r, t])
    return out


@pytest.mark.parametrize("block", [1, 3, 64, 1000])
def test_event_driven_count_equals_the_step_loop(block):
    g = torch.Generator().manual_seed(1)
    m = torch.randn(5, 400, generator=g, dtype=F64) - 0.5
    got = dmg_surprises(m, gamma=2.0, block=block)
    assert torch.equal(got, _loop(m, 2.0))
    assert 0 < int(got.sum()) < m.numel()


def test_batch_dims_and_undecided_prefix():
    g = torch.Generator().manual_seed(2)
    losses = torch.randn(2, 3, 200, generator=g, dtype=F64)
    s = dmg_detector(losses, window=10, tau_base=0.0, kappa=0.0, gamma=0.5)
    assert s.shape == losses.shape and not s[..., :9].any()
    flat = dmg_detector(losses.reshape(6, 200), window=10, tau_base=0.0, kappa=0.0, gamma=0.5)
    assert torch.equal(s.reshape(6, 200), flat)
    assert torch.isinf(dmg_margins(losses, window=10, tau_base=0.0, kappa=0.0)[..., :9]).all()


def test_pool_bookkeeping():
    g = torch.Generator().manual_seed(3)
    centres = torch.tensor([[4.0, 0.0], [-4.0, 0.0]], dtype=F64)
    x = centres[torch.randint(2, (3, 300), generator=g)] + torch.randn(3, 300, 2, generator=g, dtype=F64)
    out = dmg_pool(x, centres.expand(3, 2, 2).clone(), window=4, tau_base=1.5, kappa=0.25, gamma=1.0,
                   eta=0.1, k_max=4, trigger="loss")
    spawns = out["surprises"].sum(1)
    assert (spawns > 2).all()  # the two free slots fill, then every spawn merges
    assert torch.equal(out["merges"], spawns - 2)
    assert out["active"].all()
    assert torch.equal(out["count"].sum(1), torch.full((3,), 302.0, dtype=F64))  # 2 initial + 300 steps
    assert (out["t_last"] >= out["t_birth"]).all()


def test_pool_without_surprises_is_online_k_means():
    g = torch.Generator().manual_seed(4)
    x = torch.randn(2, 50, 3, generator=g, dtype=F64)
    init = torch.zeros(2, 1, 3, dtype=F64)
    out = dmg_pool(x, init, window=4, tau_base=1e9, kappa=0.0, gamma=0.0, eta="running-mean", k_max=1)
    assert not out["surprises"].any()
    torch.testing.assert_close(out["centres"][:, 0], x.sum(1) / 51, rtol=1e-13, atol=1e-15)
