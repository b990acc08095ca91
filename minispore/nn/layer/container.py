"""Cell containers: SequentialCell (a chain), CellList (an indexable list of cells) and
CellDict (cells by name)."""
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from minispore.nn.cell import Cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


def _check_cell(cell, where):
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{where}', every element must be a Cell, but got "
                        f"{type(cell).__name__}.")


class _IndexedCells(Cell):
    """Children named '0', '1', … whose parameters are named '0.weight' …"""

    def _add(self, name, cell):
        _check_cell(cell, type(self).__name__)
        self.insert_child_to_cell(name, cell)
        if self._auto_prefix:
            cell.update_parameters_name(name + ".")

    def _renumber(self, cells):
        self._cells.clear()
        for i, cell in enumerate(cells):
            self._add(str(i), cell)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def __getitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return type(self)(cells[index])
        if not isinstance(index, int) or not -len(cells) <= index < len(cells):
            raise IndexError(f"For '{type(self).__name__}', index {index!r} is out of range "
                             f"for {len(cells)} cells.")
        return cells[index]

    def __setitem__(self, index, cell):
        cells = list(self._cells.values())
        cells[index] = cell
        self._renumber(cells)

    def __delitem__(self, index):
        cells = list(self._cells.values())
        del cells[index]
        self._renumber(cells)

    def append(self, cell):
        self._add(str(len(self._cells)), cell)
        return self

    def extend(self, cells):
        for cell in cells:
            self.append(cell)
        return self

    def insert(self, index, cell):
        cells = list(self._cells.values())
        cells.insert(index, cell)
        self._renumber(cells)


class SequentialCell(_IndexedCells):
    """Runs its cells in order: ``SequentialCell([nn.Dense(4, 8), nn.ReLU()])``, or from an
    OrderedDict of names to cells (then the parameters are named by those keys)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (OrderedDict, dict)):
            for name, cell in args[0].items():
                self._add(name, cell)
            return
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = args[0]
        for i, cell in enumerate(args):
            self._add(str(i), cell)

    def construct(self, x):
        for cell in self._cells.values():
            x = cell(x)
        return x


class CellList(_IndexedCells):
    """A list of cells registered as children (no construct of its own)."""

    def __init__(self, *args):
        super().__init__()
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        for cell in cells:
            self.append(cell)


class CellDict(Cell):
    """Cells by name, registered as children in insertion order (no construct of its own):
    ``CellDict({'conv': nn.Conv2d(1, 2, 3)})['conv']``. A key is a non-empty string without
    '.', and names the child's parameters ('conv.weight'), as in MindSpore."""

    def __init__(self, args=None):
        super().__init__()
        if args is not None:
            self.update(args)

    def _check_key(self, key):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the type of key should be string but got "
                            f"{type(key).__name__}.")
        if not key:
            raise KeyError(f"For 'CellDict', key can not be empty string \"\", but got key {key}")
        if "." in key:
            raise KeyError(f"For 'CellDict', key can not contain \".\", but got key {key}")

    def __setitem__(self, key, cell):
        self._check_key(key)
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'CellDict', the type of cell should be Cell, but got "
                            f"{type(cell).__name__}.")
        self.insert_child_to_cell(key, cell)
        if self._auto_prefix:
            cell.update_parameters_name(key + ".")

    def __getitem__(self, key):
        return self._cells[key]

    def __delitem__(self, key):
        del self._cells[key]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def clear(self):
        self._cells.clear()

    def pop(self, key):
        cell = self[key]
        del self[key]
        return cell

    def update(self, cells):
        """Add the (key, cell) pairs of a mapping or of an iterable of pairs, in order."""
        if isinstance(cells, (Mapping, CellDict)):
            pairs = list(cells.items())
        else:
            pairs = []
            for i, pair in enumerate(cells):
                if not isinstance(pair, Iterable) or isinstance(pair, (str, Cell)):
                    raise TypeError(f"CellDict update sequence element #{i} should be "
                                    f"Iterable; but got {type(pair).__name__}")
                pair = tuple(pair)
                if len(pair) != 2:
                    raise ValueError(f"CellDict update sequence element #{i} has length "
                                     f"{len(pair)}; 2 is required")
                pairs.append(pair)
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError("CellDict holds cells by name and has no construct: call "
                                  "one of its cells, e.g. cell_dict['name'](x).")
