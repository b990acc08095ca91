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
            names = entry if isinstance(entry, tuple) else (entry,)
            idx = []
            for name in names:
                if name == "None":
                    idx.append(-1)
                    continue
                if name not in self.alias_name:
                    raise ValueError(f"For 'Layout', the name {name!r} is not one of the alias "
                                     f"names {self.alias_name}.")
                if name in used:
                    raise ValueError(f"For 'Layout', the name {name!r} is used twice in "
                                     f"{tensor_map}.")
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
        """The TensorLayout of the tensor this layout was called for. A dim cut over several
        axes needs them adjacent and ordered (major first): they merge into one axis."""
        d = self.to_dict()
        if device_num is not None and _prod(self.device_matrix) != device_num:
            raise ValueError(f"For 'Layout', the product of device_matrix {self.device_matrix} "
                             f"must equal the stage device number {device_num}.")
        last = len(self.device_matrix) - 1
        head = {}
        for entry in d["tensor_map"]:
            left = [last - e for e in (entry if isinstance(entry, tuple) else (entry,))
                    if e != -1]
            if left and left != list(range(left[0], left[0] + len(left))):
                raise ValueError(f"For 'Layout', a dim cut over axes {entry} needs them "
                                 f"adjacent and major first to be one TensorLayout axis.")
            head.update({a: left[0] for a in left})
        dev, new_of = [], {}
        for a, size in enumerate(self.device_matrix):
            if head.get(a, a) == a:
                new_of[a] = len(dev)
                dev.append(size)
            else:
                new_of[a] = new_of[head[a]]
                dev[new_of[a]] *= size
        tmap = []
        for entry in d["tensor_map"]:
            first = (entry if isinstance(entry, tuple) else (entry,))[0]
            tmap.append(-1 if first == -1 else len(dev) - 1 - new_of[last - first])
        return TensorLayout(tuple(dev), tuple(tmap))

    def __repr__(self):
        return (f"Layout(device_matrix={self.device_matrix}, alias_name={self.alias_name}, "
                f"tensor_map={self.tensor_map})")


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p
