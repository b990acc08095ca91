"""MindSpore's user-facing `Layout(device_matrix, alias_name)` (§2.8), convertible to TensorLayout."""
from minispore.common.layout import TensorLayout

_INTERLEAVED = "interleaved_parallel"


class Layout:
    """A device matrix with a name per axis; calling it with one name per tensor dim builds that
    tensor's map: a name maps to its axis counted from the right, a tuple of names cuts one dim
    over several axes, "None" leaves the dim whole.

    >>> layout = Layout((2, 4), ("dp", "mp"))
    >>> layout("dp", "None").to_dict()["tensor_map"]
    (1, -1)
    """

    def __init__(self, device_matrix, alias_name):
        if not isinstance(device_matrix, tuple):
            raise TypeError(f"For 'Layout', 'device_matrix' must be a tuple, but got "
                            f"{type(device_matrix).__name__}.")
        if not isinstance(alias_name, tuple):
            raise TypeError(f"For 'Layout', 'alias_name' must be a tuple, but got "
                            f"{type(alias_name).__name__}.")
        if len(device_matrix) != len(alias_name):
            raise ValueError(f"For 'Layout', 'device_matrix' {device_matrix} and 'alias_name' "
                             f"{alias_name} must have the same length.")
        for v in device_matrix:
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"For 'Layout', each element of 'device_matrix' must be an int, "
                                f"but got {v!r}.")
        for name in alias_name:
            if not isinstance(name, str):
                raise TypeError(f"For 'Layout', each element of 'alias_name' must be a str, but "
                                f"got {name!r}.")
            if not name or name == "None":
                raise ValueError(f"For 'Layout', an alias name must be non-empty and not "
                                 f"'None', but got {name!r} in {alias_name}.")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"For 'Layout', the alias names {alias_name} must be distinct.")
        if _INTERLEAVED in alias_name[:-1]:
            raise ValueError(f"For 'Layout', '{_INTERLEAVED}' may only be the last alias name, "
                             f"but got {alias_name}.")
        self.device_matrix = device_matrix
        self.alias_name = alias_name
        self.tensor_map = None

    def __call__(self, *tensor_map):
        used, out = set(), []
        for entry in tensor_map:
            if isinstance(entry, tuple):
                if not entry:
                    raise ValueError(f"For 'Layout', a tuple in the tensor map must name at "
                                     f"least one alias, but got () in {tensor_map}.")
                if "None" in entry:
                    raise ValueError(f"For 'Layout', 'None' cannot be inside a tuple of alias "
                                     f"names (a dim is either cut over the named axes or "
                                     f"whole), but got {entry} in {tensor_map}.")
            names = entry if isinstance(entry, tuple) else (entry,)
            idx = []
            for name in names:
                if not isinstance(name, str):
                    raise TypeError(f"For 'Layout', each tensor map element must be an alias "
                                    f"name (str), 'None' or a tuple of alias names, but got "
                                    f"{name!r} in {tensor_map}.")
                if name == "None":
                    idx.append(-1)
                    continue
                if name not in self.alias_name:
                    raise ValueError(f"For 'Layout', the name {name!r} is not one of the alias "
                                     f"names {self.alias_name}.")
                if name in used:
                    raise ValueError(f"For 'Layout', the name {name!r} is used twice in "
                                     f"{tensor_map}: each device-matrix axis may cut one "
                                     f"tensor dim only.")
                used.add(name)
                idx.append(len(self.alias_name) - 1 - self.alias_name.index(name))
            out.append(tuple(idx) if isinstance(entry, tuple) else idx[0])
        new = Layout(self.device_matrix, self.alias_name)
        new.tensor_map = tuple(out)
        return new

    def to_dict(self):
        if self.tensor_map is None:
            raise ValueError("For 'Layout', the tensor map is not set: call the layout with one "
                             "alias name per tensor dim first.")
        return {"device_matrix": self.device_matrix, "tensor_map": self.tensor_map,
                "interleaved_parallel": _INTERLEAVED in self.alias_name}

    def to_tensor_layout(self, device_num=None):
        """The TensorLayout of the tensor this layout was called for: the same device matrix
        and tensor map, a tuple entry cutting its dim over those axes (the first outermost).

        Raises:
            ValueError: the tensor map is not set, or the device matrix does not hold
                `device_num` devices (the stage's).
            NotImplementedError: the 'interleaved_parallel' alias (several copies of the
                operator on one device) is not built in minispore.
        """
        d = self.to_dict()
        if d["interleaved_parallel"]:
            raise NotImplementedError(f"For 'Layout', the alias '{_INTERLEAVED}' (in "
                                      f"{self.alias_name}) is not supported by minispore.")
        if device_num is not None and _prod(self.device_matrix) != device_num:
            raise ValueError(f"For 'Layout', the product of device_matrix {self.device_matrix} "
                             f"must equal the stage device number {device_num}.")
        return TensorLayout(self.device_matrix, d["tensor_map"])

    def axis_names(self, tensor_layout):
        """A readable tensor map of `tensor_layout` (on this device matrix) in alias names."""
        names = []
        for dim in range(len(tensor_layout.tensor_map)):
            axes = tuple(self.alias_name[a] for a in tensor_layout.dim_axes(dim))
            names.append("None" if not axes else axes[0] if len(axes) == 1 else axes)
        return tuple(names)

    def __repr__(self):
        return (f"Layout(device_matrix={self.device_matrix}, alias_name={self.alias_name}, "
                f"tensor_map={self.tensor_map})")


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p
