"""``nn.GraphCell``: a network loaded from a MINDIR file (``ms.load``), run as a Cell."""
from minispore.common.parameter import Parameter
from minispore.common.tensor import Tensor
from minispore.nn.cell import Cell
from minispore.graph.mindir import MindirGraph

__all__ = ["GraphCell"]


class GraphCell(Cell):
    """``GraphCell(graph, params_init=None)``: runs the graph ``ms.load`` returned; its
    parameters (named as in the exported network) are this cell's, so they can be
    checkpointed, replaced through `params_init` ({name: Tensor or Parameter}) or trained."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        if not isinstance(graph, MindirGraph):
            raise TypeError(f"For 'GraphCell', 'graph' must be what ms.load returns, but got "
                            f"{type(graph).__name__}.")
        if obf_random_seed is not None:
            raise NotImplementedError("For 'GraphCell', 'obf_random_seed' (a model obfuscated "
                                      "at export) is not implemented in minispore.")
        params_init = dict(params_init or {})
        names = {name for _, name, _, _ in graph.parameters}
        unknown = sorted(set(params_init) - names)
        if unknown:
            raise ValueError(f"For 'GraphCell', 'params_init' names {unknown}, which the graph "
                             f"does not have; its parameters are {sorted(names)}.")
        self.graph = graph
        self._by_value = {}
        for value_name, name, array, requires_grad in graph.parameters:
            init = params_init.get(name, array)
            init = init.asnumpy() if isinstance(init, Tensor) else init
            if tuple(init.shape) != array.shape or init.dtype != array.dtype:
                raise ValueError(f"For 'GraphCell', 'params_init[{name!r}]' must be of shape "
                                 f"{array.shape} and dtype {array.dtype}, but got "
                                 f"{tuple(init.shape)} {init.dtype}.")
            param = Parameter(Tensor(init.copy()), name=name, requires_grad=requires_grad)
            self.insert_param_to_cell(name, param, check_name_contain_dot=False)
            self._by_value[value_name] = param

    def construct(self, *inputs):
        return self.graph.run(inputs, self._by_value)
