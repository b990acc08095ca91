"""Dataset slicing (mindspore_semantics.md §11.3, §17 #28): with dataset_strategy ((1, 1, h, w),
(1,)) each rank feeds only its H/W patch of the images -- block r mod (h * w), as the tutorial's
``img_cols[get_rank() % (h * w)]`` picks -- while the network sees the whole image. Trained the
tutorial's way (GRAPH mode, value_and_grad compiled on its own, then the optimizer on its own),
the losses and parameters equal the single-device run on whole images, for an MLP (Flatten
gathers the patches) and a small LeNet (the convolution gathers them: it cannot take an H/W cut).

Run: mpirun -n 2 python -m pytest --with-mpi -m mpi tests/parallel/test_dataset_slice_mpi.py
     mpirun -n 4 python -m pytest --with-mpi -m "mpi and mpi4" tests/parallel/test_dataset_slice_mpi.py
"""
import numpy as np
import pytest

import minispore as ms
from minispore import Tensor, nn
from minispore.communication import get_group_size, get_rank
from tests.parallel.semi_auto_net import SmallLeNet

BATCH, STEPS = 8, 3
SIDES = {"MLP": 8, "SmallLeNet": 12}        # SmallLeNet's fc1 needs 12 x 12 images


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.layer1 = nn.Dense(SIDES["MLP"] ** 2, 16)
        self.relu = nn.ReLU()
        self.layer2 = nn.Dense(16, 10)

    def construct(self, x):
        return self.layer2(self.relu(self.layer1(self.flatten(x))))


def _data(side):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((STEPS, BATCH, 1, side, side)).astype(np.float32)
    ys = rng.integers(0, 10, (STEPS, BATCH)).astype(np.int32)
    return xs, ys


def _patch(x, h, w, rank):
    """What rank feeds: patch rank mod (h * w) in SlicePatches' row-major order."""
    p = rank % (h * w)
    i, j = divmod(p, w)
    ph, pw = x.shape[2] // h, x.shape[3] // w
    return np.ascontiguousarray(x[:, :, i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])


def _train(make_net, cuts=None):
    """The tutorial's loop; `cuts` (h, w) slices the dataset, None runs on one device."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.reset_auto_parallel_context()
    if cuts is not None:
        h, w = cuts
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
                                     device_num=get_group_size(),
                                     dataset_strategy=((1, 1, h, w), (1,)))
    ms.set_seed(1)
    net = make_net()
    optimizer = nn.SGD(net.trainable_params(), 0.1)
    loss_fn = nn.CrossEntropyLoss()

    def forward_fn(data, target):
        logits = net(data)
        return loss_fn(logits, target), logits

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)
    xs, ys = _data(SIDES[make_net.__name__])
    losses, fed = [], None
    for x, y in zip(xs, ys):
        if cuts is not None:
            x = _patch(x, *cuts, get_rank())
        fed = x.shape
        (loss, _), grads = grad_fn(Tensor(x), Tensor(y))
        optimizer(grads)
        losses.append(float(loss.asnumpy()))
    params = [p.asnumpy().copy() for p in net.trainable_params()]
    ms.reset_auto_parallel_context()
    return losses, params, fed


def _check(make_net, cuts):
    want_losses, want_params, _ = _train(make_net)
    losses, params, fed = _train(make_net, cuts)
    h, w = cuts
    side = SIDES[make_net.__name__]
    assert fed == (BATCH, 1, side // h, side // w)       # each rank fed only its patch
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for got, want in zip(params, want_params):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.mpi(min_size=2)
@pytest.mark.parametrize("cuts", [(1, 2), (2, 1)])
@pytest.mark.parametrize("make_net", [MLP, SmallLeNet], ids=["mlp", "lenet"])
def test_two_patches_equal_single_device(world, make_net, cuts):
    _check(make_net, cuts)


@pytest.mark.mpi(min_size=4)
@pytest.mark.mpi4
@pytest.mark.parametrize("cuts", [(1, 4), (2, 2), (4, 1)])
def test_four_patches_equal_single_device(world, cuts):
    if world[1] % 4:
        pytest.skip("four patches need a multiple of 4 ranks")
    _check(MLP, cuts)

