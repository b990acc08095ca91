"""Recurrent layers: RNN, LSTM, GRU and their one-step cells (MindSpore 2.x signatures),
unrolled over time steps from existing primitives (MatMul, Sigmoid, Tanh, Mul, Add, Split,
Concat, Select), so their gradients, CUDA kernels and GRAPH-mode tracing come from those
operators."""
import math

import numpy as np

from minispore.common import dtype as mstype
from minispore.common.initializer import Uniform, initializer
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.nn.layer.basic import _check_bool, _check_positive_int
from minispore.ops import functional as F
from minispore.ops.operations._base import dims_equal, shapes_equal

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]


def _rnn_tanh_step(xw, h, c, w_hh, b_hh):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh); `xw` holds the input part."""
    return F.tanh(F.add(xw, _hidden_part(h, w_hh, b_hh))), None


def _rnn_relu_step(xw, h, c, w_hh, b_hh):
    return F.relu(F.add(xw, _hidden_part(h, w_hh, b_hh))), None


def _lstm_step(xw, h, c, w_hh, b_hh):
    """Gates in MindSpore's (and PyTorch's) row order i, f, g, o:
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g), h' = sigmoid(o) * tanh(c')."""
    gates = F.add(xw, _hidden_part(h, w_hh, b_hh))
    i, f, g, o = F.split_equal(gates, 1, 4)
    c = F.add(F.mul(F.sigmoid(f), c), F.mul(F.sigmoid(i), F.tanh(g)))
    return F.mul(F.sigmoid(o), F.tanh(c)), c


def _gru_step(xw, h, c, w_hh, b_hh):
    """Gates in row order r, z, n: r, z = sigmoid(x-part + h-part), n = tanh(x_n + r * h_n),
    h' = (1 - z) * n + z * h = n + z * (h - n)."""
    x_r, x_z, x_n = F.split_equal(xw, 1, 3)
    h_r, h_z, h_n = F.split_equal(_hidden_part(h, w_hh, b_hh), 1, 3)
    r = F.sigmoid(F.add(x_r, h_r))
    z = F.sigmoid(F.add(x_z, h_z))
    n = F.tanh(F.add(x_n, F.mul(r, h_n)))
    return F.add(n, F.mul(z, F.sub(h, n))), None


def _check_states(name, what, states, want, meaning):
    """Each state a Tensor of shape `want` (whose dims `meaning` names)."""
    for state in states:
        if not isinstance(state, Tensor):
            raise TypeError(f"For '{name}', 'hx' must hold Tensors, but got "
                            f"{type(state).__name__}.")
        if not shapes_equal(name, state.shape, want):
            raise ValueError(f"For '{name}', {what} must have shape {tuple(want)} "
                             f"({meaning}), but got {tuple(state.shape)}.")


def _hidden_part(h, w_hh, b_hh):
    out = F.matmul(h, w_hh, transpose_b=True)
    return out if b_hh is None else F.bias_add(out, b_hh)


