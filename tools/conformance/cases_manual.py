"""Hand-written cases: the everyday lines a MindSpore user types (printing, arithmetic on int
tensors, grad, construction errors), and the dataset and amp pipelines that need more than one
call. Each is (name, snippet); the snippet sets `out` and may print."""
from tools.conformance.cases_api import API_CASES
from tools.conformance.generate import RANDOM

EVERYDAY = [
    ("print_int32", "t = Tensor([0, 1, 2, 3], ms.int32)\nprint(t)"),
    ("repr_int32", "out = repr(Tensor([0, 1, 2, 3], ms.int32))"),
    ("print_float_2d", "print(x)"),
    ("repr_float_2d", "out = repr(x)"),
    ("repr_float_small", "out = repr(Tensor(np.array([[0.5, -1.25e-3, 3e5]], np.float32)))"),
    ("print_float_small", "print(Tensor(np.array([[0.5, -1.25e-3, 3e5]], np.float32)))"),
    ("repr_scalar_float", "out = repr(Tensor(3.5))"),
    ("repr_scalar_third", "out = repr(Tensor(np.float32(1 / 3)))"),
    ("print_scalar_float", "print(Tensor(3.5))"),
    ("repr_scalar_int", "out = repr(Tensor(5))"),
    ("repr_scalar_bool", "out = repr(Tensor(True))"),
    ("repr_bool_1d", "out = repr(Tensor([True, False]))"),
    ("print_bool_1d", "print(Tensor([True, False]))"),
    ("repr_float16", "out = repr(Tensor(np.arange(3), ms.float16) / 3)"),
    ("repr_int_widths", "out = repr(Tensor(np.array([[1, -10], [100, 2]], np.int64)))"),
    ("repr_int8", "out = repr(Tensor(np.array([1, -10, 100], np.int8)))"),
    ("repr_3d", "out = repr(Tensor(np.arange(8).reshape(2, 2, 2)))"),
    ("repr_long_1d_int", "out = repr(Tensor(np.arange(50)))"),
    ("repr_long_1d_float", "out = repr(Tensor(np.arange(30, dtype=np.float32)))"),
    ("repr_summarised_1d", "out = repr(Tensor(np.arange(1001)))"),
    ("repr_summarised_2d", "out = repr(Tensor(np.arange(80).reshape(10, 8)))"),
    ("repr_summarised_rows", "out = repr(Tensor(np.arange(8).reshape(8, 1)))"),
    ("repr_nan_inf", "out = repr(Tensor(np.array([np.nan, np.inf, -np.inf], np.float32)))"),
    ("repr_empty", "out = repr(Tensor(np.zeros((0,), np.float32)))"),
    ("repr_float64", "out = repr(Tensor(np.array([[1.5, 2.0]], np.float64)))"),
    ("str_equals_numpy", "out = str(x) == str(x.asnumpy())"),
    ("print_parameter", "print(Parameter(Tensor([1.0, 2.0]), name='w'))"),
    ("int_true_div", "t = Tensor([0, 1, 2, 3], ms.int32)\nout = t / 2"),
    ("int_true_div_tensor", "out = xi / yi"),
    ("int_rtruediv", "out = 6 / Tensor([1, 2, 3], ms.int32)"),
    ("int_floordiv", "t = Tensor([0, 1, 2, 3], ms.int32)\nout = t // 2"),
    ("int_floordiv_neg", "out = Tensor([-3, -1, 3], ms.int32) // 2"),
    ("float_floordiv", "out = x // 0.3"),
    ("int_rfloordiv", "out = 7 // Tensor([2, 3, 4], ms.int32)"),
    ("int_mod", "out = Tensor([-3, -1, 3], ms.int32) % 2"),
    ("ops_div_int", "out = ops.div(xi, yi)"),
    ("ops_floor_divide_int", "out = ops.floor_divide(xi, yi)"),
    ("int_plus_float_scalar", "out = xi + 0.5"),
    ("int_times_float_tensor", "out = xi * x"),
    ("int_pow", "out = xi ** 2"),
    ("bool_plus_int", "out = xb + xi"),
    ("split_int_size", "out = ops.split(Tensor(np.arange(12).reshape(6, 2), ms.float32), 3)"),
    ("split_uneven", "out = ops.split(Tensor(np.arange(10), ms.float32), 4)"),
    ("split_sections", "out = ops.split(Tensor(np.arange(12).reshape(6, 2), ms.float32), [1, 5])"),
    ("split_axis1", "out = ops.split(x, 1, axis=1)"),
    ("tensor_split_method", "out = Tensor(np.arange(12).reshape(6, 2), ms.float32).split(3)"),
    ("layernorm_prim_outputs", "out = ops.LayerNorm(1, 1)(x, Tensor(np.ones(3, np.float32)), "
                               "Tensor(np.zeros(3, np.float32)))"),
    ("layernorm_prim_last_axis", "out = ops.LayerNorm(-1, -1, 1e-5)(x3, "
                                 "Tensor(np.ones(4, np.float32)), Tensor(np.zeros(4, np.float32)))"),
    ("topk_unsorted_full", "out = ops.TopK(sorted=False)(Tensor([[3.0, 1.0, 2.0, 5.0]]), 4)"),
    ("topk_unsorted_func", "out = ops.topk(Tensor([[3.0, 1.0, 2.0, 5.0]]), 4, sorted=False)"),
    ("topk_sorted", "out = ops.topk(Tensor([[3.0, 1.0, 2.0, 5.0]]), 2)"),
    ("grad_pos_int", "out = ms.grad(lambda a: (a * a).sum(), 0)(x)"),
    ("grad_pos_tuple1", "out = ops.grad(lambda a: (a * a).sum(), (0,))(x)"),
    ("grad_pos_tuple2", "out = ops.grad(lambda a, b: (a * b).sum(), (0, 1))(x, y)"),
    ("grad_default", "out = ops.grad(lambda a, b: (a * b).sum())(x, y)"),
    ("value_and_grad_int", "out = ms.value_and_grad(lambda a: (a * a).sum(), 0)(x)"),
    ("value_and_grad_tuple1", "out = ms.value_and_grad(lambda a: (a * a).sum(), (0,))(x)"),
    ("grad_of_mean", "out = ms.grad(lambda a: ops.mean(a * 3.0))(x)"),
    ("grad_dense", "net = _fix(nn.Dense(3, 2))\nfn = lambda a: net(a).sum()\n"
                   "out = ms.grad(fn, None, net.trainable_params())(x)"),
    ("tensor_none", "out = Tensor(None)"),
    ("tensor_empty_list", "out = Tensor([])"),
    ("tensor_str", "out = Tensor('abc')"),
    ("tensor_nested_ragged", "out = Tensor([[1, 2], [3]])"),
    ("tensor_from_float_list", "out = Tensor([1.0, 2.0])"),
    ("tensor_from_int_list", "out = Tensor([1, 2])"),
    ("tensor_from_float64_np", "out = Tensor(np.array([1.5]))"),
    ("tensor_from_int_scalar", "out = Tensor(3)"),
    ("tensor_dtype_arg", "out = Tensor([1, 2], ms.float32)"),
    ("tensor_shape_init", "out = Tensor(shape=(2, 3), dtype=ms.float32, "
                          "init=ms.common.initializer.One()).init_data()"),
    ("tensor_shape_prop", "out = x.shape"),
    ("tensor_dtype_prop", "out = x.dtype"),
    ("tensor_item", "out = Tensor([2.5]).item()"),
    ("tensor_tolist", "out = xi.tolist()"),
    ("tensor_getitem", "out = x[1]"),
    ("tensor_getitem_slice", "out = x[:, 1:]"),
    ("tensor_getitem_bool", "out = x[x > 0.4]"),
    ("tensor_setitem", "t = Tensor(np.zeros((2, 3), np.float32))\nt[0] = 1.0\nout = t"),
    ("tensor_eq", "out = x == y"),
    ("tensor_neg", "out = -xi"),
    ("tensor_matmul", "out = x @ Tensor(np.ones((3, 2), np.float32))"),
    ("tensor_astype", "out = x.astype(ms.int32)"),
    ("tensor_len", "out = len(x)"),
    ("tensor_bool_error", "out = bool(x)"),
    ("tensor_float", "out = float(Tensor([2.5]))"),
    ("dtype_str", "out = str(ms.float32)"),
    ("dtype_repr", "out = repr(ms.int64)"),
    ("shape_mismatch_add", "out = x + Tensor(np.ones((3, 2), np.float32))"),
    ("matmul_mismatch", "out = ops.matmul(x, y)"),
    ("reshape_bad", "out = x.reshape(4, 2)"),
    ("set_seed_normal_shape", "ms.set_seed(1)\nout = ops.standard_normal((2, 2)).shape"),
    ("softmax_default", "out = ops.softmax(x)"),
    ("gelu_default", "out = ops.gelu(x)"),
    ("nn_gelu_default", "out = nn.GELU()(x)"),
    ("dense_default_shape", "out = nn.Dense(3, 4).weight.shape"),
    ("cell_call", "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                  "        self.fc = nn.Dense(3, 2)\n    def construct(self, a):\n"
                  "        return ops.relu(self.fc(a))\nnet = _fix(Net())\nout = net(x)"),
    ("cell_param_names", "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                         "        self.fc = nn.Dense(3, 2)\n    def construct(self, a):\n"
                         "        return self.fc(a)\n"
                         "out = [p.name for p in Net().trainable_params()]"),
    ("jit_function", "@ms.jit\ndef f(a, b):\n    return a * b + 1\nout = f(x, y)"),
]

