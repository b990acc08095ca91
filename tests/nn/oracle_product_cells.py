"""Run under real MindSpore 2.7.2 (the oracle venv, from /tmp) to print the values that
tests/nn/test_product_cells.py records (nn.Jvp, nn.Vjp, nn.ParameterUpdate)."""
import numpy as np, mindspore as ms
from mindspore import nn, Tensor
class Net(nn.Cell):
    def construct(self, x, y):
        return x**3 + y
class One(nn.Cell):
    def construct(self, x):
        return x**3
class Two(nn.Cell):
    def construct(self, x, y):
        return x*y, x+y
x = Tensor(np.array([[1, 2], [3, 4]]).astype(np.float32))
y = Tensor(np.array([[1, 2], [3, 4]]).astype(np.float32))
v = Tensor(np.array([[1, 1], [1, 1]]).astype(np.float32))
print(nn.Jvp(Net())(x, y, (v, v)))
print(nn.Jvp(One())(x, v))
print(nn.Vjp(Net())(x, y, v))
print(nn.Vjp(One())(x, v))
try: print(nn.Jvp(Two())(x, y, (v, v)))
except Exception as e: print(type(e).__name__, str(e)[:200])
try: print(nn.Vjp(Two())(x, y, (v, v)))
except Exception as e: print(type(e).__name__, str(e)[:200])
w = ms.Parameter(Tensor(np.ones(2, np.float32)), name="w")
class Upd(nn.Cell):
    def __init__(s):
        super().__init__(); s.u = nn.ParameterUpdate(w)
    def construct(s, t): return s.u(t)
print(Upd()(Tensor(np.array([3., 4.], np.float32))), w.asnumpy())
u = nn.ParameterUpdate(w)
print(u(Tensor(np.array([5., 6.], np.float32))), w.asnumpy())
try: nn.ParameterUpdate(Tensor(1.0))
except Exception as e: print(type(e).__name__, str(e)[:200])
