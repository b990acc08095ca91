"""More MindSpore Primitive classes that apply a functional composition (see composite_prims.py):
windows, MirrorPad, the ND space/batch shuffles, CheckValid, InTopK, MultiMarginLoss,
Conv3D, Conv3DTranspose, the resampling family (AffineGrid, GridSampler2D/3D, CropAndResize)
and Col2Im."""
from minispore.common import dtype as mstype
from minispore.ops.function import accumulate_compose_func as AC
from minispore.ops.function import margin_compose_func as MG
from minispore.ops.function import sample_compose_func as SA
from minispore.ops.function import space_compose_func as SP
from minispore.ops.function import spectral_compose_func as SC
from minispore.ops.function.composite_prims import _composite
from minispore.ops.function.conv_compose_func import (_ints, conv3d_padded,
                                                     conv3d_transpose_padded)

__all__ = ["BartlettWindow", "BlackmanWindow", "MirrorPad", "BatchToSpaceND",
           "SpaceToBatchND", "CheckValid", "InTopK", "MultiMarginLoss", "Conv3D", "Conv3DTranspose",
           "AffineGrid",
           "GridSampler2D", "GridSampler3D", "CropAndResize", "Col2Im"]


def _window(fn):
    def apply(window_length, periodic, dtype):
        return fn(window_length, periodic, dtype=dtype)
    return apply


def _multi_margin(x, target, weight=None, *, p, margin, reduction):
    return MG.multi_margin_loss_impl(x, target, p, margin, weight, reduction)


def _grid_sampler(rank):
    def apply(input_x, grid, interpolation_mode, padding_mode, align_corners):
        if input_x.ndim != rank:
            raise ValueError(f"For 'GridSampler{rank - 2}D', 'input_x' must be {rank}-D, but got "
                             f"shape {tuple(input_x.shape)}.")
        return SA.grid_sample(input_x, grid, interpolation_mode, padding_mode, align_corners)
    return apply


def _conv3d(x, w, out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group,
            data_format):
    """Conv3D's attributes checked against the weight, then conv3d with (head, tail, top,
    bottom, left, right) pads."""
    name = "Conv3D"
    if mode != 1 or data_format != "NCDHW":
        raise NotImplementedError(f"For '{name}', only mode 1 and data_format 'NCDHW' are "
                                  f"supported, but got mode {mode} and {data_format!r}.")
    kernel = _ints(name, "kernel_size", kernel_size, 3, 1)
    if tuple(w.shape[2:]) != kernel or w.shape[0] != out_channel:
        raise ValueError(f"For '{name}', the weight's shape {tuple(w.shape)} must be (out_channel"
                         f"={out_channel}, C / group) + kernel_size {kernel}.")
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"For '{name}', 'pad_mode' must be 'valid', 'same' or 'pad', but got "
                         f"{pad_mode!r}.")
    pads = _ints(name, "pad", pad, 6, 0)
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{name}', 'pad' must be 0 when 'pad_mode' is {pad_mode!r}, but "
                         f"got {pad!r}.")
    return conv3d_padded(x, w, None, _ints(name, "stride", stride, 3, 1), pad_mode, pads,
                         _ints(name, "dilation", dilation, 3, 1), group)


def check_conv3d_transpose(name, in_channel, out_channel, kernel_size, pad_mode, pad, stride,
                           dilation, group, output_padding):
    """Conv3DTranspose's attributes as (kernel, pads, strides, dilations, output_padding),
    with MindSpore's rules: output_padding only with pad_mode 'pad', depth dilation 1."""
    kernel = _ints(name, "kernel_size", kernel_size, 3, 1)
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"For '{name}', 'pad_mode' must be 'valid', 'same' or 'pad', but got "
                         f"{pad_mode!r}.")
    pads = _ints(name, "pad", pad, 6, 0)
    out_pad = _ints(name, "output_padding", output_padding, 3, 0)
    if pad_mode != "pad" and (any(pads) or any(out_pad)):
        raise ValueError(f"For '{name}', 'pad' and 'output_padding' must be zero when 'pad_mode'"
                         f" is not \"pad\", but got pad {pad!r}, output_padding "
                         f"{output_padding!r} and 'pad_mode' {pad_mode}.")
    dilations = _ints(name, "dilation", dilation, 3, 1)
    if dilations[0] != 1:
        raise ValueError(f"For '{name}', the depth of parameter 'dilation' must be 1, but got "
                         f"{dilations[0]}.")
    if in_channel % group or out_channel % group:
        raise ValueError(f"For '{name}', in_channel ({in_channel}) and out_channel "
                         f"({out_channel}) must be divisible by group ({group}).")
    return kernel, pads, _ints(name, "stride", stride, 3, 1), dilations, out_pad


