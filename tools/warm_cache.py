"""Compile and cache the main kernels once, in one process, before the test suite starts.

`make test` runs this first so that multi-process (MPI) tests never race to compile the same
kernels, and single-process tests start from a warm on-disk cache (NUMBA_CACHE_DIR). Every
step runs a tiny forward and backward in float32 and float64 (the dtypes the suite uses),
then one MLP training step. A missing operator fails loudly: this list is part of the API.
"""
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import minispore as ms  # noqa: E402
from minispore import Tensor, nn, ops  # noqa: E402


def _x(dtype, *shape, low=-1.0, high=1.0, seed=0):
    return Tensor(np.random.default_rng(seed).uniform(low, high, shape).astype(dtype))


def _labels(n, classes):
    return Tensor(np.arange(n, dtype=np.int32) % classes)


# name -> f(dtype) returning (function of the differentiable tensors, those tensors).
STEPS = {
    "binary": lambda d: (lambda a, b: ops.div(ops.sub(ops.mul(ops.add(a, b), b), a), b),
                         (_x(d, 4, 3), _x(d, 3, low=0.5, high=1.5))),
    "unary": lambda d: (lambda a: ops.sqrt(ops.exp(ops.neg(ops.square(a)))) + ops.log(ops.abs(a)
                        + 1.0) + ops.pow(ops.maximum(a, ops.minimum(a, a)), 2.0), (_x(d, 4, 3),)),
    # The bprops run the transposed GEMM variants.
    "matmul": lambda d: (lambda a, b: ops.matmul(a, b), (_x(d, 4, 3), _x(d, 3, 5))),
    "batch_matmul": lambda d: (lambda a, b: ops.batch_matmul(a, b), (_x(d, 2, 4, 3),
                                                                     _x(d, 2, 3, 5))),
    "reduce": lambda d: (lambda a: ops.reduce_sum(a, 1) + ops.reduce_mean(a, 1)
                         + ops.reduce_max(a, 1), (_x(d, 4, 3),)),
    "array": lambda d: (lambda a: ops.concat((ops.transpose(a, (1, 0)),
                                              ops.transpose(a, (1, 0))), 0)[1:3],
                        (_x(d, 4, 3),)),
    "activation": lambda d: (lambda a: ops.relu(a) + ops.sigmoid(a) + ops.tanh(a)
                             + ops.gelu(a), (_x(d, 4, 3),)),
    "softmax": lambda d: (lambda a: ops.softmax(a, -1) + ops.log_softmax(a, -1),
                          (_x(d, 4, 3),)),
    "cross_entropy": lambda d: (lambda a: ops.sparse_softmax_cross_entropy_with_logits(
                                    a, _labels(4, 3)), (_x(d, 4, 3),)),
}


def warm_ops(dtypes=(np.float32, np.float64)):
    for name, build in STEPS.items():
        for dtype in dtypes:
            fn, args = build(dtype)
            loss_fn = lambda *a: ops.reduce_sum(fn(*a))  # noqa: E731
            ms.value_and_grad(loss_fn, grad_position=tuple(range(len(args))))(*args)


def warm_mlp_step():
    """One step of the quickstart MLP: Dense + ReLU, softmax cross-entropy, Momentum."""
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(16, 8), nn.ReLU(), nn.Dense(8, 4))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    step(_x(np.float32, 8, 16), _labels(8, 4))


def main():
    start = time.perf_counter()
    warm_ops()
    warm_mlp_step()
    where = os.environ.get("NUMBA_CACHE_DIR", "next to the sources (__pycache__)")
    print(f"warm_cache: kernels compiled and cached in {time.perf_counter() - start:.1f} s "
          f"({where})")


if __name__ == "__main__":
    main()