DATASET = [
    ("numpy_slices_iter", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset({'a': np.arange(6).reshape(3, 2)}, shuffle=False)\n"
     "out = [r['a'] for r in d.create_dict_iterator(output_numpy=True)]"),
    ("numpy_slices_batch", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset(np.arange(10, dtype=np.float32), column_names=['a'], "
     "shuffle=False).batch(4)\nout = [r[0] for r in d.create_tuple_iterator()]"),
    ("batch_drop_remainder", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset(np.arange(10), column_names=['a'], shuffle=False)"
     ".batch(4, drop_remainder=True)\nout = d.get_dataset_size()"),
    ("generator_dataset", "import mindspore.dataset as ds\n"
     "def gen():\n    for i in range(3):\n        yield (np.array([i, i + 1], np.int32),)\n"
     "d = ds.GeneratorDataset(gen, ['a'], shuffle=False)\n"
     "out = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]"),
    ("map_lambda", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset(np.arange(4), column_names=['a'], shuffle=False)"
     ".map(lambda a: a * 2, input_columns=['a'])\n"
     "out = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]"),
    ("repeat_take_skip", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset(np.arange(4), column_names=['a'], shuffle=False)"
     ".repeat(2).skip(1).take(5)\n"
     "out = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]"),
    ("dataset_size_shapes", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset(np.zeros((6, 2, 3), np.float32), column_names=['a'], "
     "shuffle=False).batch(2)\nout = (d.get_dataset_size(), d.output_shapes(), "
     "[str(t) for t in d.output_types()], d.get_col_names())"),
    ("rename_project", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset({'a': np.arange(3), 'b': np.arange(3) * 2}, shuffle=False)"
     ".rename(['a'], ['c']).project(['b'])\nout = d.get_col_names()"),
    ("zip_datasets", "import mindspore.dataset as ds\n"
     "a = ds.NumpySlicesDataset({'a': np.arange(3)}, shuffle=False)\n"
     "b = ds.NumpySlicesDataset({'b': np.arange(3) * 2}, shuffle=False)\n"
     "out = [r for r in ds.zip((a, b)).create_tuple_iterator(output_numpy=True)]"),
    ("concat_datasets", "import mindspore.dataset as ds\n"
     "a = ds.NumpySlicesDataset({'a': np.arange(3)}, shuffle=False)\n"
     "out = [r[0] for r in (a + a).create_tuple_iterator(output_numpy=True)]"),
    ("shard_dataset", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset(np.arange(8), column_names=['a'], shuffle=False, "
     "num_shards=2, shard_id=1)\nout = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]"),
    ("typecast_map", "import mindspore.dataset as ds\nimport mindspore.dataset.transforms as T\n"
     "d = ds.NumpySlicesDataset(np.arange(3), column_names=['a'], shuffle=False)"
     ".map(T.TypeCast(ms.float32), ['a'])\n"
     "out = [r[0] for r in d.create_tuple_iterator()]"),
    ("vision_pipeline", "import mindspore.dataset as ds\nimport mindspore.dataset.vision as V\n"
     "ims = np.arange(2 * 4 * 4 * 1, dtype=np.uint8).reshape(2, 4, 4, 1)\n"
     "d = ds.NumpySlicesDataset({'image': ims}, shuffle=False).map("
     "[V.Rescale(1 / 255, 0), V.Normalize([0.5], [0.25]), V.HWC2CHW()], ['image'])\n"
     "out = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]"),
    ("resize_linear", "import mindspore.dataset.vision as V\n"
     "out = V.Resize((2, 2), V.Inter.LINEAR)(np.arange(16, dtype=np.uint8).reshape(4, 4, 1) * 10)"),
    ("onehot_transform", "import mindspore.dataset.transforms as T\n"
     "out = T.OneHot(4)(np.array([1, 3]))"),
    ("compose_transform", "import mindspore.dataset.transforms as T\nimport mindspore.dataset.vision as V\n"
     "out = T.Compose([V.Rescale(0.5, 1.0), V.HWC2CHW()])(np.ones((2, 2, 3), np.float32))"),
    ("set_seed_dataset", "import mindspore.dataset as ds\nds.config.set_seed(5)\n"
     "out = ds.config.get_seed()"),
    ("batch_size_info", "import mindspore.dataset as ds\n"
     "d = ds.NumpySlicesDataset(np.arange(10), column_names=['a'], shuffle=False).batch(3)\n"
     "out = (d.get_batch_size(), d.get_dataset_size())"),
]

AMP = [
    ("static_loss_scaler", "from mindspore import amp\ns = amp.StaticLossScaler(1024)\n"
     "out = (s.scale(x), s.unscale(s.scale(x)))"),
    ("dynamic_loss_scaler", "from mindspore import amp\ns = amp.DynamicLossScaler(1024, 2, 1)\n"
     "s.adjust(Tensor(True))\nout = s.scale_value.value()"),
    ("all_finite", "from mindspore import amp\nout = amp.all_finite((x, y))"),
    ("all_finite_inf", "from mindspore import amp\n"
     "out = amp.all_finite((x, Tensor([np.inf], ms.float32)))"),
    ("auto_mixed_precision_o2", "from mindspore import amp\nnet = _fix(nn.Dense(3, 2))\n"
     "net = amp.auto_mixed_precision(net, 'O2')\nout = net(x)"),
    ("auto_mixed_precision_o0", "from mindspore import amp\nnet = _fix(nn.Dense(3, 2))\n"
     "out = amp.auto_mixed_precision(net, 'O0')(x)"),
    ("fixed_loss_scale_manager", "from mindspore import amp\n"
     "m = amp.FixedLossScaleManager(128.0, drop_overflow_update=False)\n"
     "out = (m.get_loss_scale(), m.get_drop_overflow_update())"),
    ("dynamic_loss_scale_manager", "from mindspore import amp\n"
     "m = amp.DynamicLossScaleManager(2 ** 10, 2, 100)\nout = m.get_loss_scale()"),
    ("build_train_network", "from mindspore import amp\nnet = _fix(nn.Dense(3, 2))\n"
     "opt = nn.SGD(net.trainable_params(), 0.1)\n"
     "tn = amp.build_train_network(net, opt, nn.MSELoss(), level='O0')\nout = tn(x, y)"),
]


def manual_cases():
    cases = []
    tables = [("everyday", EVERYDAY), ("dataset", DATASET), ("amp", AMP)]
    tables += list(API_CASES.items())
    for area, table in tables:
        for name, code in table:
            case = {"id": f"{area}/{name}", "area": area, "code": [code]}
            if area in API_CASES and RANDOM.match(name):
                case["random"] = True       # compared by dtype and shape only
            cases.append(case)
    return cases
