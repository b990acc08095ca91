"""Hand-written conformance cases: nn cells, schedules and wrappers."""

CASES = {
    "nn": [
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