def _conv3d_transpose(x, w, in_channel, out_channel, kernel_size, mode, pad_mode, pad, stride,
                      dilation, group, output_padding, data_format):
    name = "Conv3DTranspose"
    if mode != 1 or data_format != "NCDHW":
        raise NotImplementedError(f"For '{name}', only mode 1 and data_format 'NCDHW' are "
                                  f"supported, but got mode {mode} and {data_format!r}.")
    kernel, pads, strides, dilations, out_pad = check_conv3d_transpose(
        name, in_channel, out_channel, kernel_size, pad_mode, pad, stride, dilation, group,
        output_padding)
    if tuple(w.shape) != (in_channel, out_channel // group) + kernel or x.shape[1] != in_channel:
        raise ValueError(f"For '{name}', x must have in_channel={in_channel} channels and the "
                         f"weight shape (in_channel, out_channel / group) + kernel_size = "
                         f"{(in_channel, out_channel // group) + kernel}, but got shapes "
                         f"{tuple(x.shape)} and {tuple(w.shape)}.")
    return conv3d_transpose_padded(x, w, strides, pad_mode, pads, dilations, group, out_pad)


BartlettWindow = _composite("BartlettWindow", _window(SC.bartlett_window),
                            (("periodic", True), ("dtype", mstype.float32)))
BlackmanWindow = _composite("BlackmanWindow", _window(SC.blackman_window),
                            (("periodic", True), ("dtype", mstype.float32)))
MirrorPad = _composite("MirrorPad", SP.mirror_pad, (("mode", "REFLECT"),))
BatchToSpaceND = _composite("BatchToSpaceND", SP.batch_to_space_nd,
                            (("block_shape", None), ("crops", None)))
SpaceToBatchND = _composite(
    "SpaceToBatchND", lambda x, block_shape, paddings: SP.space_to_batch_nd(x, block_shape,
                                                                            paddings),
    (("block_shape", None), ("paddings", None)))
CheckValid = _composite("CheckValid", MG.check_valid)
InTopK = _composite("InTopK", lambda x1, x2, k: MG.intopk(x1, x2, k), (("k", None),))
MultiMarginLoss = _composite("MultiMarginLoss", _multi_margin,
                             (("p", 1), ("margin", 1.0), ("reduction", "mean")))
Conv3D = _composite("Conv3D", _conv3d,
                    (("out_channel", None), ("kernel_size", None), ("mode", 1),
                     ("pad_mode", "valid"), ("pad", 0), ("stride", 1), ("dilation", 1),
                     ("group", 1), ("data_format", "NCDHW")))
Conv3DTranspose = _composite(
    "Conv3DTranspose", _conv3d_transpose,
    (("in_channel", None), ("out_channel", None), ("kernel_size", None), ("mode", 1),
     ("pad_mode", "valid"), ("pad", 0), ("stride", 1), ("dilation", 1), ("group", 1),
     ("output_padding", 0), ("data_format", "NCDHW")))
AffineGrid = _composite("AffineGrid", SA.affine_grid, (("align_corners", False),))
_SAMPLER = (("interpolation_mode", "bilinear"), ("padding_mode", "zeros"),
            ("align_corners", False))
GridSampler2D = _composite("GridSampler2D", _grid_sampler(4), _SAMPLER)
GridSampler3D = _composite("GridSampler3D", _grid_sampler(5), _SAMPLER)
CropAndResize = _composite("CropAndResize", SA.crop_and_resize,
                           (("method", "bilinear"), ("extrapolation_value", 0.0)))
Col2Im = _composite(
    "Col2Im", lambda x, output_size, kernel_size, dilation, padding, stride: AC.col2im(
        x, output_size, kernel_size, dilation, padding, stride),
    (("kernel_size", None), ("dilation", 1), ("padding", 0), ("stride", 1)))
