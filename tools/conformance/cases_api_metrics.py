"""Hand-written conformance cases for MindSpore's remaining metrics (BleuScore,
CosineSimilarity, the segmentation surface distances, OcclusionSensitivity) and the metric
functions auc and get_metrics; results are numpy values, so their dtypes (float64, int32,
float32) are compared too."""

_DENSE = ("class Net(nn.Cell):\n"
          "    def __init__(self):\n"
          "        super().__init__()\n"
          "        w = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)\n"
          "        self.dense = nn.Dense(4, 2, weight_init=Tensor(w), "
          "bias_init=Tensor(np.array([0.3, 0.6], np.float32)))\n"
          "    def construct(self, t):\n"
          "        return self.dense(t)\n")
_MASKS = ("a = Tensor(np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]]))\n"
          "b = Tensor(np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]]))\n")

CASES = {
    "nn_metric": [
        ("BleuScore", "m = nn.BleuScore(3, smooth=True)\nm.clear()\n"
                      "m.update([['i', 'have', 'a', 'pen', 'on', 'my', 'desk']], "
                      "[[['i', 'have', 'a', 'pen', 'in', 'my', 'desk'], "
                      "['there', 'is', 'a', 'pen', 'on', 'the', 'desk']]])\nout = m.eval()"),
        ("CosineSimilarity", "m = nn.CosineSimilarity(reduction='mean')\nm.clear()\n"
                             "m.update(np.array([[1, 3, 4, 7], [2, 4, 2, 5], [3, 1, 5, 8]]))\n"
                             "out = m.eval()"),
        ("HausdorffDistance", _MASKS + "m = nn.HausdorffDistance()\nm.clear()\n"
                              "m.update(a, b, 0)\nc = nn.HausdorffDistance('chessboard')\n"
                              "c.update(a, b, 1)\nout = (m.eval(), c.eval())"),
        ("MeanSurfaceDistance", _MASKS + "m = nn.MeanSurfaceDistance(symmetric=True)\n"
                                "m.clear()\nm.update(a, b, 0)\nout = m.eval()"),
        ("RootMeanSquareDistance", _MASKS + "m = nn.RootMeanSquareDistance()\nm.clear()\n"
                                   "m.update(a, b, 0)\nout = m.eval()"),
        ("OcclusionSensitivity", _DENSE + "m = nn.OcclusionSensitivity(margin=1)\nm.clear()\n"
                                 "m.update(Net(), np.array([[0.1, 0.2, 0.3, 0.4]], np.float32), "
                                 "np.array(1, np.int32))\nout = m.eval()"),
    ],
    "nn": [
        ("auc", "m = nn.ROC(pos_label=2)\nm.clear()\n"
                "m.update(np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]]), "
                "np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]]))\nfpr, tpr, _ = m.eval()\n"
                "out = nn.auc(fpr, tpr)"),
        ("get_metrics", "out = sorted((k, type(v).__name__) for k, v in "
                        "nn.get_metrics({'acc', 'mae', 'bleu_score', 'top_1_accuracy'}).items())"),
    ],
}
