"""Hand-written conformance cases for public names minispore has long defined but no mechanical
template could call under MindSpore (they need a second operand, a shape, an axis list …):
layout and indexing functions, pooling and normalisation functionals, their primitives, Tensor
methods and nn cells.

Left without a case because MindSpore 2.7.2's CPU build refuses them ('Unsupported op ... on CPU',
'kernel ... unregistered', 'support Ascend only'): ops.einsum, take, fills, fmin, roll, quantile,
nanquantile, gamma, poisson; Tensor.addcdiv, kthvalue, bitwise_not, roll, repeat, clone, new_full,
new_empty, addmm_, fmin, clamp_; the SGD primitive (an internal error on CPU); nn.TrainOneStepWithLossScaleCell
(NPUGetFloatStatusV2 has no CPU kernel). Adam and
AdamWeightDecay compare the updated Parameters: MindSpore's CPU kernels return a 3-tuple whose
values are not the updated state."""

CASES = {
    "ops": [
        ("avg_pool3d", "out = ops.avg_pool3d(Tensor(np.linspace(-1, 1, 64).reshape(1, 1, 4, 4, 4)"
                       ".astype(np.float32)), 2, 2)"),
        ("batch_norm", "out = ops.batch_norm(img, Tensor([0.1, -0.2]), Tensor([1.0, 2.0]), "
                       "Tensor([1.5, 0.5]), Tensor([0.1, 0.2]))"),
        ("bias_add", "out = ops.bias_add(x, Tensor([0.1, 0.2, 0.3]))"),
        ("bmm", "out = ops.bmm(x3, x3.transpose(0, 2, 1))"),
        ("broadcast_to", "out = ops.broadcast_to(v, (3, 4))"),
        ("cholesky_solve", "out = ops.cholesky_solve(x.T, ops.cholesky(sq))"),
        ("conv2d", "out = ops.conv2d(img, Tensor(np.linspace(-1, 1, 36).reshape(2, 2, 3, 3)"
                   ".astype(np.float32)), pad_mode='pad', padding=1)"),
        ("cosine_embedding_loss", "out = ops.cosine_embedding_loss(x, y, Tensor([1, -1], "
                                  "ms.int32), 0.1)"),
        ("fill", "out = ops.fill(ms.float32, (2, 3), 1.5)"),
        ("flip", "out = ops.flip(x3, (0, 2))"),
        ("full", "out = ops.full((2, 3), 7, dtype=ms.int32)"),
        ("gather", "out = ops.gather(x3, Tensor(np.array([2, 0], np.int32)), 1)"),
        ("index_select", "out = ops.index_select(x3, 2, Tensor(np.array([3, 0], np.int32)))"),
        ("layer_norm", "out = ops.layer_norm(x3, (4,), Tensor([1.0, 2.0, 0.5, 1.0]), "
                       "Tensor([0.0, 0.1, 0.2, 0.3]))"),
        ("lp_pool1d", "out = ops.lp_pool1d(x3, 2.0, 2, 2)"),
        ("lp_pool2d", "out = ops.lp_pool2d(img, 2.0, 2, 2)"),
        ("masked_fill", "out = ops.masked_fill(x, xb, Tensor(9.0))"),
        ("masked_select", "out = ops.masked_select(x, xb)"),
        ("matrix_solve", "out = ops.matrix_solve(sq, x.T)"),
        ("max_pool3d", "out = ops.max_pool3d(Tensor(np.linspace(-1, 1, 64).reshape(1, 1, 4, 4, 4)"
                       ".astype(np.float32)), 2, 2)"),
        ("moveaxis", "out = ops.moveaxis(x3, 0, -1)"),
        ("movedim", "out = ops.movedim(x3, (0, 1), (2, 0))"),
        ("orgqr", "out = ops.orgqr(Tensor(np.array([[1.0, 0.5], [0.3, 2.0], [0.2, 0.1]], "
                  "np.float32)), Tensor([1.2, 1.5]))"),
        ("permute", "out = ops.permute(x3, (2, 0, 1))"),
        ("polygamma", "out = ops.polygamma(Tensor(1), x + 0.5)"),
        ("strided_slice", "out = ops.strided_slice(x3, (0, 0, 1), (2, 3, 4), (1, 2, 2))"),
        ("swapaxes", "out = ops.swapaxes(x3, 0, 2)"),
        ("swapdims", "out = ops.swapdims(x3, 1, 2)"),
        ("threshold", "out = ops.threshold(x3, 0.2, 9.0)"),
        ("transpose", "out = ops.transpose(x3, (1, 0, 2))"),
        ("uniform", "out = ops.uniform((2, 3), Tensor(0.0), Tensor(1.0), seed=3)"),
        ("unsorted_segment_sum", "out = ops.unsorted_segment_sum(x3, Tensor(np.array([1, 0], "
                                 "np.int32)), 3)"),
        ("dropout3d", "out = ops.dropout3d(Tensor(np.ones((1, 2, 2, 2, 2), np.float32)), 0.0)"),
    ],
    "tensor": [
        ("cholesky_solve", "out = x.T.cholesky_solve(ops.cholesky(sq))"),
        ("erfinv_", "t = x.copy()\nt.erfinv_()\nout = t"),
        ("floor_", "t = x3 * 3\nt.floor_()\nout = t"),
        ("log_", "t = x.copy()\nt.log_()\nout = t"),
        ("sigmoid_", "t = x.copy()\nt.sigmoid_()\nout = t"),
        ("sign_", "t = x3.copy()\nt.sign_()\nout = t"),
        ("tanh_", "t = x.copy()\nt.tanh_()\nout = t"),
        ("item", "out = (x[1, 2].item(), xi[0, 1].item(), Tensor([True]).item())"),
        ("masked_select", "out = x.masked_select(xb)"),
        ("matmul", "out = x.matmul(sq)"),
        ("orgqr", "out = Tensor(np.array([[1.0, 0.5], [0.3, 2.0], [0.2, 0.1]], np.float32))"
                  ".orgqr(Tensor([1.2, 1.5]))"),
        ("scatter_add", "out = x.scatter_add(Tensor(np.array([[0], [1]], np.int32)), "
                        "Tensor(np.ones((2, 3), np.float32)))"),
        ("fill_", "t = x.copy()\nt.fill_(2.0)\nout = t"),
        ("zero_", "t = x.copy()\nt.zero_()\nout = t"),
    ],
    "primitive": [
        ("BatchMatMul", "out = ops.BatchMatMul(transpose_b=True)(x3, x3)"),
        ("BatchNorm", "out = ops.BatchNorm()(img, Tensor([1.0, 2.0]), Tensor([0.1, -0.2]), "
                      "Tensor([0.1, 0.2]), Tensor([1.5, 0.5]))[0]"),
        ("BiasAdd", "out = ops.BiasAdd()(img, Tensor([0.1, 0.2]))"),
        ("CholeskySolve", "out = ops.CholeskySolve()(x.T, ops.cholesky(sq))"),
        ("Conv2D", "out = ops.Conv2D(2, 3, pad_mode='pad', pad=1)(img, Tensor(np.linspace("
                   "-1, 1, 36).reshape(2, 2, 3, 3).astype(np.float32)))"),
        ("Conv2DBackpropInput", "out = ops.Conv2DBackpropInput(2, 3, pad_mode='pad', pad=1)("
                                "img, Tensor(np.linspace(-1, 1, 36).reshape(2, 2, 3, 3)"
                                ".astype(np.float32)), (1, 2, 4, 4))"),
        ("Conv2DTranspose", "out = ops.Conv2DTranspose(2, 3, pad_mode='valid')(img, Tensor("
                            "np.linspace(-1, 1, 36).reshape(2, 2, 3, 3).astype(np.float32)), "
                            "(1, 2, 6, 6))"),
        ("EmbeddingLookup", "out = ops.EmbeddingLookup()(x3[0], Tensor(np.array([[1, 2], [0, 1]], "
                            "np.int32)), 0)"),
        ("Fill", "out = ops.Fill()(ms.float32, (2, 3), 1.5)"),
        ("Gather", "out = ops.Gather()(x3, Tensor(np.array([2, 0], np.int32)), 1)"),
        ("LayerNorm", "out = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)(x3, "
                      "Tensor([1.0, 2.0, 0.5, 1.0]), Tensor([0.0, 0.1, 0.2, 0.3]))"),
        ("MaskedSelect", "out = ops.MaskedSelect()(x, xb)"),
        ("MatMul", "out = ops.MatMul(transpose_a=True)(x, y)"),
        ("MatrixSolve", "out = ops.MatrixSolve()(sq, x.T)"),
        ("OneHot", "out = ops.OneHot()(lbl, 3, Tensor(1.0), Tensor(0.0))"),
        ("Orgqr", "out = ops.Orgqr()(Tensor(np.array([[1.0, 0.5], [0.3, 2.0], [0.2, 0.1]], "
                  "np.float32)), Tensor([1.2, 1.5]))"),
        ("Polygamma", "out = ops.Polygamma()(Tensor(2), x + 0.5)"),
        ("Reshape", "out = ops.Reshape()(x3, (4, -1))"),
        ("ScalarToTensor", "out = ops.ScalarToTensor()(3.5, ms.float64)"),
        ("StridedSlice", "out = ops.StridedSlice(begin_mask=1, shrink_axis_mask=4)(x3, (1, 0, 2), "
                         "(2, 3, 3), (1, 2, 1))"),
        ("Transpose", "out = ops.Transpose()(x3, (2, 0, 1))"),
        ("UnsortedSegmentSum", "out = ops.UnsortedSegmentSum()(x3, Tensor(np.array([1, 0], "
                               "np.int32)), 3)"),
        ("ApplyMomentum", "var = Parameter(x.copy(), name='var')\nacc = Parameter(y.copy(), "
                          "name='acc')\nr = ops.ApplyMomentum()(var, acc, 0.1, z, 0.9)\n"
                          "out = (r, var, acc)"),
        ("ApplyAdagrad", "var = Parameter(x.copy(), name='var')\nacc = Parameter(y.copy(), "
                         "name='acc')\nr = ops.ApplyAdagrad()(var, acc, 0.1, z)\n"
                         "out = (r, var, acc)"),
        ("ApplyRMSProp", "var = Parameter(x.copy(), name='var')\nms_ = Parameter(y.copy(), "
                         "name='ms')\nmom = Parameter(z.copy(), name='mom')\n"
                         "r = ops.ApplyRMSProp()(var, ms_, mom, Tensor(0.1), z, 0.9, 0.5, 1e-6)\n"
                         "out = (r, var, ms_, mom)"),
        ("ApplyCenteredRMSProp", "var = Parameter(x.copy(), name='var')\n"
                                 "mg = Parameter(z.copy() * 0.1, name='mg')\n"
                                 "ms_ = Parameter(y.copy(), name='ms')\n"
                                 "mom = Parameter(z.copy(), name='mom')\n"
                                 "r = ops.ApplyCenteredRMSProp()(var, mg, ms_, mom, z, 0.1, 0.9, "
                                 "0.5, 1e-6)\nout = (r, var, mg, ms_, mom)"),
        ("ApplyAdaMax", "var = Parameter(x.copy(), name='var')\nm = Parameter(y.copy(), name='m')\n"
                        "vv = Parameter(z.copy(), name='v')\nr = ops.ApplyAdaMax()(var, m, vv, "
                        "Tensor(0.9), Tensor(0.1), Tensor(0.9), Tensor(0.99), Tensor(1e-8), z)\n"
                        "out = (r, var, m, vv)"),
        ("ApplyAdadelta", "var = Parameter(x.copy(), name='var')\na = Parameter(y.copy(), "
                          "name='a')\nu = Parameter(z.copy(), name='u')\nr = ops.ApplyAdadelta()("
                          "var, a, u, Tensor(0.1), Tensor(0.9), Tensor(1e-6), z)\n"
                          "out = (r, var, a, u)"),
        ("ApplyFtrl", "var = Parameter(x.copy(), name='var')\na = Parameter(y.copy() + 0.1, "
                      "name='a')\nl = Parameter(z.copy(), name='l')\nr = ops.ApplyFtrl()(var, "
                      "a, l, z, Tensor(0.1), Tensor(0.01), Tensor(0.02), Tensor(-0.5))\n"
                      "out = (r, var, a, l)"),
        ("ApplyProximalAdagrad", "var = Parameter(x.copy(), name='var')\na = Parameter("
                                 "y.copy(), name='a')\nr = ops.ApplyProximalAdagrad()(var, a, "
                                 "Tensor(0.1), Tensor(0.01), Tensor(0.02), z)\n"
                                 "out = (r, var, a)"),
        ("Adam", "var = Parameter(x.copy(), name='var')\nm = Parameter(y.copy(), name='m')\n"
                 "vv = Parameter(z.copy(), name='v')\nr = ops.Adam()(var, m, vv, Tensor(0.9), "
                 "Tensor(0.99), Tensor(0.1), Tensor(0.9), Tensor(0.999), Tensor(1e-8), z)\n"
                 "out = (len(r), var, m, vv)"),
        ("AdamWeightDecay", "var = Parameter(x.copy(), name='var')\nm = Parameter(y.copy(), "
                            "name='m')\nvv = Parameter(z.copy(), name='v')\n"
                            "r = ops.AdamWeightDecay()(var, m, vv, Tensor(0.1), Tensor(0.9), "
                            "Tensor(0.999), Tensor(1e-8), Tensor(0.01), z)\n"
                            "out = (len(r), var, m, vv)"),
    ],
    "nn": [
        ("Cell", "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.d = nn.Dense(3, 2)\n    def construct(self, a):\n"
                 "        return self.d(a) * 2\n\nnet = _fix(Net())\n"
                 "out = (net(x), [p.name for p in net.trainable_params()], "
                 "[n for n, _ in net.cells_and_names()])"),
        ("CellList", "cl = nn.CellList([nn.Dense(3, 2), nn.ReLU()])\ncl.append(nn.Dense(2, 1))\n"
                     "_fix(cl)\nh = x\nfor c in cl:\n    h = c(h)\n"
                     "out = (len(cl), h, [p.name for p in cl.get_parameters()])"),
        ("GRUCell", "out = _fix(nn.GRUCell(3, 2))(x, z[:, :2])"),
        ("LSTMCell", "out = _fix(nn.LSTMCell(3, 2))(x, (z[:, :2], y[:, :2]))"),
        ("RNNCell", "out = _fix(nn.RNNCell(3, 2, nonlinearity='relu'))(x, z[:, :2])"),
        ("GroupNorm", "out = _fix(nn.GroupNorm(2, 4))(Tensor(np.linspace(-1, 2, 32)"
                      ".reshape(2, 4, 2, 2).astype(np.float32)))"),
        ("MaxUnpool1d", "out = nn.MaxUnpool1d(2)(Tensor(np.array([[[2.0, 4.0]]], np.float32)), "
                        "Tensor(np.array([[[1, 3]]], np.int64)))"),
        ("MaxUnpool2d", "o, a = ops.max_pool2d(img, 2, 2, return_indices=True)\n"
                        "out = nn.MaxUnpool2d(2, 2)(o, a)"),
        ("MaxUnpool3d", "out = nn.MaxUnpool3d(2, 2)(Tensor(np.ones((1, 1, 1, 2, 2), np.float32)), "
                        "Tensor(np.array([0, 3, 5, 7], np.int64).reshape(1, 1, 1, 2, 2)))"),
        ("MultiheadAttention", "out = _fix(nn.MultiheadAttention(4, 2))(x3, x3, x3)"),
        ("TransformerEncoder", "layer = nn.TransformerEncoderLayer(4, 2, 8, 0.0)\n"
                               "out = _fix(nn.TransformerEncoder(layer, 2))(x3)"),
        ("WithLossCell", "out = nn.WithLossCell(_fix(nn.Dense(3, 2)), nn.MSELoss())(x, z[:, :2])"),
        ("WithEvalCell", "out = nn.WithEvalCell(_fix(nn.Dense(3, 2)), nn.MSELoss())(x, z[:, :2])"),
        ("TrainOneStepCell", "net = _fix(nn.Dense(3, 2))\n"
                             "step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), "
                             "nn.SGD(net.trainable_params(), 0.1))\n"
                             "out = (step(x, z[:, :2]), step(x, z[:, :2]), net.weight)"),
        ("DynamicLossScaleUpdateCell",
         "c = nn.DynamicLossScaleUpdateCell(loss_scale_value=2**10, scale_factor=2, "
         "scale_window=1)\ns = Parameter(Tensor(8.0), name='s')\n"
         "out = (c(s, Tensor(False)), s.value(), c(s, Tensor(True)), s.value())"),
        ("FixedLossScaleUpdateCell",
         "c = nn.FixedLossScaleUpdateCell(loss_scale_value=2**10)\n"
         "s = Parameter(Tensor(8.0), name='s')\nout = (c(s, Tensor(True)), s.value())"),
        ("CosineDecayLR", "lr = nn.CosineDecayLR(0.01, 0.1, 4)\n"
                          "out = [lr(Tensor(i, ms.int32)) for i in range(6)]"),
        ("ExponentialDecayLR", "lr = nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True)\n"
                               "out = [lr(Tensor(i, ms.int32)) for i in range(6)]"),
        ("WarmUpLR", "lr = nn.WarmUpLR(0.1, 4)\nout = [lr(Tensor(i, ms.int32)) for i in range(6)]"),
        ("cosine_decay_lr", "out = nn.cosine_decay_lr(0.01, 0.1, 10, 2, 3)"),
        ("exponential_decay_lr", "out = nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, True)"),
        ("inverse_decay_lr", "out = nn.inverse_decay_lr(0.1, 0.5, 6, 2, 2, True)"),
        ("natural_exp_decay_lr", "out = nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2)"),
        ("piecewise_constant_lr", "out = nn.piecewise_constant_lr([2, 5, 7], [0.1, 0.05, 0.01])"),
        ("polynomial_decay_lr", "out = nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5, True)"),
        ("warmup_lr", "out = nn.warmup_lr(0.1, 6, 2, 2)"),
        ("get_activation", "out = (type(nn.get_activation('relu')).__name__, "
                           "nn.get_activation('gelu')(x))"),
    ],
    "nn_metric": [
        ("ConfusionMatrix", "m = nn.ConfusionMatrix(3)\nm.clear()\n"
                            "m.update(Tensor(np.array([0, 2, 1, 2], np.int32)), "
                            "Tensor(np.array([0, 1, 1, 2], np.int32)))\nout = m.eval()"),
        ("Fbeta", "m = nn.Fbeta(1.5)\nm.clear()\nm.update(Tensor(np.array([[0.2, 0.8], "
                  "[0.7, 0.3], [0.4, 0.6]], np.float32)), Tensor(np.array([1, 1, 0], np.int32)))\n"
                  "out = m.eval()"),
        ("TopKCategoricalAccuracy", "m = nn.TopKCategoricalAccuracy(2)\nm.clear()\n"
                                    "m.update(Tensor(np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1], "
                                    "[0.1, 0.2, 0.7]], np.float32)), Tensor(np.array([0, 2, 2], "
                                    "np.int32)))\nout = m.eval()"),
        ("Top5CategoricalAccuracy", "m = nn.Top5CategoricalAccuracy()\nm.clear()\n"
                                    "m.update(Tensor(np.linspace(0, 1, 14).reshape(2, 7)"
                                    ".astype(np.float32)), Tensor(np.array([0, 5], np.int32)))\n"
                                    "out = m.eval()"),
    ],
}
