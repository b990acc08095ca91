"""RandomDataset: rows of random values shaped by a Schema (or by a random schema)."""
import numpy as np

from minispore.dataset import config
from minispore.dataset.engine import chunk as ck
from minispore.dataset.engine.datasets import Dataset
from minispore.dataset.engine.samplers import _check_count, check_shard_args
from minispore.dataset.engine.schema import Schema

# MindSpore's RandomDataOp bounds for what it draws when no schema / row count is given
_MAX_COLUMNS, _MAX_RANK, _MAX_DIM, _MAX_ROWS = 4, 4, 32, 1024
_RANDOM_TYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                 "uint64", "float16", "float32", "float64")


def _random_schema(rng):
    schema = Schema()
    for i in range(int(rng.integers(1, _MAX_COLUMNS + 1))):
        rank = int(rng.integers(1, _MAX_RANK + 1))
        schema.add_column(f"c{i}", _RANDOM_TYPES[int(rng.integers(len(_RANDOM_TYPES)))],
                          [int(d) for d in rng.integers(1, _MAX_DIM + 1, size=rank)])
    return schema


def _fill(byte, shape, dtype):
    """An array of `shape` whose every byte is `byte`: MindSpore memsets each tensor of a row
    with one random byte, so e.g. an int32 value is 0xABABABAB."""
    if dtype == np.bool_:
        return np.full(shape, byte != 0)
    count = int(np.prod(shape, dtype=np.int64))
    return np.full(count * dtype.itemsize, byte, np.uint8).view(dtype).reshape(shape)


class RandomDataset(Dataset):
    """`total_rows` rows of random data with the columns of `schema` (a Schema or a schema
    file path); without a schema, 1-4 columns c0, c1, … of random numeric types and random
    shapes (rank 1-4, dims 1-32).

    Each value is one random byte repeated over the tensor's bytes (MindSpore's RandomDataOp);
    a dim of -1 is drawn per row in 1-32; a column without a shape is a scalar. The data come
    from the dataset seed (ds.config.set_seed) read when the dataset is made, so every epoch
    and every dataset made under the same seed yields the same rows.

    Rows: total_rows; with a schema and no total_rows, the schema's numRows; without a schema,
    num_samples when given. With no count at all, 1-1024 rows drawn from the seed. As in
    MindSpore 2.7.2, shuffle, num_shards and shard_id are checked but change nothing (every
    shard reads all the rows) and num_samples does not cut a schema's rows.

    >>> s = Schema(); s.add_column("label", "int32", [1])
    >>> RandomDataset(total_rows=3, schema=s).get_dataset_size()
    3
    """

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, cache=None, shuffle=None, num_shards=None,
                 shard_id=None):
        super().__init__((), num_parallel_workers)
        _check_count("total_rows", total_rows)
        _check_count("num_samples", num_samples)
        if shuffle is not None and not isinstance(shuffle, bool):
            raise TypeError(f"Argument shuffle with value {shuffle!r} is not of type "
                            f"[<class 'bool'>], but got {type(shuffle)}.")
        check_shard_args(num_shards, shard_id)
        if columns_list is not None and not isinstance(columns_list, list):
            raise TypeError(f"Argument columns_list with value {columns_list!r} is not of type "
                            f"[<class 'list'>], but got {type(columns_list)}.")
        if cache is not None:
            raise NotImplementedError("For 'RandomDataset', 'cache' (a DatasetCache server) is "
                                      "not implemented in minispore; leave it None.")
        if schema is not None and not isinstance(schema, (Schema, str)):
            raise TypeError(f"For 'RandomDataset', schema must be a Schema or the path of a "
                            f"schema JSON file, got {schema!r}.")
        self._seed = config.get_seed()
        rng = np.random.default_rng([self._seed, 0])
        # MindSpore's Python layer settles the row count in this order (datasets_vision.py)
        rows = total_rows or 0
        if num_samples:
            rows = num_samples
        if schema is not None:
            schema = schema if isinstance(schema, Schema) else Schema(schema)
            rows = total_rows if total_rows is not None else schema.num_rows
        else:
            schema = _random_schema(rng)
        self.total_rows = rows or int(rng.integers(1, _MAX_ROWS + 1))
        self._columns = self._select(schema, columns_list)
        self.schema = schema

    @staticmethod
    def _select(schema, columns_list):
        if not schema.columns:
            raise RuntimeError('Invalid data, "columns" field is missing in JSON schema string: '
                               'the schema has no columns.')
        by_name = {c["name"]: c for c in schema.columns}
        if columns_list:
            for name in columns_list:
                if name not in by_name:
                    raise RuntimeError(f"Invalid data, failed to find column: {name} in JSON "
                                       f"schema; it has {list(by_name)}.")
            cols = [by_name[n] for n in columns_list]
        else:
            cols = list(schema.columns)
        for col in cols:
            if col["type"] == "string":
                raise RuntimeError(f"RandomDataset: column '{col['name']}' is a string column; "
                                   f"RandomDataset makes numeric columns only (MindSpore fails "
                                   f"on it too).")
        return cols

    def get_col_names(self):
        return [c["name"] for c in self._columns]

    def _size(self):
        return self.total_rows

    def _chunks(self, ctx):
        rng = np.random.default_rng([self._seed, 1])
        for start in range(0, self.total_rows, ck.CHUNK_ROWS):
            n = min(ck.CHUNK_ROWS, self.total_rows - start)
            chunk = []
            for col in self._columns:
                dtype, shape = np.dtype(col["type"]), col["shape"] or []
                rows = []
                for byte in rng.integers(0, 256, size=n):
                    dims = [int(rng.integers(1, _MAX_DIM + 1)) if d == -1 else d for d in shape]
                    rows.append(_fill(int(byte), dims, dtype))
                chunk.append(ck.stack(rows))
            yield chunk
