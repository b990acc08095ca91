"""Automatic mixed precision (MindSpore's mindspore.amp): auto_mixed_precision and its white and
black lists, the loss scalers, all_finite, the loss-scale managers Model takes, and
build_train_network.

Precision changes at cell boundaries (Cell.to_float casts a cell's float inputs and, while it
runs, its trainable Parameters; the Parameters themselves stay float32 master weights), and
converted cells cast their float outputs back to float32. Every operator a converted cell runs
on float16 computes in float32 inside and stores float16 (Primitive.float16_in_float32).
"""
import numpy as np

from minispore import nn, ops
from minispore.common import dtype as mstype
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.wrap.loss_scale import grads_all_finite, host_bool

__all__ = ["auto_mixed_precision", "get_white_list", "get_black_list", "build_train_network",
           "all_finite", "LossScaler", "StaticLossScaler", "DynamicLossScaler",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]

AMP_LEVELS = ("O0", "O1", "O2", "O3")


def get_white_list():
    """The cells and operators O1 runs in float16 (those of MindSpore's list minispore has)."""
    cells = [nn.Conv1d, nn.Conv2d, nn.Conv2dTranspose, nn.Dense]
    prims = [ops.Conv2D, ops.Conv2DTranspose, ops.MatMul, ops.BatchMatMul, ops.ReLU]
    return cells + prims


def get_black_list():
    """The cells O2 keeps in float32: MindSpore's (BatchNorm, LayerNorm) and, as MindSpore's
    training network does by casting the loss input to float32, the loss cells."""
    return [nn.BatchNorm1d, nn.BatchNorm2d, nn.LayerNorm, nn.LossBase]


def _check_dtype(dtype):
    if dtype == mstype.float16:
        return dtype
    if str(dtype).lower() == "bfloat16":
        raise NotImplementedError("For 'auto_mixed_precision', dtype bfloat16 is not supported "
                                  "by minispore (no bfloat16 kernels); use mindspore.float16.")
    raise ValueError(f"For 'auto_mixed_precision', 'dtype' must be float16 or bfloat16, but got "
                     f"{dtype}.")


class _LowPrecisionPrim:
    """A white-list primitive of a cell under O1: casts its float inputs to `dtype`, runs,
    and casts the float outputs back to float32. Other attributes reach the primitive."""

    def __init__(self, prim, dtype):
        object.__setattr__(self, "prim", prim)
        object.__setattr__(self, "dtype", dtype)

    def __call__(self, *args):
        from minispore.nn.cell import _cast_floats
        return _cast_floats(self.prim(*_cast_floats(args, self.dtype)), mstype.float32)

    def __getattr__(self, name):
        if name == "prim":      # not set yet (copy/pickle build the object without __init__)
            raise AttributeError(name)
        return getattr(self.prim, name)


def _convert(cell, dtype):
    """Run `cell` in `dtype` (inputs and trainable Parameters cast) with float32 outputs."""
    cell.to_float(dtype)
    object.__setattr__(cell, "_output_dtype", mstype.float32)


def _keep_float32(cell):
    for _, sub in cell.cells_and_names():
        object.__setattr__(sub, "_cast_dtype", mstype.float32)
        object.__setattr__(sub, "_output_dtype", None)


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    """Return `network` set up for mixed precision (changed in place).

    - "O0": unchanged.
    - "O1": the white-list cells (`get_white_list`: Dense, Conv1d/2d, Conv2dTranspose) run in
      `dtype`, as do the white-list primitives (MatMul, BatchMatMul, Conv2D, Conv2DTranspose,
      ReLU) held as attributes of any cell; their outputs come back as float32.
    - "O2": the whole network runs in `dtype` except the black-list cells (`get_black_list`:
      BatchNorm, LayerNorm and the loss cells), which run in float32.
    - "O3": the whole network runs in `dtype`.

    Under O2 and O3 the network's float outputs are cast back to float32. Parameters stay
    float32 throughout (master weights); each converted cell casts them to `dtype` where it
    reads them, so their gradients arrive in float32. Operators called through functions
    (``ops.matmul(...)`` inside construct) are not seen by O1: only cells and primitive
    attributes are.

    Raises:
        ValueError: `amp_level` is not one of "O0", "O1", "O2", "O3"; `dtype` is not float16.
        NotImplementedError: `dtype` is bfloat16.
    """
    if not isinstance(network, nn.Cell):
        raise TypeError(f"For 'auto_mixed_precision', 'network' must be a Cell, but got "
                        f"{type(network).__name__}.")
    if amp_level not in AMP_LEVELS:
        raise ValueError(f"For 'auto_mixed_precision', 'amp_level' must be one of "
                         f"{list(AMP_LEVELS)}, but got {amp_level!r}.")
    dtype = _check_dtype(dtype)
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        white = tuple(get_white_list())
        cells = tuple(c for c in white if isinstance(c, type) and issubclass(c, nn.Cell))
        prims = tuple(c for c in white if c not in cells)
        for _, cell in list(network.cells_and_names()):
            if isinstance(cell, cells):
                _convert(cell, dtype)
                continue
            if cell._cast_dtype is not None:
                continue
            for name, prim in list(cell._primitives.items()):
                if isinstance(prim, prims):
                    object.__setattr__(cell, name, _LowPrecisionPrim(prim, dtype))
        return network
    _convert(network, dtype)
    # An optimizer inside the network (amp applied to a whole training cell) updates the
    # float32 master weights with float32 gradients at every level.
    keep = (nn.Optimizer,) + (tuple(get_black_list()) if amp_level == "O2" else ())
    for _, cell in network.cells_and_names():
        if isinstance(cell, keep):
            _keep_float32(cell)
    return network


