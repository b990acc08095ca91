"""Dataset throughput: images/s through the tutorial's MNIST map chain (for `make bench`)."""
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import minispore.dataset as ds  # noqa: E402
import minispore.dataset.transforms as C  # noqa: E402
import minispore.dataset.vision as CV  # noqa: E402
from minispore.common import dtype as mstype  # noqa: E402


def tutorial_pipeline(path, batch_size=32):
    """create_dataset() of the distributed_graph_partition tutorial, verbatim in effect."""
    data = ds.MnistDataset(path)
    data = data.map(operations=C.TypeCast(mstype.int32), input_columns="label")
    data = data.map(operations=CV.Resize((32, 32), interpolation=CV.Inter.LINEAR),
                    input_columns="image")
    data = data.map(operations=CV.Rescale(1.0 / 255.0, 0.0), input_columns="image")
    data = data.map(operations=CV.Rescale(1 / 0.3081, -1 * 0.1307 / 0.3081),
                    input_columns="image")
    data = data.map(operations=CV.HWC2CHW(), input_columns="image")
    data = data.shuffle(buffer_size=10000)
    return data.batch(batch_size, drop_remainder=True)


def measure_throughput(num_images=20000, batch_size=32, epochs=2, output_numpy=False):
    """Images per second delivered to the consumer (Tensors) by the tutorial pipeline, after a
    warm-up epoch (kernel compile, file read), on synthetic MNIST of `num_images` rows."""
    with tempfile.TemporaryDirectory() as tmp:
        train, _ = ds.synth_mnist(tmp, num_images, 0, seed=0)
        data = tutorial_pipeline(train, batch_size)
        it = data.create_tuple_iterator(num_epochs=epochs + 1, output_numpy=output_numpy)
        for _ in it:
            pass
        t0 = time.perf_counter()
        n = 0
        for _ in range(epochs):
            for image, _label in it:
                n += image.shape[0]
        return n / (time.perf_counter() - t0)


if __name__ == "__main__":
    print(f"tutorial MNIST pipeline: {measure_throughput():,.0f} images/s")
