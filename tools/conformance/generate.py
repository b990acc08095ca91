"""The mechanical corpus: for every public name MindSpore lists (ops, Tensor, nn, dataset
transforms, amp), a case whose candidate snippets call it on the runner's fixed inputs in the
usual shapes of such APIs. Probing under MindSpore keeps the first candidate that runs there, so
each recorded case is a call MindSpore accepts; names no template fits are reported as uncovered.
"""
import re

# Calls that need a cluster, a file, a device or write outside the runner's stdout (the C++
# Print), or that open an interactive session: they cannot run in a single CPU process.
SKIP = re.compile(
    r"^(all_|alltoall|AllGather|AllReduce|AlltoAll|Barrier|BatchISendIRecv|Broadcast|"
    r"CollectiveGather|CollectiveScatter|Receive|Reduce(Op|Scatter)?$|ReduceScatter|Send|"
    r"barrier|batch_isend_irecv|broadcast$|gather_into_tensor|irecv|isend|recv|reduce$|"
    r"reduce_scatter|scatter_tensor|send|matmul_reduce_scatter|P2POp|TCPStore|"
    r"print_|Print|tensor_dump|TensorDump|.*Summary$|TensorReport|DistCommAll|"
    r".*RegOp$|CustomOpBuilder|Custom$|DataType$|MultitypeFuncGraph|HyperMap|Map$|_Grad|_Vmap|"
    r"GradOperation|Depend|Load|UpdateState|PyFunc|PyExecute|StopGradient$|"
    r"register_hook|hook|data_sync|set_dtype|offload|untyped_storage|storage|move_to|"
    r"asnumpy_of|init_data|npu|to$|cuda)")

# Names that draw random numbers: compared by dtype and shape only, even when two probe runs
# under MindSpore happened to draw alike (a random flip that did not flip both times).
RANDOM = re.compile(r"^(Random|random|rand|Rand|Multinomial|multinomial|Uniform|uniform|"
                    r"StandardNormal|standard_normal|normal$|Gamma$|gamma$|Poisson$|poisson$|"
                    r"Bernoulli|bernoulli|CutOut|MixUp|CutMix|AutoAugment|RandAugment|"
                    r"TrivialAugmentWide|.*[Dd]ropout|shuffle$|TruncatedNormal$)")

OPS_ARGS = ["x", "x, y", "x, 1", "(x, y)", "x, y, z", "sq", "xi", "xi, yi", "xb", "xb, x, y",
            "x, 0.5", "x, 0", "x, 2", "x3", "img", "x, lbl", "(2, 3)", "x, (3, 2)", "v", "v, v",
            "2", "img, 2", "x3, 1", "x, ms.int32", "xi, 1", "[x, y]"]
PRIM_CALLS = ["()(x)", "()(x, y)", "()(x, 1)", "()((x, y))", "()(x, y, z)", "()(sq)", "()(xi)",
              "()(xi, yi)", "()(xb)", "()(xb, x, y)", "()(x, 0)", "()(x3)", "()(img)",
              "()(x, lbl)", "()(x, (3, 2))", "()(v)", "()((2, 3))", "()(x, ms.int32)",
              "(1)(x)", "(axis=1)(x)", "(2)(img)"]
TENSOR_CALLS = ["x.{}()", "x.{}(y)", "x.{}(1)", "x.{}(y, z)", "x.{}(0.5)", "x.{}(0)",
                "x.{}(3, 2)", "x.{}((3, 2))", "x.{}(ms.int32)", "xi.{}()", "xi.{}(yi)",
                "xi.{}(1)", "xb.{}()", "sq.{}()", "v.{}()", "x.{}(xb, 0.5)", "x3.{}(1, 2)",
                "x.{}(lbl)", "x.{}(1, lbl)"]
CELL_CALLS = [("()", "x"), ("(3)", "x"), ("(3, 2)", "x"), ("((3,))", "x"), ("(2, 2, 3)", "img"),
              ("(2)", "img"), ("()", "img"), ("(3, 2, 3)", "x3"), ("(3)", "x3"), ("()", "x3"),
              ("(4, 2)", "x3"), ("(2, 3)", "x"), ("(3, 2)", "xi"), ("(2)", "x3"),
              ("(3, 2, 3)", "x3, 1"), ("(3, 2)", "x3")]
LOSS_CALLS = ["()(x, y)", "()(x, lbl)", "(sparse=True)(x, lbl)", "()(x, y, z)", "()(x, xb)",
              "()(v, v)", "()(x, y, lbl)"]