class _RNNBase(Cell):
    """Stacked, optionally bidirectional recurrence over (seq_len, batch, input_size) input
    ((batch, seq_len, input_size) with ``batch_first``).

    Parameters per layer k and direction (suffix '' or '_reverse'), MindSpore's names:
    ``weight_ih_l{k}`` (gates*hidden, in), ``weight_hh_l{k}`` (gates*hidden, hidden) and, with
    ``has_bias``, ``bias_ih_l{k}`` / ``bias_hh_l{k}`` (gates*hidden,), all drawn from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)). Layer k > 0 reads the previous layer's output
    (num_directions*hidden features), after dropout with probability ``dropout`` in training.

    The loop over time steps runs in Python: eagerly one step at a time, and in GRAPH mode the
    trace unrolls it for the compiled (static) seq_len. The input projection of every step is
    one MatMul over the whole sequence.
    ``seq_length`` (batch,) gives each sequence's valid length: steps at t >= length leave the
    state unchanged and output zeros, so h_n is the state after the last valid step (and the
    reverse direction starts at the last valid step).
    """
    _mode = ""
    _gates = 1
    _step = None

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0., bidirectional=False, dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        self.input_size = _check_positive_int(name, "input_size", input_size)
        self.hidden_size = _check_positive_int(name, "hidden_size", hidden_size)
        self.num_layers = _check_positive_int(name, "num_layers", num_layers)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.batch_first = _check_bool(name, "batch_first", batch_first)
        self.bidirectional = _check_bool(name, "bidirectional", bidirectional)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
            raise TypeError(f"For '{name}', 'dropout' must be a float or int, but got "
                            f"{type(dropout).__name__}.")
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{name}', 'dropout' must be in range [0.0, 1.0), but got "
                             f"{dropout}.")
        self.dropout = float(dropout)
        self.num_directions = 2 if bidirectional else 1
        rows = self._gates * hidden_size
        bound = Uniform(1 / math.sqrt(hidden_size))
        self._weights = []
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else self.num_directions * hidden_size
            per_direction = []
            for suffix in ("", "_reverse")[:self.num_directions]:
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                shapes = [(rows, in_size), (rows, hidden_size)]
                if has_bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    shapes += [(rows,), (rows,)]
                for n, s in zip(names, shapes):
                    setattr(self, n, Parameter(initializer(bound, s, dtype), name=n))
                per_direction.append(tuple(names) + (None, None)[:4 - len(names)])
            self._weights.append(per_direction)

    # MindSpore keeps each kind of weight as a ParameterTuple over layers and directions
    # (w_ih_list, ...), and code assigns new tuples to them to set the weights.
    _LISTS = {"w_ih_list": "weight_ih", "w_hh_list": "weight_hh", "b_ih_list": "bias_ih",
              "b_hh_list": "bias_hh"}

    def _list_names(self, kind):
        if kind.startswith("bias") and not self.has_bias:
            return []
        return [f"{kind}_l{layer}{suffix}" for layer in range(self.num_layers)
                for suffix in ("", "_reverse")[:self.num_directions]]

    def __setattr__(self, name, value):
        kind = self._LISTS.get(name)
        if kind is None:
            return super().__setattr__(name, value)
        names = self._list_names(kind)
        params = list(value)
        if len(params) != len(names) or not all(isinstance(p, Parameter) for p in params):
            raise ValueError(f"For '{type(self).__name__}', '{name}' must hold {len(names)} "
                             f"Parameters ({', '.join(names) or 'none: has_bias is False'}), but "
                             f"got {len(params)} items.")
        for n, p in zip(names, params):
            if tuple(p.shape) != tuple(getattr(self, n).shape):
                raise ValueError(f"For '{type(self).__name__}', '{name}' item {n} must have "
                                 f"shape {tuple(getattr(self, n).shape)}, but got "
                                 f"{tuple(p.shape)}.")
        for n, p in zip(names, params):
            super().__setattr__(n, p)

    w_ih_list = property(lambda self: ParameterTuple(
        getattr(self, n) for n in self._list_names("weight_ih")))
    w_hh_list = property(lambda self: ParameterTuple(
        getattr(self, n) for n in self._list_names("weight_hh")))
    b_ih_list = property(lambda self: ParameterTuple(
        getattr(self, n) for n in self._list_names("bias_ih")))
    b_hh_list = property(lambda self: ParameterTuple(
        getattr(self, n) for n in self._list_names("bias_hh")))

    def _params_of(self, names):
        return tuple(None if n is None else getattr(self, n) for n in names)

    def _check_inputs(self, x, hx, seq_length):
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{name}', 'x' must be a Tensor, but got {type(x).__name__}.")
        if x.ndim != 3:
            raise ValueError(f"For '{name}', the input 'x' must be a 3-D tensor "
                             f"(seq_len, batch_size, input_size) or, with batch_first, "
                             f"(batch_size, seq_len, input_size), but got shape "
                             f"{tuple(x.shape)}.")
        if not dims_equal(name, x.shape[2], self.input_size):
            raise ValueError(f"For '{name}', the last dim of 'x' must be input_size "
                             f"{self.input_size}, but got shape {tuple(x.shape)}.")
        batch = x.shape[0] if self.batch_first else x.shape[1]
        steps = x.shape[1] if self.batch_first else x.shape[0]
        if not isinstance(steps, int):
            raise ValueError(f"For '{name}', the sequence length must be static (the time loop "
                             f"unrolls over it), but got a dynamic one in shape "
                             f"{tuple(x.shape)}; give set_inputs a fixed seq_len.")
        want = (self.num_layers * self.num_directions, batch, self.hidden_size)
        states = () if hx is None else (hx if self._mode == "LSTM" else (hx,))
        if self._mode == "LSTM" and hx is not None and \
                (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError(f"For '{name}', 'hx' must be a tuple (h_0, c_0) of two Tensors, "
                            f"but got {type(hx).__name__}.")
        _check_states(name, "the initial state", states, want,
                      "num_layers * num_directions, batch_size, hidden_size")
        if seq_length is not None:
            if not isinstance(seq_length, Tensor):
                raise TypeError(f"For '{name}', 'seq_length' must be a Tensor, but got "
                                f"{type(seq_length).__name__}.")
            if seq_length.dtype not in (mstype.int32, mstype.int64):
                raise TypeError(f"For '{name}', 'seq_length' must be an int32 or int64 Tensor, "
                                f"but got {seq_length.dtype}.")
            if not shapes_equal(name, seq_length.shape, (batch,)):
                raise ValueError(f"For '{name}', 'seq_length' must have shape ({batch},) "
                                 f"(batch_size,), but got {tuple(seq_length.shape)}.")

    def _run_direction(self, xs, names, h, c, masks, reverse):
        """One layer in one direction over the per-step inputs `xs` (seq_len, batch, in):
        returns (outputs per step in time order, h_n, c_n)."""
        w_ih, w_hh, b_ih, b_hh = self._params_of(names)
        steps = xs.shape[0]
        xw = F.matmul(xs, w_ih, transpose_b=True)
        if b_ih is not None:
            xw = F.bias_add(F.reshape(xw, (-1, xw.shape[-1])), b_ih)
        xw = F.reshape(xw, (steps, -1, self._gates * self.hidden_size))
        xw_t = F.split_equal(xw, 0, steps) if steps > 1 else (xw,)
        outs = [None] * steps
        order = range(steps - 1, -1, -1) if reverse else range(steps)
        for t in order:
            h_new, c_new = self._step(F.reshape(xw_t[t], tuple(xw_t[t].shape[1:])), h, c,
                                      w_hh, b_hh)
            if masks is None:
                h, c = h_new, c_new
                outs[t] = h_new
            else:
                h = F.select(masks[t], h_new, h)
                if c is not None:
                    c = F.select(masks[t], c_new, c)
                outs[t] = F.select(masks[t], h_new, F.zeros_like(h_new))
        return outs, h, c

    def _recur(self, x, hx, seq_length):
        self._check_inputs(x, hx, seq_length)
        if self.batch_first:
            x = F.transpose(x, (1, 0, 2))
        steps, batch = x.shape[0], x.shape[1]
        shape = (self.num_layers * self.num_directions, batch, self.hidden_size)
        if hx is None:
            h0 = F.zeros(shape, x.dtype)
            c0 = F.zeros(shape, x.dtype) if self._mode == "LSTM" else None
        elif self._mode == "LSTM":
            h0, c0 = hx
        else:
            h0, c0 = hx, None
        n_states = shape[0]
        h0s = F.split_equal(h0, 0, n_states) if n_states > 1 else (h0,)
        c0s = (F.split_equal(c0, 0, n_states) if n_states > 1 else (c0,)) if c0 is not None else None
        masks = None
        if seq_length is not None:
            # masks[t][b, 0] is True while step t is inside sequence b.
            times = Tensor(np.arange(steps, dtype=np.int64).reshape(steps, 1, 1))
            lengths = F.reshape(F.cast(seq_length, mstype.int64), (1, batch, 1))
            valid = F.less(times, lengths)
            masks = F.split_equal(valid, 0, steps) if steps > 1 else (valid,)
            masks = [F.reshape(m, (batch, 1)) for m in masks]
        h_n, c_n = [], []
        for layer, per_direction in enumerate(self._weights):
            if layer > 0 and self.training and self.dropout > 0:
                x = F.dropout(x, p=self.dropout)
            outputs = []
            for d, names in enumerate(per_direction):
                k = layer * self.num_directions + d
                h = F.reshape(h0s[k], (batch, self.hidden_size))
                c = None if c0s is None else F.reshape(c0s[k], (batch, self.hidden_size))
                outs, h, c = self._run_direction(x, names, h, c, masks, reverse=d == 1)
                outputs.append(outs)
                h_n.append(h)
                c_n.append(c)
            per_step = [o[0] if len(o) == 1 else F.concat(o, -1)
                        for o in zip(*outputs)]
            x = F.stack(per_step, 0)
        if self.batch_first:
            x = F.transpose(x, (1, 0, 2))
        h_n = F.stack(h_n, 0)
        if self._mode == "LSTM":
            return x, (h_n, F.stack(c_n, 0))
        return x, h_n

    def construct(self, x, hx=None, seq_length=None):
        return self._recur(x, hx, seq_length)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
                f"batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


class LSTM(_RNNBase):
    """Stacked LSTM, MindSpore's nn.LSTM:
    i, f, g, o = x W_ih^T + b_ih + h W_hh^T + b_hh split in four (that row order),
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g), h' = sigmoid(o) * tanh(c').

    Inputs: ``x`` (seq_len, batch, input_size) (batch first with ``batch_first``), ``hx`` an
    optional tuple (h_0, c_0) each (num_layers * num_directions, batch, hidden_size) (zeros
    when None), ``seq_length`` an optional (batch,) int Tensor of valid lengths.
    Outputs: ``(output, (h_n, c_n))``, output (seq_len, batch, num_directions * hidden_size)
    (batch first with ``batch_first``). See _RNNBase for parameters and errors.

    >>> import numpy as np, minispore as ms
    >>> net = ms.nn.LSTM(10, 16, 2, bidirectional=True)
    >>> out, (h, c) = net(ms.Tensor(np.ones((5, 3, 10), np.float32)))
    >>> out.shape, h.shape, c.shape
    ((5, 3, 32), (4, 3, 16), (4, 3, 16))
    """
    _mode = "LSTM"
    _gates = 4
    _step = staticmethod(_lstm_step)


class GRU(_RNNBase):
    """Stacked GRU, MindSpore's nn.GRU: with gates in row order r, z, n,
    r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z), n = tanh(x_n + r * h_n),
    h' = (1 - z) * n + z * h, where x_* = x W_i*^T + b_i* and h_* = h W_h*^T + b_h*.

    Inputs: ``x``, optional ``hx`` (num_layers * num_directions, batch, hidden_size) and
    ``seq_length`` as for LSTM. Outputs: ``(output, h_n)``.

    >>> import numpy as np, minispore as ms
    >>> out, h = ms.nn.GRU(10, 16, batch_first=True)(ms.Tensor(np.ones((3, 5, 10), np.float32)))
    >>> out.shape, h.shape
    ((3, 5, 16), (1, 3, 16))
    """
    _mode = "GRU"
    _gates = 3
    _step = staticmethod(_gru_step)


class RNN(_RNNBase):
    """Stacked Elman RNN, MindSpore's nn.RNN: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh),
    act 'tanh' (default) or 'relu' (``nonlinearity``). Inputs and outputs as for GRU.

    >>> import numpy as np, minispore as ms
    >>> out, h = ms.nn.RNN(10, 16, nonlinearity="relu")(ms.Tensor(np.ones((5, 3, 10), np.float32)))
    >>> out.shape, h.shape
    ((5, 3, 16), (1, 3, 16))
    """
    _mode = "RNN"
    _gates = 1

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 2:
            # MindSpore's positional order: input_size, hidden_size, num_layers, nonlinearity.
            args = list(args)
            if len(args) > 3:
                nonlinearity = args.pop(3)
            args = tuple(args)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', 'nonlinearity' must be 'tanh' or 'relu', but got "
                             f"{nonlinearity!r}.")
        super().__init__(*args, **kwargs)
        self.nonlinearity = nonlinearity
        self._step = _rnn_tanh_step if nonlinearity == "tanh" else _rnn_relu_step


