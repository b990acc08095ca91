"""A MindSpore data-parallel training script (the pattern of MindSpore's distributed_data_parallel
sample) on small synthetic data, run by the launch tests as `python -m minispore
data_parallel_job.py OUT_DIR` under every launcher: mpirun, the dynamic cluster, msrun.

Each worker prints its per-step losses and writes OUT_DIR/rank_<rank>.npz (its losses, the
world size and every parameter after training), so the tests compare launches value by value.
"""
import os
import sys

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.communication import get_group_size, get_rank, init

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
init()
ms.set_seed(1)

ROWS, FEATURES, CLASSES, BATCH, EPOCHS = 96, 12, 4, 6, 2
rng = np.random.default_rng(0)
features = rng.standard_normal((ROWS, FEATURES)).astype(np.float32)
labels = (features[:, :CLASSES].argmax(axis=1)).astype(np.int32)

net = nn.SequentialCell(nn.Dense(FEATURES, 16), nn.ReLU(), nn.Dense(16, CLASSES))
rank, size = get_rank(), get_group_size()
dataset = ds.NumpySlicesDataset({"x": features, "y": labels}, shuffle=False, num_shards=size,
                                shard_id=rank).batch(BATCH)
loss_fn = nn.CrossEntropyLoss()
optimizer = nn.SGD(net.trainable_params(), 0.5)


def forward(x, y):
    return loss_fn(net(x), y)


grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
grad_reducer = nn.DistributedGradReducer(optimizer.parameters)
losses = []
for epoch in range(EPOCHS):
    for step, (x, y) in enumerate(dataset):
        loss, grads = grad_fn(x, y)
        optimizer(grad_reducer(grads))
        losses.append(float(loss.asnumpy()))
        print(f"rank {rank} epoch {epoch} step {step} loss {losses[-1]:.9g}", flush=True)

out = sys.argv[1]
params = {p.name: p.asnumpy() for p in net.trainable_params()}
np.savez(os.path.join(out, f"rank_{rank}.npz"), losses=np.array(losses), size=size, **params)
