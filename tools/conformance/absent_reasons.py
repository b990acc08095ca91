"""Public MindSpore names minispore leaves out on purpose because MindSpore 2.7.2 runs them only
on Ascend: its CPU wheel raises ("The kernel ... unregistered", "Unsupported op ... on CPU")
and its documentation lists Ascend alone under "Supported Platforms" (both checked with the
oracle venv). CONFORMANCE.md lists them apart from the absent names that are gaps, and marks
them where a recorded case finds them missing."""

_ASCEND_KERNEL = "Ascend only in MindSpore 2.7.2 (its CPU build: kernel {} unregistered)"

ABSENT_REASONS = {
    "nn/AvgPool1dExt": _ASCEND_KERNEL.format("AvgPool1D"),
    "nn/AvgPool2dExt": _ASCEND_KERNEL.format("AvgPool2D"),
    "nn/AvgPool3dExt": _ASCEND_KERNEL.format("AvgPool3DExt"),
    "nn/MaxPool2dExt": _ASCEND_KERNEL.format("MaxPool2D"),
    "nn/LogSoftmaxExt": _ASCEND_KERNEL.format("LogSoftmaxExt"),
    "nn/EmbeddingExt": _ASCEND_KERNEL.format("Embedding"),
    "nn/LayerNormExt": "Ascend only in MindSpore 2.7.2 (its CPU build builds the cell but fails "
                       "at run time: Create kernelmod for op LayerNormExt failed)",
    "nn_loss/L1LossExt": _ASCEND_KERNEL.format("L1LossExt"),
    "nn_optim/LARS": "Ascend only in MindSpore 2.7.2 (its CPU build: Unsupported op "
                     "[LARSUpdate] on CPU)",
    "nn_optim/OptTFTWrapper": "Ascend only in MindSpore 2.7.2 (MindIO's training fault "
                              "tolerance; it refuses to build without MS_ENABLE_TFT)",
}
