"""Run under real MindSpore 2.7.2 (the oracle venv, from /tmp) to print the values that
tests/nn/test_conv1d_transpose_cell.py and tests/nn/test_sync_batch_norm.py record."""
import numpy as np, mindspore as ms
from mindspore import nn, Tensor
x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4)/10)
net = nn.Conv1dTranspose(3, 2, 3, weight_init="ones", stride=2, pad_mode="same")
print(net(x).shape, net(x).asnumpy()[0,0])
net = nn.Conv1dTranspose(3, 2, 3, weight_init="ones", stride=2, pad_mode="valid", has_bias=True, bias_init="ones")
print(net(x).shape, net(x).asnumpy()[0,0])
net = nn.Conv1dTranspose(3, 2, 3, weight_init="ones", stride=1, pad_mode="pad", padding=1, dilation=2)
print(net(x).shape, net(x).asnumpy()[0,0])
print([p.name for p in net.trainable_params()], net.weight.shape)
w = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4, 1)/7)
net = nn.Conv1dTranspose(3, 4, 1, weight_init=w, group=1)
print(net(x).asnumpy()[1])
sb = nn.SyncBatchNorm(3)
sb.set_train(True)
x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2))
print(sb(x).asnumpy()[0,0], sb.moving_mean.asnumpy(), sb.moving_variance.asnumpy())
sb.set_train(False)
print(sb(x).asnumpy()[0,0])
print(sb)