def all_finite(inputs):
    """A bool scalar Tensor: True when no Tensor of `inputs` (a tuple/list) holds inf or NaN.

    >>> import numpy as np, minispore as ms
    >>> bool(ms.amp.all_finite((ms.Tensor(np.array([1.0, np.inf], np.float16)),)).asnumpy())
    False
    """
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    return grads_all_finite(tuple(inputs))


def _scale_arg(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{name}', 'scale_value' must be an int or a float, but got "
                        f"{type(value).__name__}.")
    return float(value)


def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(fn(x) for x in inputs)
    return fn(inputs)


class LossScaler:
    """Base of the loss scalers: ``scale``, ``unscale`` and ``adjust``."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """``StaticLossScaler(scale_value)``: multiplies by a constant scale and divides it back.

    ``scale(inputs)`` gives inputs * scale_value, ``unscale(inputs)`` inputs / scale_value (a
    Tensor or a tuple of them; each keeps its dtype); ``adjust`` changes nothing and returns
    False. ``scale_value`` is a float32 Parameter.
    """

    def __init__(self, scale_value):
        value = _scale_arg("StaticLossScaler", scale_value)
        self.scale_value = Parameter(Tensor(np.array(value, np.float32)), name="scale_value",
                                     requires_grad=False)

    # Operators on the Parameter, not its value read on the host: under ms.jit the scale is
    # read at every run (MindSpore's tutorial scales inside a compiled step).
    def scale(self, inputs):
        return _map(lambda x: ops.mul(x, ops.cast(self.scale_value, x.dtype)), inputs)

    def unscale(self, inputs):
        inverse = ops.reciprocal(self.scale_value)      # once for every gradient
        return _map(lambda x: ops.mul(x, ops.cast(inverse, x.dtype)), inputs)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(StaticLossScaler):
    """``DynamicLossScaler(scale_value, scale_factor, scale_window)``: a scale that falls on
    overflow and grows after clean steps.

    ``adjust(grads_finite)`` (a bool scalar Tensor, e.g. from `all_finite`): when False, the
    scale becomes max(scale / scale_factor, 1) and the count of clean steps restarts; when
    True, the count grows, and on reaching `scale_window` the scale becomes
    scale * scale_factor (if finite) and the count restarts. Returns True.

    >>> import numpy as np, minispore as ms
    >>> scaler = ms.amp.DynamicLossScaler(scale_value=2**10, scale_factor=2, scale_window=1)
    >>> grads = (ms.Tensor(np.array([np.log(-1), 1.0]), ms.float16),)
    >>> scaler.adjust(ms.amp.all_finite(scaler.unscale(grads)))
    True
    >>> float(scaler.scale_value.asnumpy())
    512.0
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        super().__init__(scale_value)
        for arg, v, low in (("scale_factor", scale_factor, 1), ("scale_window", scale_window, 1)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'DynamicLossScaler', '{arg}' must be an int, but got "
                                f"{type(v).__name__}.")
            if v < low:
                raise ValueError(f"For 'DynamicLossScaler', '{arg}' must be >= {low}, but got "
                                 f"{v}.")
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.counter = Parameter(Tensor(np.array(0, np.int32)), name="counter",
                                 requires_grad=False)

    def adjust(self, grads_finite):
        # Written in operators and assigns, as MindSpore's is, so that a compiled training
        # step (ms.jit) updates the scale on every run instead of freezing it at trace time.
        if not isinstance(grads_finite, Tensor):
            grads_finite = Tensor(np.array(host_bool(grads_finite)))
        finite = ops.cast(grads_finite.reshape(()), mstype.bool_)
        scale = self.scale_value
        grown = scale * self.scale_factor
        grown = ops.select(ops.isfinite(grown), grown, scale)
        at_window = ops.equal(self.counter, self.scale_window - 1)
        shrunk = ops.maximum(ops.ones((), mstype.float32), scale / self.scale_factor)
        new_scale = ops.select(finite, ops.select(at_window, grown, scale), shrunk)
        counter = ((self.counter + 1) % self.scale_window) * ops.cast(finite, mstype.int32)
        ops.assign(self.scale_value, new_scale)
        ops.assign(self.counter, counter)
        return True


