"""ds.Schema: a dataset's columns (name, type, shape) and row count, read and written as
MindSpore's schema JSON."""
import json
import os

from minispore.common.dtype import Type

# the type names MindSpore's Schema accepts (its DataType names, less the ones it refuses)
TYPE_NAMES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
              "float16", "float32", "float64", "string")
_TOP_KEYS = ("columns", "numRows", "datasetType")


def _type_name(de_type):
    name = de_type.np_dtype.name if isinstance(de_type, Type) else de_type
    if name not in TYPE_NAMES:
        raise TypeError(f"Unknown column type: {de_type!r}; Schema takes a minispore dtype or one "
                        f"of {list(TYPE_NAMES)}.")
    return name


def _check_shape(shape):
    if not isinstance(shape, list):
        raise TypeError(f"Argument shape with value {shape!r} is not of type [<class 'list'>], "
                        f"but got {type(shape)}.")
    for i, d in enumerate(shape):
        if not isinstance(d, int) or isinstance(d, bool) or d < -1:
            raise TypeError(f"Argument shape[{i}] with value {d!r} is not of type "
                            f"[<class 'int'>] (a dim is an int >= 0, or -1 for unknown).")


class Schema:
    """Columns as MindSpore describes them: name, type name ('int8' … 'float64', 'bool',
    'string') and shape (None: none given; -1 marks a dim of unknown size).

    add_column appends one; parse_columns and from_json replace them all; to_json writes the
    JSON (keys sorted, two-space indent, as MindSpore writes it). `schema_file` is a JSON file
    in from_json's form whose columns each give a "rank".

    >>> s = Schema(); s.add_column("label", "int32", [1])
    >>> Schema.get_num_rows(s)
    0
    """

    def __init__(self, schema_file=None):
        self.columns, self.num_rows, self.dataset_type = [], 0, None
        self.schema_file = schema_file or ""
        if schema_file is None:
            return
        if not isinstance(schema_file, str):
            raise TypeError(f"path: {schema_file!r} is not string")
        if not os.path.isfile(schema_file):
            raise ValueError(f"The file {os.path.abspath(schema_file)} does not exist or "
                             f"permission denied!")
        with open(schema_file, encoding="utf-8") as f:
            obj = json.load(f)
        self._load(obj, need_rank=True)

    def add_column(self, name, de_type, shape=None):
        """Append column `name` of type `de_type` (a minispore dtype or a type name)."""
        if not isinstance(name, str):
            raise TypeError(f"Argument name with value {name!r} is not of type "
                            f"[<class 'str'>], but got {type(name)}.")
        type_name = _type_name(de_type)
        if shape is not None:
            _check_shape(shape)
            shape = list(shape)
        self.columns.append({"name": name, "type": type_name, "shape": shape})

    def parse_columns(self, columns):
        """Replace the columns with `columns`: a list of {'name', 'type', 'shape' (optional)}
        or a dict {name: {'type', 'shape' (optional)}}."""
        if isinstance(columns, dict):
            columns = [dict(spec, name=name) if isinstance(spec, dict) else spec
                       for name, spec in columns.items()]
        if not isinstance(columns, (list, tuple)) or \
                not all(isinstance(c, dict) for c in columns):
            raise RuntimeError(f"columns must be dict or list, columns contain name, type, "
                               f"shape(optional); got {columns!r}.")
        parsed = []
        for col in columns:
            if "name" not in col:
                raise RuntimeError(f"Column's name is missing in {col!r}.")
            if "type" not in col:
                raise RuntimeError(f"Column's type is missing in {col!r}.")
            if not isinstance(col["name"], str):
                raise RuntimeError(f"Column's name must be a str, got {col['name']!r}.")
            try:
                type_name = _type_name(col["type"])
            except TypeError as e:
                raise RuntimeError(str(e)) from None
            shape = col.get("shape", [])
            _check_shape(shape)
            # MindSpore recomputes "rank" from the shape; a column without one is a scalar
            parsed.append({"name": col["name"], "type": type_name, "shape": list(shape)})
        self.columns = parsed

    def from_json(self, json_obj):
        """Load a parsed schema JSON object: "columns" (required), "numRows", "datasetType"."""
        self._load(json_obj, need_rank=False)

    def _load(self, obj, need_rank):
        if not isinstance(obj, dict):
            raise RuntimeError(f"A schema JSON must be an object, got {obj!r}.")
        for key in obj:
            if key not in _TOP_KEYS:
                raise RuntimeError(f"Unknown field {key} in the schema JSON; it may hold "
                                   f"{list(_TOP_KEYS)}.")
        if "columns" not in obj:
            raise RuntimeError('"columns" node is required in the schema json JSON.')
        if need_rank:
            specs = obj["columns"].items() if isinstance(obj["columns"], dict) else \
                [(c.get("name"), c) for c in obj["columns"] if isinstance(c, dict)]
            for name, spec in specs:
                if not isinstance(spec, dict) or not isinstance(spec.get("rank"), int) or \
                        spec["rank"] < 0:
                    raise RuntimeError(f'Invalid data, "rank" field of column {name} must have '
                                       f'value >= 0 in JSON schema file.')
        self.parse_columns(obj["columns"])
        num_rows = obj.get("numRows", 0)
        if not isinstance(num_rows, int) or isinstance(num_rows, bool) or num_rows < 0:
            raise RuntimeError(f'"numRows" must be an int >= 0, got {num_rows!r}.')
        self.num_rows, self.dataset_type = num_rows, obj.get("datasetType")

    def to_json(self):
        """The schema as MindSpore's JSON text."""
        cols = []
        for col in self.columns:
            entry = {"name": col["name"], "type": col["type"],
                     "rank": 1 if col["shape"] is None else len(col["shape"])}
            if col["shape"] is not None:
                entry["shape"] = col["shape"]
            cols.append(entry)
        obj = {"columns": cols}
        if self.dataset_type is not None:
            obj["datasetType"] = self.dataset_type
        if self.num_rows:
            obj["numRows"] = self.num_rows
        return json.dumps(obj, indent=2, sort_keys=True)

    def __str__(self):
        return self.to_json()

    @staticmethod
    def get_num_rows(schema):
        """The numRows of `schema` (a Schema or a schema file path); 0 when it sets none."""
        return (schema if isinstance(schema, Schema) else Schema(schema)).num_rows
