"""Cell: the network building block; owns the tree of sub-cells, parameters and primitives."""
import logging
from collections import OrderedDict

from minispore.common.auto_parallel_context import get_auto_parallel_context
from minispore.common import dtype as mstype
from minispore.common.context import GRAPH_MODE, context
from minispore.common.jit_config import note_jit_config
from minispore.common.parameter import Parameter, ParameterTuple
from minispore.common.ps_context import is_role_sched
from minispore.common.tensor import Tensor
from minispore.graph.autograph import convert
from minispore.graph.jit import note_inline_under_tape, tracing
from minispore.nn.cell_hooks import HOOK_TABLES, CellHooks
from minispore.ops.operations.array_ops import Assign
from minispore.ops.primitive import Primitive, check_place_args

logger = logging.getLogger("minispore")

_CTX = context()
_RECOMPUTE_KEYS = ("mp_comm_recompute", "parallel_optimizer_comm_recompute",
                   "recompute_slice_activation")


class Cell(CellHooks):
    """Base class of every network and layer.

    Subclasses build sub-cells, Parameters and Primitives in ``__init__`` and compute in
    ``construct``. Assigning them as attributes registers them: a Parameter without a name
    takes the attribute name, and with ``auto_prefix`` a parent prefixes the names of a child's
    parameters with the child's attribute name (``fc.weight``, ``features.0.weight``).
    While a cell runs, its attribute name is on the context's scope stack, so an operator error
    names its place in the network ("in Net.fc.matmul"), and its annotations (``recompute``,
    ``place``, ``pipeline_stage``) are an annotation frame that every node traced inside
    inherits, functional ops included.

    >>> import minispore as ms, numpy as np
    >>> from minispore import nn
    >>> class Net(nn.Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Dense(3, 2)
    ...     def construct(self, x):
    ...         return self.fc(x)
    >>> [p.name for p in Net().trainable_params()]
    ['fc.weight', 'fc.bias']
    """

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_primitives", OrderedDict())
        object.__setattr__(self, "_params_tuples", OrderedDict())
        self._auto_prefix = auto_prefix
        self._scope_name = ""
        self.training = False
        self.requires_grad = False
        self._inputs = None
        self._kw_inputs = None
        self._cast_dtype = None
        self._output_dtype = None   # float outputs cast to it (mixed precision's boundary)
        self._running = 0           # > 0 while construct runs (parameters cast at use)
        self._pipeline_stage = None
        self._recompute = None
        self._recompute_inherited = False
        self._annotations = None   # the annotation frame pushed while this cell runs
        self._flags = {}
        self._forward_pre_hook = OrderedDict()
        self._forward_hook = OrderedDict()
        self._backward_hook = OrderedDict()
        self._backward_pre_hook = OrderedDict()
        self._hook_key = 0
        if flags:
            self.add_flags(**flags)

    # -- attribute registration ------------------------------------------------------------
    def __setattr__(self, name, value):
        if "_params" not in self.__dict__:
            raise AttributeError(f"'{type(self).__name__}': call super().__init__() before "
                                 f"assigning attribute {name!r}.")
        if name in self._cells and value is not None and not isinstance(value, Cell):
            raise TypeError(f"For 'Cell', the type of {name} should be cell, but got "
                            f"{'function' if callable(value) else type(value).__name__}.")
        if name in self._params and isinstance(value, Tensor) and \
                not isinstance(value, Parameter):
            self._write_parameter(name, value)
            return
        self._unregister(name)
        if isinstance(value, (Parameter, Cell, ParameterTuple)) and name in self.__dict__:
            object.__delattr__(self, name)
        if isinstance(value, Parameter):
            self.insert_param_to_cell(name, value)
        elif isinstance(value, Cell):
            self.insert_child_to_cell(name, value)
            if self._auto_prefix:
                value.update_parameters_name(name + ".")
        elif isinstance(value, ParameterTuple):
            self._params_tuples[name] = value
            for p in value:
                self._params[p.name] = p
        else:
            if isinstance(value, Primitive):
                value.set_prim_instance_name(name)
                self._primitives[name] = value
            object.__setattr__(self, name, value)

    def _write_parameter(self, name, value):
        """MindSpore's ``self.param = tensor``: a new value for the Parameter (an Assign in a
        compiled construct, set_data otherwise); the attribute stays the Parameter."""
        param = self._params[name]
        if tracing():
            Assign()(param, value)
        else:
            param.set_data(value)

    def _unregister(self, name):
        self._params.pop(name, None)
        self._cells.pop(name, None)
        self._primitives.pop(name, None)
        for p in self._params_tuples.pop(name, ()):
            self._params.pop(p.name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_params", "_cells", "_params_tuples"):
            if table in d and name in d[table]:
                value = d[table][name]
                if table == "_params" and d.get("_running"):
                    return self._cast_param(value)
                return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'.")

    def __delattr__(self, name):
        if name in self._params or name in self._cells or name in self._params_tuples:
            self._unregister(name)
        else:
            self._primitives.pop(name, None)
            object.__delattr__(self, name)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Register ``param`` under ``param_name``; an unnamed parameter takes that name."""
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"For 'insert_param_to_cell', the parameter name must be a non-empty "
                           f"str, but got {param_name!r}.")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"For 'insert_param_to_cell', the parameter name cannot contain "
                           f"'.', but got {param_name!r}.")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"For 'insert_param_to_cell', 'param' must be a Parameter, but got "
                            f"{type(param).__name__}.")
        if param_name in self.__dict__ or param_name in self._cells:
            raise KeyError(f"For 'insert_param_to_cell', the name {param_name!r} is already "
                           f"used by another attribute of {type(self).__name__}.")
        if param is not None and param.name is None:
            param.name = param_name
        self._params[param_name] = param

    def insert_child_to_cell(self, child_name, child_cell):
        """Register ``child_cell`` under ``child_name`` (no name prefixing here)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"For 'insert_child_to_cell', the child name must be a non-empty str "
                           f"without '.', but got {child_name!r}.")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"For 'insert_child_to_cell', 'child_cell' must be a Cell, but got "
                            f"{type(child_cell).__name__}.")
        if child_name in self.__dict__ or child_name in self._params:
            raise KeyError(f"For 'insert_child_to_cell', the name {child_name!r} is already used "
                           f"by another attribute of {type(self).__name__}.")
        if child_cell is not None:
            child_cell._scope_name = child_name
        self._cells[child_name] = child_cell

    def update_parameters_name(self, prefix="", recurse=True):
        """Rename every parameter to ``prefix`` + its path in this cell (``fc.weight``)."""
        if not isinstance(prefix, str):
            raise TypeError(f"For 'update_parameters_name', 'prefix' must be a str, but got "
                            f"{type(prefix).__name__}.")
        for name, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + name

    # -- traversal -------------------------------------------------------------------------
    def cells_and_names(self, cells=None, name_prefix=""):
        """(path, cell) for this cell and every sub-cell, depth first, each cell once."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is None:
                continue
            path = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, path)

    def parameters_and_names(self, name_prefix="", expand=True):
        """(path, Parameter) pairs: each cell's own parameters, cells in depth-first order."""
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen = set()
        for cell_path, cell in cells:
            for name, param in cell._params.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{cell_path}.{name}" if cell_path else name), param

    def get_parameters(self, expand=True):
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def init_parameters_data(self, auto_parallel_mode=False):
        """Draw every parameter no_init_parameters left undrawn; {parameter: parameter} for all
        of them (MindSpore maps each to its replacement; minispore draws in place)."""
        params = list(self.get_parameters())
        for param in params:
            if param.deferred:
                param.init_data()
        return {param: param for param in params}

    def parameters_dict(self, recurse=True):
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def name_cells(self):
        return OrderedDict((k, v) for k, v in self._cells.items() if v is not None)

    def cells(self):
        return self.name_cells().values()

    # -- modes and flags ---------------------------------------------------------------------
    def set_train(self, mode=True):
        """Training (True) or inference (False) for this cell and every sub-cell (Dropout)."""
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", bool(mode))
        return self

    def set_grad(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    def add_flags(self, **flags):
        self._flags.update(flags)
        for k, v in flags.items():
            object.__setattr__(self, k, v)
        return self

    def add_flags_recursive(self, **flags):
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self):
        return dict(self._flags)

    def to_float(self, dtype):
        """Cast the float Tensor inputs of this cell and every sub-cell to ``dtype`` on call.

        The Parameters stay in their own dtype (float32 master weights under mixed precision):
        while construct runs, reading a trainable float Parameter as an attribute gives it
        cast to ``dtype`` (a Cast the gradient flows back through in the Parameter's dtype)."""
        dtype = mstype.to_type(dtype)
        if dtype not in (mstype.float16, mstype.float32):
            raise ValueError(f"For 'to_float', the argument 'dtype' must be float16 or float32, "
                             f"but got {dtype}.")
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_cast_dtype", dtype)
        return self

    # -- calling ---------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct().")

    def __call__(self, *args, **kwargs):
        region = self.__dict__.get("_shard_fn")
        if region is not None:
            return region(*args, **kwargs)
        if _CTX.mode == GRAPH_MODE and _CTX.tracer is None and not _CTX.batching:
            if not _CTX.tapes:
                return self._graph_call(args, kwargs)
            # an eager tape (ops.vjp, jacrev …) records it: a compiled call would be one
            # opaque result, so construct runs on the tape
            note_inline_under_tape(type(self).__name__)
        return self._run_construct(*args, **kwargs)

    def _run_construct(self, *args, **kwargs):
        d = self.__dict__
        for table in HOOK_TABLES:       # every cell call: a plain loop, no strings built
            if d.get(table):
                return self._run_hooked(args, kwargs)
        return self._run_annotated(args, kwargs)

    def _run_annotated(self, args, kwargs):
        frame = self._annotations
        if frame is not None and _CTX.tracer is None:
            error = _placed_eagerly(self, frame) or _staged_eagerly(self, frame)
            if error is not None:
                raise error
            if self._recompute is not None and _CTX.tapes:
                from minispore.ops.autodiff import run_recomputed
                return run_recomputed(lambda: self._construct_in_scope(None, args, kwargs),
                                      type(self).__name__, self._random_generators())
            frame = None
        return self._construct_in_scope(frame, args, kwargs)

    def _construct_in_scope(self, frame, args, kwargs):
        """construct() with this cell's name on the scope stack and, while tracing, its
        annotation frame pushed."""
        scopes = _CTX.scopes
        if _CTX.tracer is not None and len(scopes) >= _CTX.get("max_call_depth"):
            raise RuntimeError(
                f"Exceed function call depth limit {_CTX.get('max_call_depth')} (cell call "
                f"depth: {len(scopes) + 1}, calling {type(self).__name__} inside "
                f"{scopes[-1]}) while compiling. It's always happened with complex "
                f"construction of code or infinite recursion; check the code for infinite "
                f"recursion or call set_context(max_call_depth=value) to adjust this value.")
        scopes.append(self._scope_name if scopes and self._scope_name else type(self).__name__)
        if frame is not None:
            _CTX.annotation_frames.append(frame)
        d = self.__dict__
        try:
            if d["_cast_dtype"] is not None:
                args = tuple(self._cast(a) for a in args)
                d["_running"] += 1
            if _CTX.tracer is not None and "construct" not in d:
                # Compiling: construct with its ifs converted (an if on a Tensor compiles).
                out = convert(type(self).construct)(self, *args, **kwargs)
            else:
                out = self.construct(*args, **kwargs)
            if d["_output_dtype"] is not None:
                out = _cast_floats(out, d["_output_dtype"])
            return out
        finally:
            if d["_cast_dtype"] is not None:
                d["_running"] -= 1
            scopes.pop()
            if frame is not None:
                _CTX.annotation_frames.pop()

    def _random_generators(self):
        """The generators of this cell's primitives (and its sub-cells'), for recompute."""
        return tuple(g for _, cell in self.cells_and_names()
                     for prim in cell._primitives.values() if prim is not None
                     for g in prim.generators())

    def _set_annotation(self, **entries):
        """Update this cell's annotation frame (None values remove their key)."""
        frame = dict(self._annotations or {})
        for key, value in entries.items():
            if value is None:
                frame.pop(key, None)
            else:
                frame[key] = value
        object.__setattr__(self, "_annotations", frame or None)

    def _graph_call(self, args, kwargs):
        """GRAPH mode: run the graph compiled for this input signature (see minispore.graph.jit);
        ``_compile_target`` says what to trace."""
        from minispore.graph.jit import CompileCache, jit_enabled
        if not jit_enabled():
            return self._run_construct(*args, **kwargs)
        cache = self.__dict__.get("_graph_cache")
        if cache is None:
            cache = CompileCache(type(self).__name__)
            object.__setattr__(self, "_graph_cache", cache)
        names = tuple(kwargs)
        n = len(args)
        fn, prepare = self._compile_target()

        def call(*a):
            return fn(*a[:n], **dict(zip(names, a[n:])))
        # MindSpore keys a cell's graphs by its `phase` too: a script that changes a flag
        # construct reads sets another phase to get the other graph (THOR's ModelThor).
        phase = self.__dict__.get("phase")
        return cache.call(call, args + tuple(kwargs.values()),
                          (names, self.training, phase if isinstance(phase, str) else None),
                          self.get_inputs(), prepare,
                          eager=lambda: self._run_construct(*args, **kwargs))

    def _compile_target(self):
        """(function to trace, prepare(graph, tracer) or None) for GRAPH mode: by default the
        cell's own call; training wrappers add gradient and update requests."""
        return self._run_construct, None

    def compile_cache_info(self):
        """GRAPH-mode compilations of this cell: dict(compiles=, hits=, entries=)."""
        cache = self.__dict__.get("_graph_cache")
        return cache.info() if cache is not None else {"compiles": 0, "hits": 0, "entries": 0}

    def _cast_param(self, p):
        if (isinstance(p, Parameter) and p.requires_grad and p.dtype.is_float
                and p.dtype != self._cast_dtype):
            from minispore.ops import functional as F
            return F.cast(p, self._cast_dtype)
        return p

    def _cast(self, x):
        if isinstance(x, Tensor) and not isinstance(x, Parameter) and x.dtype.is_float \
                and x.dtype != self._cast_dtype:
            from minispore.ops import functional as F
            return F.cast(x, self._cast_dtype)
        return x

    def set_jit_config(self, jit_config):
        """Keep a JitConfig for this cell's GRAPH compilation (its options have no effect:
        there is one compile pipeline, and a warning says so)."""
        self._jit_config = note_jit_config(jit_config, f"{type(self).__name__}.set_jit_config")

    def get_jit_config(self):
        config = self.__dict__.get("_jit_config")
        return {} if config is None else dict(config.jit_config_dict)

    def set_inputs(self, *inputs, **kwargs):
        """Declare the inputs (placeholders: ``Tensor(shape=[None, 784], dtype=...)``) that
        GRAPH mode compiles for; either positional or keyword inputs, not both."""
        if inputs and kwargs:
            raise ValueError(f"For 'set_inputs' of {type(self).__name__}, give either inputs "
                             f"or kwargs, not both.")
        def is_placeholder(x):   # a Tensor, or a tuple/list of them (mutable((x, y)))
            return isinstance(x, Tensor) or (isinstance(x, (tuple, list)) and x and
                                             all(is_placeholder(y) for y in x))

        def is_constant(x):      # a number, or a tuple/list of them (a shape, a seed)
            return isinstance(x, (bool, int, float)) or (
                isinstance(x, (tuple, list)) and all(is_constant(y) for y in x))
        for i, x in enumerate(list(inputs) + list(kwargs.values())):
            if not (is_placeholder(x) or is_constant(x)):
                raise TypeError(f"For 'set_inputs' of {type(self).__name__}, input {i + 1} must "
                                f"be a Tensor (placeholder), a tuple/list of them, or a "
                                f"constant (a number or a tuple of numbers), but got "
                                f"{type(x).__name__}.")
        self._inputs = inputs if inputs else None
        self._kw_inputs = kwargs if kwargs else None

    def get_inputs(self):
        """The placeholders given to ``set_inputs`` (a tuple), or None."""
        if self._kw_inputs is not None:
            return tuple(self._kw_inputs.values())
        return self._inputs

    # -- parallel annotations ------------------------------------------------------------------
    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend",
              level=0):
        """MindSpore's functional sharding of this cell (minispore/parallel/shard.py): returns
        the sharded callable (r2.3/2.4) and also marks the cell, so calling the cell itself
        runs sharded (r2.5+)."""
        from minispore.parallel.shard import shard
        region = shard(self, in_strategy, out_strategy, parameter_plan, device, level)
        if self.__dict__.get("_shard_fn") is not None:
            logger.warning("'Shard' has been configured more than once for %s; the last "
                           "configuration is used.", type(self).__name__)
        object.__setattr__(self, "_shard_fn", region)
        return region

    def set_param_ps(self, recurse=True, init_in_server=False):
        """Keep this cell's trainable parameters (its sub-cells' too when `recurse`) on the
        parameter servers (``Parameter.set_param_ps``, minispore/ps/)."""
        for param in self.trainable_params(recurse):
            param.set_param_ps(init_in_server)

    def set_comm_fusion(self, fusion_type, recurse=True):
        """Give this cell's parameters (its sub-cells' too when `recurse`) the communication
        fusion id `fusion_type` (``Parameter.comm_fusion``): their collectives with one id
        become one collective (minispore/parallel/comm/fusion.py); 0 keeps them apart."""
        if not isinstance(fusion_type, int) or isinstance(fusion_type, bool):
            raise TypeError(f"For '{type(self).__name__}.set_comm_fusion', 'fusion_type' must be "
                            f"an int, but got {type(fusion_type).__name__}.")
        for param in self.get_parameters(expand=recurse):
            param.comm_fusion = fusion_type
        return self

    def place(self, role, rank_id):
        """Run every node traced inside this cell (its sub-cells and functional ops included)
        on worker ``rank_id``: an annotation frame, not a mark on shared primitives. In the
        scheduler process it returns at once (it places its primitives, as MindSpore's
        Cell.place does, and Primitive.place returns at once there)."""
        if is_role_sched():
            return self
        check_place_args(type(self).__name__, role, rank_id)
        self._set_annotation(ms_role=role, rank_id=rank_id)
        return self

    @property
    def pipeline_stage(self):
        return self._pipeline_stage

    @pipeline_stage.setter
    def pipeline_stage(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For '{type(self).__name__}', 'pipeline_stage' must be an int, but "
                            f"got {type(value).__name__}.")
        if value < 0:
            raise ValueError(f"For '{type(self).__name__}', 'pipeline_stage' must be a "
                             f"non-negative int, but got {value}.")
        object.__setattr__(self, "_pipeline_stage", value)
        self._set_annotation(pipeline_stage=value)
        for p in self.trainable_params():
            stages = p.__dict__.setdefault("pipeline_stages", [])
            if value not in stages:
                stages.append(value)

    def recompute(self, **kwargs):
        """Recompute this cell in the backward instead of keeping its activations: every
        primitive of the cell and of its sub-cells (functional ops included) is run again just
        before the backward needs its outputs, except the primitives producing the cell's
        outputs, which are kept (MindSpore's rule: they are the next cell's inputs). A
        primitive's own ``recompute(mode)`` wins over the cell's. GRAPH_MODE re-emits the nodes
        in the compiled backward (minispore/graph/recompute.py); PYNATIVE keeps only the cell's
        inputs on the tape and runs the cell again during backward (minispore/ops/
        autodiff.py), replaying its random draws.

        Keyword arguments (bools):
            mp_comm_recompute (default True): recompute the collectives that operator
                parallelism inserts inside the cell; False keeps their outputs.
            parallel_optimizer_comm_recompute (default False): recompute the AllGather of
                weights sliced by optimizer parallel; ignored, with a warning, when
                pipeline_stages > 1 (as in MindSpore).
            recompute_slice_activation: only False is accepted (slicing the kept outputs is not
                built).

        Raises:
            ValueError: an unknown keyword.
            TypeError: a value that is not a bool.
            RuntimeError: the cell, one of its sub-cells or one of its ancestors is configured
                already (recompute is configured once per cell hierarchy).
            NotImplementedError: recompute_slice_activation=True.

        >>> from minispore import nn
        >>> block = nn.SequentialCell(nn.Dense(4, 4), nn.ReLU(), nn.Dense(4, 4))
        >>> block.recompute(mp_comm_recompute=False)
        """
        from minispore.common.auto_parallel_context import get_auto_parallel_context
        from minispore.graph.recompute import CellRecompute
        name = f"{type(self).__name__}.recompute"
        for key, value in kwargs.items():
            if key not in _RECOMPUTE_KEYS:
                raise ValueError(f"For '{name}', the keyword argument {key!r} is not "
                                 f"recognized; valid ones are {list(_RECOMPUTE_KEYS)}.")
            if not isinstance(value, bool):
                raise TypeError(f"For '{name}', {key!r} must be bool, but got "
                                f"{type(value).__name__}.")
        if kwargs.get("recompute_slice_activation"):
            raise NotImplementedError(
                f"For '{name}', recompute_slice_activation=True (slicing the cell's kept "
                f"outputs over the model-parallel devices) is not implemented in minispore; "
                f"leave it False.")
        for _, cell in self.cells_and_names():
            if cell._recompute is not None or cell._recompute_inherited:
                raise RuntimeError(f"For '{name}', recompute may be configured only once in a "
                                   f"cell hierarchy, but {type(cell).__name__} already is.")
        optimizer_comm = kwargs.get("parallel_optimizer_comm_recompute", False)
        if optimizer_comm and get_auto_parallel_context("pipeline_stages") > 1:
            logger.warning("For '%s', parallel_optimizer_comm_recompute=True is ignored: the "
                           "AllGather of optimizer-sliced weights is not recomputed under "
                           "pipeline parallel.", name)
            optimizer_comm = False
        config = CellRecompute(type(self).__name__,
                               kwargs.get("mp_comm_recompute", True), optimizer_comm)
        object.__setattr__(self, "_recompute", config)
        self._set_annotation(recompute=config)
        for _, cell in self.cells_and_names():
            if cell is not self:
                object.__setattr__(cell, "_recompute_inherited", True)

    # -- printing ----------------------------------------------------------------------------
    def extend_repr(self):
        return ""

    def __repr__(self):
        extra = self.extend_repr()
        info = type(self).__name__ + "<"
        children = self.name_cells()
        if children:
            sub = "\n"
            if extra:
                sub += f"{extra}\n"
            for key, value in children.items():
                sub += f"({key}): {value!r}\n"
            info += sub.replace("\n", "\n  ") + ">"
        else:
            info += extra + ">"
        return info