class _RNNCellBase(Cell):
    """One time step: x (batch, input_size) and the state to the next state; Parameters
    ``weight_ih`` (gates*hidden, input_size), ``weight_hh`` (gates*hidden, hidden) and, with
    ``has_bias``, ``bias_ih`` / ``bias_hh`` (gates*hidden,), drawn from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
    _gates = 1
    _step = None

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        self.input_size = _check_positive_int(name, "input_size", input_size)
        self.hidden_size = _check_positive_int(name, "hidden_size", hidden_size)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        rows = self._gates * hidden_size
        bound = Uniform(1 / math.sqrt(hidden_size))
        self.weight_ih = Parameter(initializer(bound, (rows, input_size), dtype),
                                   name="weight_ih")
        self.weight_hh = Parameter(initializer(bound, (rows, hidden_size), dtype),
                                   name="weight_hh")
        if has_bias:
            self.bias_ih = Parameter(initializer(bound, (rows,), dtype), name="bias_ih")
            self.bias_hh = Parameter(initializer(bound, (rows,), dtype), name="bias_hh")

    def _check(self, x, states):
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{name}', 'x' must be a Tensor, but got {type(x).__name__}.")
        if x.ndim != 2 or not dims_equal(name, x.shape[1], self.input_size):
            raise ValueError(f"For '{name}', 'x' must be 2-D (batch_size, {self.input_size}), "
                             f"but got shape {tuple(x.shape)}.")
        _check_states(name, "the state", states, (x.shape[0], self.hidden_size),
                      "batch_size, hidden_size")

    def _cell(self, x, h, c):
        xw = F.matmul(x, self.weight_ih, transpose_b=True)
        b_hh = None
        if self.has_bias:
            xw = F.bias_add(xw, self.bias_ih)
            b_hh = self.bias_hh
        return self._step(xw, h, c, self.weight_hh, b_hh)

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"has_bias={self.has_bias}")


class LSTMCell(_RNNCellBase):
    """One LSTM step (see LSTM): ``(h', c') = cell(x, (h, c))``, x (batch, input_size), h and c
    (batch, hidden_size).

    >>> import numpy as np, minispore as ms
    >>> cell = ms.nn.LSTMCell(10, 16)
    >>> h = ms.Tensor(np.zeros((3, 16), np.float32))
    >>> [t.shape for t in cell(ms.Tensor(np.ones((3, 10), np.float32)), (h, h))]
    [(3, 16), (3, 16)]
    """
    _gates = 4
    _step = staticmethod(_lstm_step)

    def construct(self, x, hx):
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError(f"For 'LSTMCell', 'hx' must be a tuple (h, c) of two Tensors, but "
                            f"got {type(hx).__name__}.")
        self._check(x, hx)
        return self._cell(x, hx[0], hx[1])


class GRUCell(_RNNCellBase):
    """One GRU step (see GRU): ``h' = cell(x, h)``.

    >>> import numpy as np, minispore as ms
    >>> ms.nn.GRUCell(10, 16)(ms.Tensor(np.ones((3, 10), np.float32)),
    ...                       ms.Tensor(np.zeros((3, 16), np.float32))).shape
    (3, 16)
    """
    _gates = 3
    _step = staticmethod(_gru_step)

    def construct(self, x, hx):
        self._check(x, (hx,))
        return self._cell(x, hx, None)[0]


class RNNCell(_RNNCellBase):
    """One Elman step (see RNN): ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``, act 'tanh'
    or 'relu' (``nonlinearity``).

    >>> import numpy as np, minispore as ms
    >>> ms.nn.RNNCell(10, 16, nonlinearity="relu")(ms.Tensor(np.ones((3, 10), np.float32)),
    ...                                          ms.Tensor(np.zeros((3, 16), np.float32))).shape
    (3, 16)
    """

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=mstype.float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', 'nonlinearity' must be 'tanh' or 'relu', but got "
                             f"{nonlinearity!r}.")
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity
        self._step = _rnn_tanh_step if nonlinearity == "tanh" else _rnn_relu_step

    def construct(self, x, hx):
        self._check(x, (hx,))
        return self._cell(x, hx, None)[0]
