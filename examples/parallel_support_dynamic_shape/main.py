"""The tutorial "Distributed Parallel Supports Dynamic Shape" (MindSpore r2.4) on minispore.

    bash examples/parallel_support_dynamic_shape/run.sh      # 8 ranks, logs in ./log_output

The tutorial's main.py with `mindspore` imports spelled `minispore`: a MatMul+ReLU+MatMul+ReLU+
MatMul network whose first four operators carry shard strategies, trained in GRAPH mode under
SEMI_AUTO_PARALLEL on 8 ranks with a batch dim declared as Symbol(divisor=8). Each rank reads
DATA_PATH (MNIST in MindSpore's layout; run.sh writes a synthetic stand-in when there is no
MNIST_Data) unsharded in batches of 32, as the tutorial's sample does; under the default
dataset_strategy "data_parallel" these are the rank's slices of a logical batch of 32 x 8.

Two knobs the tutorial lacks, read from the environment (defaults are the tutorial's):
EPOCHS (5) and SYMBOL_DIVISOR (8; the tests set 1 to see the compile-time error).
"""
import os

import minispore as ms
import minispore.dataset as ds
from minispore import Model, Parameter, Symbol, Tensor, nn, ops
from minispore.common.initializer import initializer
from minispore.communication import init
from minispore.train import LossMonitor

ms.set_context(mode=ms.GRAPH_MODE)
ms.set_context(max_device_memory="28GB")
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
init()
ms.set_seed(1)

EPOCHS = int(os.getenv("EPOCHS", "5"))
SYMBOL_DIVISOR = int(os.getenv("SYMBOL_DIVISOR", "8"))


def create_dataset(batch_size):
    """MNIST from DATA_PATH: pixels scaled to [0, 1] and normalized, CHW, int32 labels."""
    dataset_path = os.getenv("DATA_PATH")
    if not dataset_path:
        raise SystemExit("main.py: set DATA_PATH to an MNIST train folder (run.sh does: the "
                         "real MNIST_Data/train/ when present, else a synthetic stand-in).")
    dataset = ds.MnistDataset(dataset_path)
    image_transforms = [
        ds.vision.Rescale(1.0 / 255.0, 0),
        ds.vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        ds.vision.HWC2CHW()
    ]
    label_transform = ds.transforms.TypeCast(ms.int32)
    dataset = dataset.map(image_transforms, 'image')
    dataset = dataset.map(label_transform, 'label')
    dataset = dataset.batch(batch_size)
    return dataset


class Network(nn.Cell):
    """Network"""

    def __init__(self):
        super().__init__()
        self.flatten = ops.Flatten()
        self.fc1_weight = Parameter(initializer("normal", [28 * 28, 512], ms.float32))
        self.fc2_weight = Parameter(initializer("normal", [512, 512], ms.float32))
        self.fc3_weight = Parameter(initializer("normal", [512, 10], ms.float32))
        self.matmul1 = ops.MatMul().shard(((2, 4), (4, 1)))
        self.relu1 = ops.ReLU().shard(((4, 1),))
        self.matmul2 = ops.MatMul().shard(((1, 8), (8, 1)))
        self.relu2 = ops.ReLU().shard(((8, 1),))
        self.matmul3 = ops.MatMul()

    def construct(self, x):
        x = ops.reshape(x, (-1, 784))
        x = self.matmul1(x, self.fc1_weight)
        x = self.relu1(x)
        x = self.matmul2(x, self.fc2_weight)
        x = self.relu2(x)
        return self.matmul3(x, self.fc3_weight)


net = Network()

data_set = create_dataset(32)  # (32, 1, 28, 28) (32,)
optimizer = nn.SGD(net.trainable_params(), 1e-3)
loss_fn = nn.SoftmaxCrossEntropyWithLogits(True)

s0 = Symbol(divisor=SYMBOL_DIVISOR)
input_dyn = Tensor(shape=[s0, 1, 28, 28], dtype=ms.float32)
label_dyn = Tensor(shape=[s0], dtype=ms.int32)
net.set_inputs(input_dyn)
loss_fn.set_inputs(input_dyn, label_dyn)

model = Model(net, loss_fn, optimizer)
model.train(EPOCHS, data_set, callbacks=[LossMonitor()], dataset_sink_mode=False)
