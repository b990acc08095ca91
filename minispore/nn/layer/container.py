"""Cell containers: SequentialCell (a chain) and CellList (an indexable list of cells)."""
from collections import OrderedDict

from minispore.nn.cell import Cell

__all__ = ["SequentialCell", "CellList"]


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