def _placed_eagerly(cell, frame):
    """`place` is a GRAPH_MODE feature (MindSpore refuses it in PyNative): a placed cell that
    runs eagerly (switched to PYNATIVE_MODE after place(), or MS_JIT=0) would ignore it."""
    if "rank_id" not in frame:
        return None
    return RuntimeError(
        f"{type(cell).__name__} is placed on worker {frame['rank_id']} (Cell.place), but it "
        f"runs eagerly: distributed graph partition works in GRAPH_MODE only (not in "
        f"PYNATIVE_MODE, nor with MS_JIT=0). Call set_context(mode=GRAPH_MODE) before running "
        f"it, or remove the place() call.")


def _staged_eagerly(cell, frame):
    """Pipeline parallel is a GRAPH_MODE feature (as in MindSpore): under pipeline_stages > 1
    a cell in a stage other than 0 that runs eagerly would ignore its stage."""
    stage = frame.get("pipeline_stage")
    if not stage or get_auto_parallel_context("pipeline_stages") == 1:
        return None
    return RuntimeError(
        f"{type(cell).__name__} is in pipeline stage {stage} (Cell.pipeline_stage), but it runs "
        f"eagerly: pipeline parallel works in GRAPH_MODE only (not in PYNATIVE_MODE, nor with "
        f"MS_JIT=0). Call set_context(mode=GRAPH_MODE) before running it, or remove the stage.")


def _cast_floats(out, dtype):
    """`out` (a Tensor or a tuple/list of them) with its float Tensors cast to `dtype`."""
    if isinstance(out, (tuple, list)):
        return type(out)(_cast_floats(o, dtype) for o in out)
    if isinstance(out, Tensor) and out.dtype.is_float and out.dtype != dtype:
        from minispore.ops import functional as F
        return F.cast(out, dtype)
    return out
