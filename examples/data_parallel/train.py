"""LeNet trained data-parallel: every rank reads its shard of MNIST, gradients are all-reduced.

    bash examples/data_parallel/run.sh 4                          # 4 ranks, synthetic MNIST
    python -m minispore.run -n 4 examples/data_parallel/train.py --data_path MNIST_Data
    mpirun -n 4 python examples/data_parallel/train.py            # any launcher works
    msrun --worker_num=4 --local_worker_num=4 examples/data_parallel/train.py

The MindSpore data-parallel recipe: ``init()``, ``set_auto_parallel_context(parallel_mode=
DATA_PARALLEL, gradients_mean=True)``, ``ms.set_seed(1)`` and a dataset sharded with
``num_shards=get_group_size(), shard_id=get_rank()``; Model's TrainOneStepCell then broadcasts
rank 0's parameters and all-reduces the gradients of each step. With batch 32 per rank the
global batch is 32 x ranks. Rank 0 prints the loss lines and evaluates on the test set.
Without --data_path rank 0 writes a synthetic MNIST (minispore.dataset.synth_mnist) that
every rank then reads.
"""
import argparse
import importlib.util
import os
import shutil
import tempfile
import time

import numpy as np

import minispore as ms
import minispore.dataset as ds
import minispore.dataset.transforms as C
import minispore.dataset.vision as CV
from minispore import ops
from minispore.common import dtype as mstype
from minispore.communication import get_group_size, get_rank, init
from minispore.communication.comm_func import barrier
from minispore.dataset.vision import Inter
from minispore.train import Model
from minispore.train.callback import LossMonitor, TimeMonitor
from minispore.train.metrics import Accuracy

HERE = os.path.dirname(os.path.abspath(__file__))


def _lenet_example():
    """examples/lenet/train.py (its LeNet, loss and optimizer are the tutorial's)."""
    spec = importlib.util.spec_from_file_location(
        "lenet_train", os.path.join(HERE, "..", "lenet", "train.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def create_dataset(data_path, batch_size=32, rank_size=1, rank_id=0, shuffle=True):
    """This rank's shard of MNIST, mapped as in the LeNet tutorial and batched."""
    mnist_ds = ds.MnistDataset(data_path, num_shards=rank_size, shard_id=rank_id,
                               shuffle=shuffle)
    mnist_ds = mnist_ds.map(operations=C.TypeCast(mstype.int32), input_columns="label")
    mnist_ds = mnist_ds.map(operations=[CV.Resize((32, 32), interpolation=Inter.LINEAR),
                                        CV.Rescale(1.0 / 255.0, 0.0),
                                        CV.Rescale(1 / 0.3081, -1 * 0.1307 / 0.3081),
                                        CV.HWC2CHW()], input_columns="image")
    return mnist_ds.batch(batch_size, drop_remainder=True)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data_path", default=None,
                        help="MNIST in MindSpore's layout (DIR/train, DIR/test); "
                             "omitted: a synthetic stand-in")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=32, help="per rank")
    parser.add_argument("--train_size", type=int, default=60000,
                        help="synthetic training images (without --data_path)")
    parser.add_argument("--test_size", type=int, default=10000,
                        help="synthetic test images (without --data_path)")
    parser.add_argument("--per_print_times", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args(argv)


def train(data_path, args, rank_id, rank_size):
    lenet = _lenet_example()
    ms.set_seed(args.seed)
    net = lenet.LeNet()
    model = Model(net, lenet.get_loss(), lenet.get_optimizer(net),
                  metrics={"Accuracy": Accuracy()})
    ds_train = create_dataset(os.path.join(data_path, "train"), args.batch_size, rank_size,
                              rank_id)
    if rank_id == 0:
        print(f"================= Start training: {rank_size} ranks, "
              f"{ds_train.get_dataset_size()} steps per epoch, global batch "
              f"{args.batch_size * rank_size} =================", flush=True)
    callbacks = [LossMonitor(args.per_print_times), TimeMonitor()] if rank_id == 0 else []
    start = time.perf_counter()
    model.train(args.epochs, ds_train, callbacks=callbacks, dataset_sink_mode=False)
    seconds = time.perf_counter() - start
    if rank_id != 0:
        return None
    ds_eval = create_dataset(os.path.join(data_path, "test"), shuffle=False)
    acc = model.eval(ds_eval, dataset_sink_mode=False)
    print(f"{args.epochs * ds_train.get_dataset_size()} training steps in {seconds:.1f} s",
          flush=True)
    print("Accuracy is:", acc, flush=True)
    return acc


def rank_zero_pid(rank_id):
    """Rank 0's process id, on every rank: a name all ranks agree on under any launcher (the
    ranks of msrun or a dynamic cluster have different parent processes)."""
    mine = np.array([os.getpid() if rank_id == 0 else 0], np.int64)
    return int(ops.AllReduce()(ms.Tensor(mine)).asnumpy()[0])


def main(argv=None):
    args = parse_args(argv)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    init()
    rank_id, rank_size = get_rank(), get_group_size()
    if args.data_path is not None:
        return train(args.data_path, args, rank_id, rank_size)
    from minispore.dataset.synth_mnist import synth_mnist
    folder = os.path.join(tempfile.gettempdir(), f"synth_mnist_dp_{rank_zero_pid(rank_id)}_"
                                                 f"{args.train_size}_{args.test_size}")
    if rank_id == 0:
        synth_mnist(folder, args.train_size, args.test_size, seed=args.seed)
        print(f"synthetic MNIST: {args.train_size} train / {args.test_size} test images "
              f"(minispore.dataset.synth_mnist, seed {args.seed})", flush=True)
    barrier()
    try:
        return train(folder, args, rank_id, rank_size)
    finally:
        barrier()
        if rank_id == 0:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
