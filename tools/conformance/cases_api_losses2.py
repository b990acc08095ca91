"""Hand-written conformance cases: CTC loss (functional and cell) and SampledSoftmaxLoss with
explicit sampled_values (so the value is deterministic).

Names MindSpore 2.7.2's CPU build refuses ('kernel unregistered' / 'Unsupported op') have no
case here: soft_margin_loss, multilabel_margin_loss, triplet_margin_loss and the
SoftMarginLoss, MultilabelMarginLoss and TripletMarginLoss cells."""

# log-probabilities (T=4, N=2, C=3), padded targets and the two length vectors
_CTC = ("lp = Tensor(np.log(np.array([[[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], [[0.3, 0.3, 0.4], "
        "[0.1, 0.7, 0.2]], [[0.5, 0.25, 0.25], [0.4, 0.4, 0.2]], [[0.1, 0.6, 0.3], "
        "[0.3, 0.3, 0.4]]], np.float32)))\n"
        "tg = Tensor(np.array([[1, 1], [2, 0]], np.int32))\n"
        "il = Tensor(np.array([4, 3], np.int32))\n"
        "tl = Tensor(np.array([2, 1], np.int32))\n")
_SAMPLED = ("w = Tensor(np.arange(21, dtype=np.float32).reshape(7, 3) / 10 - 1)\n"
            "b = Tensor(np.linspace(-0.3, 0.3, 7).astype(np.float32))\n"
            "sv = (Tensor(np.array([1, 4, 5], np.int32)), "
            "Tensor(np.array([[0.4], [0.3], [0.2]], np.float32)), "
            "Tensor(np.array([0.4, 0.5, 0.6], np.float32)))\n")

CASES = {
    "ops": [
        ("ctc_loss", _CTC + "out = [ops.ctc_loss(lp, tg, il, tl, reduction=r) "
                            "for r in ('none', 'sum', 'mean')]"),
    ],
    "nn_loss": [
        ("CTCLoss", _CTC + "out = [nn.CTCLoss()(lp, tg, il, tl), "
                           "nn.CTCLoss(reduction='none')(lp[:, 1], tg[1, :1], il[1:], tl[1:]), "
                           "nn.CTCLoss(reduction='sum', zero_infinity=True)(lp, tg, il, tl)]"),
        ("SampledSoftmaxLoss", _SAMPLED + "out = nn.SampledSoftmaxLoss(3, 7, sampled_values=sv)("
                                          "w, b, Tensor(np.array([[0], [5], [2]], np.int32)), "
                                          "Tensor(np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.6], "
                                          "[-0.4, 0.2, 0.9]], np.float32)))"),
    ],
}
