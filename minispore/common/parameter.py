"""Parameter: a named, trainable Tensor whose buffer optimizers update in place."""
import numpy as np

from minispore import device
from minispore.common.context import context
from minispore.common.deferred_init import Deferred, DeferredTensor
from minispore.common.tensor import Tensor

_CTX = context()


class TraceError(RuntimeError):
    """A traced program asked for a tensor's value, which does not exist until the graph runs
    (raised by graph's TracedTensor and by a Parameter read while tracing)."""


class DataDependentShape(RuntimeError):
    """A traced operator's output shape depends on its input values (MaskedSelect, Unique,
    bincount): the graph cannot be built; the compiled call then runs op by op instead
    (graph/jit.py CompileCache), where MindSpore compiles a dynamic shape."""


class TensorValueNeeded(TraceError, DataDependentShape):
    """Traced code read a tensor's value (an int(), asnumpy() or bool() of it, e.g. a Tensor
    given as an operator's shape, size or diagonal argument), which exists only when the graph
    runs. A compiled call then runs op by op, as for DataDependentShape (MindSpore compiles it
    with a dynamic shape); where nothing can run it so (graph.trace itself, control flow the
    conversion could not handle) it is the TraceError it always was."""


class Parameter(Tensor):
    """``Parameter(default_input, name=None, requires_grad=True)``.

    ``default_input`` is a Tensor (e.g. from ``initializer``), a numpy array or a number.
    An unnamed parameter gets its name from the cell tree when assigned to a Cell
    (``fc1.weight``).

    Under operator parallelism the buffer holds this rank's block: ``layout`` (a
    TensorLayout) and ``global_shape`` say of what (minispore/parallel/param_slicing.py);
    ``derived`` lists optimizer state cloned from it, which is sliced alongside.
    Under pipeline parallel, ``pipeline_owner`` is ``(stage, PipelineSpec of this rank)``
    when one stage holds and updates it (minispore/parallel/pipeline/stages.py): only that stage's
    ranks save it.
    """
    layout = None
    global_shape = None
    pipeline_owner = None
    _comm_fusion = 1
    is_param_ps = False     # set_param_ps: this parameter lives on the parameter servers
    deferred = False        # DeferredParameter: left undrawn by no_init_parameters

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        if isinstance(default_input, DeferredTensor):
            # no_init_parameters: this Parameter stays undrawn too (DeferredParameter)
            self._dtype, self._placeholder_dims = default_input.dtype, None
            self._deferred_init = default_input._deferred_init
            self.__class__ = DeferredParameter
        elif isinstance(default_input, Tensor):
            if default_input.is_placeholder:
                raise ValueError(f"For 'Parameter' {name!r}, default_input must have data, "
                                 f"not be a placeholder of shape {list(default_input.shape)}.")
            super().__init__(device.asarray(np.array(default_input.asnumpy(), copy=True)),
                             default_input.dtype, internal=True)
        elif isinstance(default_input, (np.ndarray, int, float, bool, list, tuple, np.generic)):
            super().__init__(default_input)
        else:
            raise TypeError(f"For 'Parameter', default_input must be a Tensor, numpy array or "
                            f"number, but got {type(default_input).__name__}.")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"For 'Parameter', name must be a str, got {type(name).__name__}.")
        self.name = name
        self.requires_grad = bool(requires_grad)
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer
        self._name_from_user = name is not None
        self.derived = []

    @property
    def data(self):
        return self

    @property
    def has_init(self):
        """True while no_init_parameters has left the values undrawn."""
        return self.deferred

    @property
    def comm_fusion(self):
        """The fusion id of the collectives of this parameter (its gradient's reduction, its
        optimizer-parallel gather): the parallel passes fuse those that share an id into one
        collective; 0 keeps them apart. MindSpore's default is 1."""
        return self._comm_fusion

    @comm_fusion.setter
    def comm_fusion(self, value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"For Parameter '{self.name}', 'comm_fusion' must be an int, but "
                            f"got {type(value).__name__}.")
        if value < 0:
            raise ValueError(f"For Parameter '{self.name}', 'comm_fusion' must be >= 0, but "
                             f"got {value}.")
        self._comm_fusion = value

    def asnumpy(self):
        if _CTX.tracer is not None:
            # A value read while tracing would be baked into the graph and go stale as soon
            # as the optimizer updates the parameter.
            raise TraceError(f"The value of Parameter '{self.name}' was read (asnumpy, item, "
                             f"float, int or bool) while compiling in GRAPH_MODE or under "
                             f"ms.jit; it would be frozen into the graph. Use operators on the "
                             f"Parameter instead, or run this code in PYNATIVE_MODE.")
        return super().asnumpy()

    def set_data(self, data):
        """Replace the value (same shape); a Tensor, numpy array or number. A Parameter left
        undrawn by no_init_parameters takes it without ever being drawn."""
        arr = data.asnumpy() if isinstance(data, Tensor) else np.asarray(data)
        if arr.shape != self.shape and arr.size != 1:
            raise ValueError(f"For Parameter '{self.name}', set_data got shape {arr.shape}, "
                             f"but the parameter's shape is {self.shape}.")
        self._data = device.asarray(np.array(np.broadcast_to(arr, self.shape),
                                             dtype=self._dtype.np_dtype))
        if self.deferred:
            del self._deferred_init
            self.__class__ = Parameter
        return self

    def assign_value(self, value):
        return self.set_data(value)

    def set_param_ps(self, init_in_server=False):
        """Keep this parameter on the parameter servers: they apply its optimizer update and
        the workers pull its value each step (minispore/ps/).

        Raises:
            RuntimeError: set_ps_context(enable_ps=True) was not called, MS_ROLE is not one of
                the parameter-server job's roles, PYNATIVE_MODE, or `init_in_server` on a
                parameter whose name does not end with 'embedding_table'.
            NotImplementedError: `init_in_server=True` (initialising the table on the server).
        """
        from minispore.common.ps_context import check_set_param_ps
        check_set_param_ps(self, init_in_server)
        self.is_param_ps = True

    def clone(self, init="same"):
        return Parameter(Tensor(device.to_host(self._data).copy(), self._dtype), name=self.name,
                         requires_grad=self.requires_grad)

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self._dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__


class DeferredParameter(Deferred, Parameter):
    """A Parameter made inside no_init_parameters from initializer(): shape and dtype known,
    values drawn when first read (or replaced by set_data, a loaded checkpoint, undrawn);
    it is then a plain Parameter again (common/deferred_init.py)."""
    deferred = True
    materialized = Parameter


class ParameterTuple(tuple):
    """A tuple of Parameters (what optimizers and GradOperation take as ``weights``)."""

    def __new__(cls, iterable):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'ParameterTuple', every element must be a Parameter, "
                                f"but got {type(p).__name__}.")
        return tuple.__new__(cls, items)

    def clone(self, prefix, init="same"):
        """New Parameters named ``prefix.<name>``: copies ('same') or fresh ``initializer(init)``."""
        from minispore.common.initializer import initializer
        out = []
        for p in self:
            data = Tensor(p.asnumpy().copy(), p.dtype) if init == "same" else \
                initializer(init, p.shape, p.dtype)
            clone = Parameter(data, name=f"{prefix}.{p.name}", requires_grad=p.requires_grad)
            if p.layout is not None:     # cloned after slicing: the clone is a block too
                clone.layout, clone.global_shape = p.layout, p.global_shape
                clone.layout_rank = getattr(p, "layout_rank", None)
                clone.layout_mesh = getattr(p, "layout_mesh", None)
            p.derived.append(clone)
            out.append(clone)
        return ParameterTuple(out)
