"""Hand-written conformance cases: dataset transforms."""

_T = "import mindspore.dataset.transforms as transforms\n"
_REL = _T + "from mindspore.dataset.transforms import Relational\n"

CASES = {
    "transforms": [
        ("Mask", _REL + "a = np.array([1, 2, 3, 2, 5], np.int32)\n"
                        "out = (transforms.Mask(Relational.EQ, 2)(a), "
                        "transforms.Mask(Relational.GT, 2, ms.int32)(a))"),
        ("Relational", _REL + "out = sorted(r.name for r in Relational)"),
        ("Unique", _T + "out = transforms.Unique()(np.array([[5, 1], [5, 3]], np.int32))"),
        ("RandomApply", _T + "out = transforms.RandomApply([transforms.TypeCast(ms.int32)], "
                             "prob=1.0)(np.ones(2, np.float32))"),
        ("RandomChoice", _T + "out = transforms.RandomChoice([transforms.TypeCast(ms.int32)])"
                              "(np.ones(2, np.float32))"),
        ("RandomOrder", _T + "out = transforms.RandomOrder([transforms.TypeCast(ms.int32), "
                             "transforms.Fill(3)])(np.ones(2, np.float32))"),
    ],
}
