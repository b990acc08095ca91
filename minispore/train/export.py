"""``ms.export``: writing a network as a deployable model file (MindSpore's MINDIR, AIR, ONNX)
is not built in minispore; the call says so and what keeps a trained network instead."""

__all__ = ["export"]

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