class LossScaleManager:
    """Base of the loss-scale managers Model takes as ``loss_scale_manager``."""

    def get_loss_scale(self):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """``FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)``.

    With drop_overflow_update (the default) Model trains through
    TrainOneStepWithLossScaleCell with a FixedLossScaleUpdateCell: steps whose gradients
    overflow are skipped. Without it, `get_update_cell` is None and Model trains through
    TrainOneStepCell with sens=loss_scale: the optimizer must then divide by the same scale
    (its ``loss_scale`` argument), as in MindSpore.
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, (int, float)):
            raise TypeError(f"For 'FixedLossScaleManager', 'loss_scale' must be a float, but "
                            f"got {type(loss_scale).__name__}.")
        if loss_scale < 1:
            raise ValueError(f"For 'FixedLossScaleManager', 'loss_scale' must be >= 1, but got "
                             f"{loss_scale}.")
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"For 'FixedLossScaleManager', 'drop_overflow_update' must be "
                            f"bool, but got {type(drop_overflow_update).__name__}.")
        self._loss_scale = float(loss_scale)
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """A fixed scale does not change."""

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """``DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)``:
    Model trains through TrainOneStepWithLossScaleCell with a DynamicLossScaleUpdateCell
    (overflowing steps skipped, the scale divided by scale_factor; multiplied by it after
    scale_window clean steps)."""

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        from minispore.nn.wrap.loss_scale import _check_scale_args
        _check_scale_args("DynamicLossScaleManager", init_loss_scale, scale_factor,
                          scale_window)
        self.loss_scale = init_loss_scale      # as given: MindSpore returns an int scale as an int
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0

    def get_loss_scale(self):
        return self.loss_scale

    def get_drop_overflow_update(self):
        return True

    def update_loss_scale(self, overflow):
        """The host-side rule of the update cell, for loops that manage the scale by hand."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
        elif (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
            self.loss_scale *= self.increase_ratio
        self.cur_iter += 1

    def get_update_cell(self):
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor,
                                             self.scale_window)


# Model's settings per amp_level (MindSpore's build_train_network): whether BatchNorm stays
# float32 and the loss-scale manager used when none is given.
_LEVEL_CONFIGS = {
    "O0": dict(keep_batchnorm_fp32=False, loss_scale_manager=None),
    "O1": dict(keep_batchnorm_fp32=False, loss_scale_manager=None),
    "O2": dict(keep_batchnorm_fp32=True, loss_scale_manager=DynamicLossScaleManager),
    "O3": dict(keep_batchnorm_fp32=False, loss_scale_manager=None),
}


class _LossInFloat32(nn.Cell):
    """WithLossCell whose loss runs in float32 on the backbone's output (cast at the boundary)."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        if out.dtype.is_float and out.dtype != mstype.float32:
            out = ops.cast(out, mstype.float32)
        if label.dtype.is_float and label.dtype != mstype.float32:
            label = ops.cast(label, mstype.float32)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        return self._backbone


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The training network Model uses: `network` under `level`'s mixed precision (see
    auto_mixed_precision; ``keep_batchnorm_fp32`` overrides whether BatchNorm stays float32),
    with `loss_fn` computed in float32, in TrainOneStepWithLossScaleCell when a loss-scale
    manager with an update cell is given (or implied: O2 defaults to
    DynamicLossScaleManager()), else in TrainOneStepCell (with sens = the fixed scale of a
    FixedLossScaleManager(drop_overflow_update=False)).
    """
    if level not in AMP_LEVELS:
        raise ValueError(f"For 'build_train_network', 'level' must be one of "
                         f"{list(AMP_LEVELS)}, but got {level!r}.")
    if boost_level != "O0":
        raise NotImplementedError(f"For 'build_train_network', boost_level {boost_level!r} is "
                                  f"not supported by minispore; use 'O0'.")
    config = dict(_LEVEL_CONFIGS[level])
    for key in kwargs:
        if key not in ("keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"For 'build_train_network', the keyword argument {key!r} is not "
                             f"supported; the valid keys are ['keep_batchnorm_fp32', "
                             f"'loss_scale_manager'].")
        config[key] = kwargs[key]
    if not isinstance(config["keep_batchnorm_fp32"], bool):
        raise TypeError(f"For 'build_train_network', 'keep_batchnorm_fp32' must be bool, but "
                        f"got {type(config['keep_batchnorm_fp32']).__name__}.")
    manager = config["loss_scale_manager"]
    if isinstance(manager, type):
        manager = manager()
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(f"For 'build_train_network', 'loss_scale_manager' must be a "
                        f"LossScaleManager, but got {type(manager).__name__}.")
    auto_mixed_precision(network, level)
    batchnorms = (nn.BatchNorm1d, nn.BatchNorm2d)
    if level != "O0":
        for _, cell in network.cells_and_names():
            if isinstance(cell, batchnorms):
                if config["keep_batchnorm_fp32"]:
                    _keep_float32(cell)
                elif level == "O2":
                    _convert(cell, mstype.float16)
    if loss_fn is not None:
        network = _LossInFloat32(network, loss_fn) if level != "O0" \
            else nn.WithLossCell(network, loss_fn)
    update_cell = manager.get_update_cell() if manager is not None else None
    if update_cell is not None:
        return nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense=update_cell)
    sens = manager.get_loss_scale() if manager is not None else 1.0
    return nn.TrainOneStepCell(network, optimizer, sens=sens)
