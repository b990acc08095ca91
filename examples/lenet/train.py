"""LeNet on MNIST with Model.train/eval: the single-process part of MindSpore's LeNet tutorial.

    python examples/lenet/train.py --data_path MNIST_Data        # real MNIST: DIR/train, DIR/test
    python examples/lenet/train.py                               # synthetic stand-in, generated
    python -m minispore examples/lenet/train.py ...              # the same, as a MindSpore script

`make demo` runs it with --epochs 1 on 60000 synthetic images (1875 steps, about 20 s here).

The dataset pipeline, network, loss, optimizer and callbacks are those of the tutorial
(docs r2.1 distributed_graph_partition / models research/cv/lenet); only the distributed
place() calls are left out. Without --data_path a synthetic MNIST (minispore.dataset's
synth_mnist: stroke-rendered digits in MNIST's IDX layout) is written to a temporary folder.
"""
import argparse
import os
import tempfile
import time

import minispore as ms
import minispore.dataset as ds
import minispore.dataset.transforms as C
import minispore.dataset.vision as CV
import minispore.nn as nn
from minispore.common import dtype as mstype
from minispore.common.initializer import TruncatedNormal
from minispore.dataset.vision import Inter
from minispore.train import Model
from minispore.train.callback import LossMonitor, TimeMonitor
from minispore.train.metrics import Accuracy


def create_dataset(data_path, batch_size=32, repeat_size=1, num_parallel_workers=1):
    """create dataset for train or test"""
    mnist_ds = ds.MnistDataset(data_path)
    resize_height, resize_width = 32, 32
    rescale = 1.0 / 255.0
    shift = 0.0
    rescale_nml = 1 / 0.3081
    shift_nml = -1 * 0.1307 / 0.3081

    resize_op = CV.Resize((resize_height, resize_width), interpolation=Inter.LINEAR)
    rescale_nml_op = CV.Rescale(rescale_nml, shift_nml)
    rescale_op = CV.Rescale(rescale, shift)
    hwc2chw_op = CV.HWC2CHW()
    type_cast_op = C.TypeCast(mstype.int32)

    mnist_ds = mnist_ds.map(operations=type_cast_op, input_columns="label",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=resize_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=rescale_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=rescale_nml_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=hwc2chw_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)

    buffer_size = 10000
    mnist_ds = mnist_ds.shuffle(buffer_size=buffer_size)
    mnist_ds = mnist_ds.batch(batch_size, drop_remainder=True)
    mnist_ds = mnist_ds.repeat(repeat_size)
    return mnist_ds


def conv(in_channels, out_channels, kernel_size, stride=1, padding=0):
    """weight initial for conv layer"""
    weight = weight_variable()
    return nn.Conv2d(in_channels, out_channels,
                     kernel_size=kernel_size, stride=stride, padding=padding,
                     weight_init=weight, has_bias=False, pad_mode="valid")


def fc_with_initialize(input_channels, out_channels):
    """weight initial for fc layer"""
    weight = weight_variable()
    bias = weight_variable()
    return nn.Dense(input_channels, out_channels, weight, bias)


def weight_variable():
    """weight initial"""
    return TruncatedNormal(0.02)


class LeNet(nn.Cell):
    """LeNet-5: conv(1->6, 5) / pool / conv(6->16, 5) / pool / fc 400-120-84-10."""

    def __init__(self, num_class=10, channel=1):
        super(LeNet, self).__init__()
        self.num_class = num_class
        self.conv1 = conv(channel, 6, 5)
        self.conv2 = conv(6, 16, 5)
        self.fc1 = fc_with_initialize(16 * 5 * 5, 120)
        self.fc2 = fc_with_initialize(120, 84)
        self.fc3 = fc_with_initialize(84, self.num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.conv1(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.conv2(x)
        x = self.relu(x)
        x = self.max_pool2d(x)
        x = self.flatten(x)
        x = self.fc1(x)
        x = self.relu(x)
        x = self.fc2(x)
        x = self.relu(x)
        x = self.fc3(x)
        return x


def get_optimizer(net, lr=0.01):
    """Momentum(lr, 0.9) over the trainable parameters"""
    momentum = 0.9
    mom_optimizer = nn.Momentum(filter(lambda x: x.requires_grad, net.get_parameters()),
                                lr, momentum)
    return mom_optimizer


def get_loss():
    """mean sparse softmax cross-entropy"""
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data_path", default=None,
                        help="MNIST in MindSpore's layout (DIR/train, DIR/test); "
                             "omitted: a synthetic stand-in")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--train_size", type=int, default=60000,
                        help="synthetic training images (without --data_path)")
    parser.add_argument("--test_size", type=int, default=10000,
                        help="synthetic test images (without --data_path)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per_print_times", type=int, default=1,
                        help="LossMonitor prints every this many steps")
    return parser.parse_args(argv)


def run(data_path, args):
    """Train and evaluate on data_path/{train,test}; return the eval metrics dict."""
    ms.set_seed(args.seed)
    net = LeNet()
    opt = get_optimizer(net)
    criterion = get_loss()
    model = Model(net, criterion, opt, metrics={"Accuracy": Accuracy()})

    print("================= Start training =================", flush=True)
    ds_train = create_dataset(os.path.join(data_path, 'train'))
    start = time.perf_counter()
    model.train(args.epochs, ds_train,
                callbacks=[LossMonitor(args.per_print_times), TimeMonitor()],
                dataset_sink_mode=False)
    seconds = time.perf_counter() - start
    print("================= Start testing =================", flush=True)
    ds_eval = create_dataset(os.path.join(data_path, 'test'))
    acc = model.eval(ds_eval, dataset_sink_mode=False)
    print(f"{args.epochs * ds_train.get_dataset_size()} training steps in {seconds:.1f} s",
          flush=True)
    print("Accuracy is:", acc, flush=True)
    return acc


def main(argv=None):
    args = parse_args(argv)
    # The tutorial sets GRAPH_MODE on GPU; minispore runs eagerly on the CPU.
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    if args.data_path is not None:
        return run(args.data_path, args)
    # The stand-in exists only in minispore; under MindSpore pass --data_path.
    from minispore.dataset.synth_mnist import synth_mnist
    with tempfile.TemporaryDirectory(prefix="synth_mnist_") as tmp:
        synth_mnist(tmp, args.train_size, args.test_size, seed=args.seed)
        print(f"synthetic MNIST: {args.train_size} train / {args.test_size} test images "
              f"(minispore.dataset.synth_mnist, seed {args.seed})", flush=True)
        return run(tmp, args)


if __name__ == "__main__":
    main()
