"""``ms.export`` / ``ms.load`` where MindSpore keeps them (mindspore.train): the MINDIR file is
written and read by the graph layer (minispore/graph/mindir.py), which nn.GraphCell runs."""
from minispore.graph.mindir import export, load

__all__ = ["export", "load"]
