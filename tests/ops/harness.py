"""Shared checks for operator tests: forward vs a float64 numpy reference, backward vs central
finite differences in float64, and the eager shape rule vs the real output."""
import numpy as np

import minispore as ms
from minispore import Tensor


def rand(*shape, dtype=np.float32, low=-1.0, high=1.0, seed=None):
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, shape).astype(dtype)


def check_forward(op_fn, ref_fn, arrays, rtol=1e-5, atol=1e-6, consts=()):
    """op_fn(*Tensors, *consts) in the arrays' dtype vs ref_fn(*float64 arrays, *consts)."""
    out = op_fn(*[Tensor(a) for a in arrays], *consts)
    ref = ref_fn(*[a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays], *consts)
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        r = np.asarray(r)
        assert tuple(o.shape) == r.shape, f"shape {o.shape} != reference {r.shape}"
        np.testing.assert_allclose(o.asnumpy().astype(np.float64), r, rtol=rtol, atol=atol)
    return out


def numeric_grads(scalar_fn, arrays, positions, eps=1e-6):
    """Central differences of scalar_fn(*float64 arrays) w.r.t. arrays[p] for p in positions."""
    grads = []
    for p in positions:
        base = arrays[p]
        g = np.zeros_like(base)
        flat = base.reshape(-1)
        gflat = g.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps
            hi = scalar_fn(*arrays)
            flat[i] = old - eps
            lo = scalar_fn(*arrays)
            flat[i] = old
            gflat[i] = (hi - lo) / (2 * eps)
        grads.append(g)
    return grads


def check_grad(op_fn, arrays, positions=None, consts=(), rtol=1e-5, atol=1e-7, out_index=None,
               seed=0):
    """Backward of op_fn (run in float64) against central differences of the same forward.

    The scalar is sum(out * w) with a fixed random w, so every output element's cotangent
    differs (a plain sum would hide transposed or permuted gradients).
    """
    arrays = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]
    if positions is None:
        positions = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    rng = np.random.default_rng(seed)
    probe = {}

    def pick(out):
        return out[out_index] if out_index is not None else out

    def scalar_np(*arrs):
        out = pick(op_fn(*[Tensor(a) for a in arrs], *consts)).asnumpy()
        if "w" not in probe:
            probe["w"] = rng.standard_normal(out.shape)
        return float((out * probe["w"]).sum())

    scalar_np(*arrays)
    w = Tensor(probe["w"])

    def scalar_ms(*tensors):
        return (pick(op_fn(*tensors, *consts)) * w).sum()

    tensors = [Tensor(a) for a in arrays]
    got = ms.grad(scalar_ms, grad_position=tuple(positions))(*tensors)
    if len(positions) == 1:     # MindSpore returns the lone gradient itself, not a 1-tuple
        got = (got,)
    want = numeric_grads(scalar_np, [a.copy() for a in arrays], positions)
    for p, g, n in zip(positions, got, want):
        assert tuple(g.shape) == n.shape, f"grad of input {p}: shape {g.shape} != {n.shape}"
        np.testing.assert_allclose(g.asnumpy(), n, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {p}")
