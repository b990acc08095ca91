"""The sparse cells of MindSpore's mindspore.nn.sparse: SparseToDense (a COOTensor made dense)
and SparseTensorDenseMatmul (COO matrix times dense matrix)."""
import logging

from minispore.nn.cell import Cell
from minispore.ops.function.cell_prims import SparseTensorDenseMatmul as SparseTensorDenseMatmulOp
from minispore.ops.function.cell_prims import SparseToDense as SparseToDenseOp

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]

logger = logging.getLogger("minispore")


class SparseToDense(Cell):
    """The dense Tensor of a COOTensor: values at indices, zeros elsewhere; of repeated
    indices the last value stays (ops.SparseToDense; COOTensor.to_dense adds them up).
    Deprecated in MindSpore since 2.0, which warns on construction.

    >>> import numpy as np
    >>> from minispore import COOTensor, Tensor
    >>> coo = COOTensor(Tensor(np.array([[0, 1], [1, 2]], np.int64)),
    ...                 Tensor(np.array([1, 2], np.int32)), (3, 4))
    >>> SparseToDense()(coo).asnumpy().tolist()
    [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
    """

    def __init__(self):
        logger.warning("'nn.SparseToDense' is deprecated from version 2.0 and will be removed "
                       "in a future version. Please use 'COOTensor.to_dense()' instead.")
        super().__init__()
        self.sparse_to_dense = SparseToDenseOp()

    def construct(self, sparse_tensor):
        return self.sparse_to_dense(sparse_tensor.indices, sparse_tensor.values,
                                    sparse_tensor.shape)


class SparseTensorDenseMatmul(Cell):
    """op(S) @ op(D) for the COO matrix S (values at indices, shape sparse_shape; repeated
    indices add up) and the 2-D dense D; op transposes when adjoint_st / adjoint_dt is True.

    >>> import numpy as np
    >>> from minispore import Tensor
    >>> out = SparseTensorDenseMatmul()(Tensor(np.array([[0, 1], [1, 2]], np.int32)),
    ...                                 Tensor(np.array([1, 2], np.float32)), (3, 4),
    ...                                 Tensor(np.arange(8, dtype=np.float32).reshape(4, 2)))
    >>> out.asnumpy().tolist()
    [[2.0, 3.0], [8.0, 10.0], [0.0, 0.0]]
    """

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.adj_st, self.adj_dt = adjoint_st, adjoint_dt
        self.sparse_dense_matmul = SparseTensorDenseMatmulOp(adjoint_st=adjoint_st,
                                                             adjoint_dt=adjoint_dt)

    def construct(self, indices, values, sparse_shape, dense):
        return self.sparse_dense_matmul(indices, values, sparse_shape, dense)
