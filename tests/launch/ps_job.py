"""A parameter-server training script (the pattern of MindSpore's parameter_server sample:
GRAPH mode, ``set_param_ps``, an ``@ms.jit`` step with ``value_and_grad``) on small synthetic
data, run by tests/launch/test_parameter_server.py as ``python -m minispore ps_job.py OUT_DIR``
in every process of a scheduler + servers + workers job, and alone as the single-process
reference.

Environment: PS_JOB_MODE sync | async (stand-alone workers, no all-reduce) | single (no parameter
server: one process trains on the global batch); PS_JOB_PARAMS all | first (only the first layer on the servers; the second
trains on the workers by data parallel); PS_JOB_WORKERS (the reference's worker count);
PS_JOB_STEPS; PS_JOB_STYLE jit | model (Model.train: PS_JOB_EPOCHS epochs over the batches of
the first PS_JOB_STEPS / PS_JOB_EPOCHS steps); PS_JOB_CHUNK (bytes per MPI message, to
make the transfers chunked); PS_JOB_SLEEP (seconds per step, for the failure tests);
Worker w feeds rows [s*G + w*B, s*G + (w+1)*B) of data step s (G = W*B), so the global batch
of step s is rows [s*G, (s+1)*G) in every run. Started again after a crash with
MS_ENABLE_RECOVERY=1, a worker trains steps resume_step() to PS_JOB_STEPS - 1 only (the
hand-written loop asks minispore.ps.resume_step(); Model.train skips the batches itself). Each
worker writes OUT_DIR/rank_<rank>.npz: the global step of each recorded loss ("steps"), the
losses and every parameter after training.
"""
import os
import sys
import time

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.communication import get_group_size, get_rank, init
from minispore.ps import resume_step, transport

MODE = os.environ.get("PS_JOB_MODE", "sync")
PARAMS = os.environ.get("PS_JOB_PARAMS", "all")
STEPS = int(os.environ.get("PS_JOB_STEPS", "6"))
STYLE = os.environ.get("PS_JOB_STYLE", "jit")
SLEEP = float(os.environ.get("PS_JOB_SLEEP", "0"))
transport.CHUNK_BYTES = int(os.environ.get("PS_JOB_CHUNK", transport.CHUNK_BYTES))
FEATURES, CLASSES, BATCH = 12, 4, 8

ms.set_context(mode=ms.GRAPH_MODE)
if MODE == "single":
    rank, workers = 0, 1
    local_batch = BATCH * int(os.environ["PS_JOB_WORKERS"])
else:
    ms.set_ps_context(enable_ps=True, sync_mode=MODE == "sync")
    if MODE == "sync":
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
    init()
    rank, workers = get_rank(), get_group_size()
    local_batch = BATCH
ms.set_seed(1)

rng = np.random.default_rng(0)
DATA_STEPS = 64      # step s feeds the rows of data step s % DATA_STEPS
rows = DATA_STEPS * local_batch * workers
features = rng.standard_normal((rows, FEATURES)).astype(np.float32)
labels = features[:, :CLASSES].argmax(axis=1).astype(np.int32)

net = nn.SequentialCell(nn.Dense(FEATURES, 16), nn.ReLU(), nn.Dense(16, CLASSES))
if MODE != "single":
    (net if PARAMS == "all" else net[0]).set_param_ps()
optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
loss_fn = nn.CrossEntropyLoss()
# Asynchronous workers never wait for each other: no all-reduce (all parameters on servers).
reducer = nn.DistributedGradReducer(optimizer.parameters) if MODE == "sync" else None


def forward(x, y):
    return loss_fn(net(x), y)


grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)


@ms.jit
def train_step(x, y):
    loss, grads = grad_fn(x, y)
    optimizer(reducer(grads) if reducer is not None else grads)
    return loss



def my_rows(step):
    start = ((step % DATA_STEPS) * workers + rank) * local_batch
    return slice(start, start + local_batch)


steps, losses = [], []


def record(step, loss):
    steps.append(step)
    losses.append(float(loss.asnumpy()))
    print(f"rank {rank} step {step} loss {losses[-1]:.9g}", flush=True)
    time.sleep(SLEEP)


class Record(ms.train.Callback):
    def on_train_step_end(self, run_context):
        params = run_context.original_args()
        record(params.cur_step_num - 1, params.net_outputs)


if STYLE == "model":
    epochs = int(os.environ.get("PS_JOB_EPOCHS", "1"))
    mine = np.concatenate([np.arange(rows)[my_rows(step)] for step in range(STEPS // epochs)])
    data = ds.NumpySlicesDataset({"x": features[mine], "y": labels[mine]},
                                 shuffle=False).batch(local_batch)
    ms.Model(net, loss_fn, optimizer).train(epochs, data, callbacks=[Record()],
                                            dataset_sink_mode=False)
else:
    for step in range(resume_step(), STEPS):
        record(step, train_step(ms.Tensor(features[my_rows(step)]),
                                ms.Tensor(labels[my_rows(step)])))

out = sys.argv[1]
params = {p.name: p.asnumpy() for p in net.trainable_params()}
np.savez(os.path.join(out, f"rank_{rank}.npz"), steps=np.array(steps, np.int64),
         losses=np.array(losses), **params)
