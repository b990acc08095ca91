"""``ms.export`` / ``ms.load``: writing a network as a deployable model file (MindSpore's
MINDIR, AIR, ONNX) and reading a MINDIR back are not built in minispore; each call says so and
what keeps a trained network instead."""

__all__ = ["export", "load"]

_FORMATS = ("MINDIR", "AIR", "ONNX")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """Raises NotImplementedError naming the format (ValueError for an unknown one)."""
    if file_format not in _FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {list(_FORMATS)}, but "
                         f"got {file_format!r}.")
    raise NotImplementedError(
        f"For 'export', writing {type(net).__name__} as a {file_format} file ({file_name!r}) is "
        f"not implemented in minispore. Save the trained parameters with "
        f"ms.save_checkpoint(net, 'net.ckpt') and rebuild the network with "
        f"ms.load_checkpoint / ms.load_param_into_net.")


def load(file_name, **kwargs):
    """Raises NotImplementedError: minispore writes no MINDIR files, so it reads none."""
    raise NotImplementedError(
        f"For 'load', reading the MINDIR file {file_name!r} as a GraphCell is not implemented "
        f"in minispore (it writes no MINDIR). Rebuild the network in Python and load its "
        f"parameters with ms.load_checkpoint / ms.load_param_into_net.")