OPTIM_CALLS = ["nn.{}(params, learning_rate=0.1)", "nn.{}(params, 0.1, 0.9)", "nn.{}(params)"]
METRIC_UPDATES = ["m.update(x, lbl)", "m.update(x, y)", "m.update(xi, yi)", "m.update(v, v)"]
VISION_CALLS = ["()(im)", "(2)(im)", "((2, 2))(im)", "(0.5)(im)", "(1 / 255, 0.0)(im)",
                "([0.5, 0.5, 0.5], [0.2, 0.2, 0.2])(imf)", "()(imf)", "((1, 1))(im)",
                "(1, 1, 2, 2)(im)", "(128)(im)", "(2.0)(imf)", "(1)(im)"]
TRANSFORM_CALLS = ["(ms.int32)(arr)", "(3)(arr)", "()(arr)", "(0, 2)(arr)", "(1)(arr)",
                   "(arr)(arr)", "([4])(arr)"]
IMAGES = ("im = np.arange(48, dtype=np.uint8).reshape(4, 4, 3) * 5\n"
          "imf = im.astype(np.float32)\n")


def _case(area, name, codes):
    case = {"id": f"{area}/{name}", "area": area, "code": codes}
    if RANDOM.match(name):
        case["random"] = True
    return case


def ops_cases(api):
    out = []
    for name, kind in api["ops"].items():
        if SKIP.match(name) or name.startswith("_"):
            continue
        if kind == "function":
            out.append(_case("ops", name, [f"out = ops.{name}({a})" for a in OPS_ARGS]))
        elif kind == "primitive":
            out.append(_case("primitive", name, [f"out = ops.{name}{c}" for c in PRIM_CALLS]))
    return out


def tensor_cases(api):
    out = []
    for name, kind in api["tensor"].items():
        if SKIP.match(name):
            continue
        if kind == "property":
            codes = [f"out = x.{name}", f"out = xi.{name}"]
        else:
            codes = ["out = " + c.format(name) for c in TENSOR_CALLS]
        out.append(_case("tensor", name, codes))
    return out


def nn_cases(api):
    out = []
    for name, kind in api["nn"].items():
        if SKIP.match(name):
            continue
        if kind == "cell":
            codes = [f"net = _fix(nn.{name}{args})\nout = net({inp})" for args, inp in CELL_CALLS]
            out.append(_case("nn", name, codes))
        elif kind == "loss":
            out.append(_case("nn_loss", name, [f"out = _fix(nn.{name}{c[:c.index(')') + 1]})"
                                                f"{c[c.index(')') + 1:]}" for c in LOSS_CALLS]))
        elif kind == "optimizer":
            codes = [("net = _fix(nn.Dense(3, 2))\nparams = net.trainable_params()\n"
                      f"opt = {c.format(name)}\n"
                      "grads = tuple(Tensor(np.full(p.shape, 0.1, np.float32)) for p in params)\n"
                      "opt(grads)\nopt(grads)\nout = [p.asnumpy() for p in params]")
                     for c in OPTIM_CALLS]
            out.append(_case("nn_optim", name, codes))
        elif kind == "class":
            codes = [f"m = nn.{name}()\nm.clear()\n{u}\nout = m.eval()" for u in METRIC_UPDATES]
            out.append(_case("nn_metric", name, codes))
        elif kind == "function":
            out.append(_case("nn", name, [f"out = nn.{name}({a})" for a in OPS_ARGS[:8]]))
    return out


def dataset_cases(api):
    out = []
    for name in api["vision"]:
        codes = [f"import mindspore.dataset.vision as vision\n{IMAGES}out = vision.{name}{c}"
                 for c in VISION_CALLS]
        out.append(_case("vision", name, codes))
    for name in api["transforms"]:
        codes = ["import mindspore.dataset.transforms as transforms\n"
                 f"arr = np.array([0, 2, 1], np.int64)\nout = transforms.{name}{c}"
                 for c in TRANSFORM_CALLS]
        out.append(_case("transforms", name, codes))
    # Most dataset classes read files; their hand-written cases are in cases_manual. Every name
    # MindSpore exports is checked for presence, so a missing one shows in the report.
    for module, names in (("dataset", api["dataset"]), ("amp", api["amp"])):
        imp = "import mindspore.dataset as mod" if module == "dataset" else "from mindspore import amp as mod"
        for name in names:
            out.append(_case("surface", f"{module}.{name}",
                             [f"{imp}\nout = callable(mod.{name})"]))
    return out


def all_cases(api):
    return ops_cases(api) + tensor_cases(api) + nn_cases(api) + dataset_cases(api)
