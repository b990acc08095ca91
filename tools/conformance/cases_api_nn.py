"""Hand-written conformance cases: nn cells, schedules and wrappers."""

CASES = {
    "nn": [
        ("BatchNorm3d", "bn = nn.BatchNorm3d(2)\nbn.set_train(True)\n"
                        "out = (bn(Tensor(np.linspace(-1, 1, 48).reshape(1, 2, 2, 3, 4)"
                        ".astype(np.float32))), bn.bn2d.moving_mean, "
                        "sorted(p.name for p in bn.get_parameters()))"),
        ("TransformerDecoderLayer", "layer = _fix(nn.TransformerDecoderLayer(4, 2, 8, 0.0))\n"
                                    "out = layer(x3[:1], x3)"),
        ("TransformerDecoder", "layer = nn.TransformerDecoderLayer(4, 2, 8, 0.0)\n"
                               "out = _fix(nn.TransformerDecoder(layer, 2))(x3[:1], x3)"),
        ("Transformer", "out = _fix(nn.Transformer(4, 2, 1, 1, 8, 0.0))(x3, x3[:1])"),
        ("ForwardValueAndGrad", "net = _fix(nn.Dense(3, 2))\n"
                                "w = ms.ParameterTuple(net.trainable_params())\n"
                                "out = nn.ForwardValueAndGrad(nn.WithLossCell(net, nn.MSELoss()),"
                                " w, get_by_list=True)(x, Tensor(np.ones((2, 2), np.float32)))"),
        ("WithGradCell", "net = _fix(nn.Dense(3, 2))\n"
                         "out = nn.WithGradCell(net, nn.MSELoss())"
                         "(x, Tensor(np.ones((2, 2), np.float32)))"),
        ("Unflatten", "out = nn.Unflatten(1, (3, 1))(x)"),
        ("OneHot", "out = nn.OneHot(axis=0, depth=3, on_value=2.0, off_value=-1.0)"
                   "(Tensor([0, 2], ms.int32))"),
        ("Pad", "out = [nn.Pad(((1, 1), (1, 1)), mode=m)(x) "
                "for m in ('CONSTANT', 'REFLECT', 'SYMMETRIC')]"),
        ("MatMul", "out = nn.MatMul(transpose_x2=True)(x, y)"),
        ("PixelShuffle", "out = nn.PixelShuffle(2)(Tensor(np.arange(8, dtype=np.float32)"
                         ".reshape(1, 4, 1, 2)))"),
        ("CentralCrop", "out = nn.CentralCrop(0.6)(Tensor(np.arange(50, dtype=np.float32)"
                        ".reshape(2, 5, 5)))"),
        ("ClipByNorm", "out = nn.ClipByNorm()(x, Tensor(0.5))"),
        ("IGamma", "out = nn.IGamma()(x, y)"),
        ("LBeta", "out = nn.LBeta()(x, y)"),
        ("TimeDistributed", "out = nn.TimeDistributed(_fix(nn.Dense(4, 2)), time_axis=1)(x3)"),
        ("Range", "out = (nn.Range(1, 8, 2)(), nn.Range(1.0, 3, 0.5)())"),
        ("CellDict", "d = nn.CellDict({'conv': nn.Conv2d(1, 2, 3), 'relu': nn.ReLU()})\n"
                     "d['pool'] = nn.MaxPool2d(2)\nd.pop('relu')\n"
                     "out = (list(d.keys()), [p.name for p in d.get_parameters()])"),
        ("NaturalExpDecayLR", "s = nn.NaturalExpDecayLR(0.1, 0.9, 4, True)\n"
                              "out = [s(Tensor(i, ms.int32)) for i in (1, 4, 9)]"),
        ("InverseDecayLR", "s = nn.InverseDecayLR(0.1, 0.9, 4)\n"
                           "out = [s(Tensor(i, ms.int32)) for i in (1, 4, 9)]"),
        ("PolynomialDecayLR", "s = nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, True)\n"
                              "out = [s(Tensor(i, ms.int32)) for i in (0, 3, 5)]"),
    ],
}
