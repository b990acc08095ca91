"""What converted code calls at control flow (graph/autograph.py rewrites ``if``, ``while``,
``x if c else y``, ``and``/``or``/``not`` in tests into calls of these): plain Python when the
condition is not a traced Tensor, so Python values are still unrolled at trace time; otherwise
the If / While nodes of graph/control_flow.py, with the variables the branches or the body
assign as their outputs.

A variable is an output of the node when it holds a Tensor (or a tuple/list of them); a
Python number that differs between the branches, or that a loop body changes, becomes a
0-d Tensor (bool, Int64 or Float32, as MindSpore makes such scalars tensors in its graphs).
Variables that cannot be merged (defined in only one branch, other Python objects that
differ) become an `Undefined` that raises naming the variable and the reason when used.
"""
import numpy as np

from minispore.common.context import context
from minispore.common.dtype import bool_, float32, int64
from minispore.common.tensor import Tensor
from minispore.graph.control_flow import If, While, aval_of, join_inputs, \
    predicate, prune, substituted, take_parameter_writes, trace_subgraph
from minispore.graph.tracer import TracedTensor

_CTX = context()


class Undefined:
    """A variable with no value after control flow on a Tensor (or before its first
    assignment): any use raises UnboundLocalError naming it and why."""

    __slots__ = ("name", "why")

    def __init__(self, name, why="is referenced before assignment"):
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "why", why)

    def _fail(self, *args, **kwargs):
        raise UnboundLocalError(f"local variable '{self.name}' {self.why}")

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        self._fail()

    def __repr__(self):
        return f"<undefined '{self.name}'>"

    __bool__ = __call__ = __getitem__ = __iter__ = __len__ = __setattr__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _fail
    __rtruediv__ = __neg__ = __matmul__ = __rmatmul__ = __lt__ = __le__ = __gt__ = _fail
    __ge__ = __pow__ = __floordiv__ = __mod__ = __float__ = __int__ = __index__ = _fail


def values(scope, names):
    """The current values of `names` in `scope` (a locals() dict), Undefined where unbound."""
    return tuple(scope[n] if n in scope else Undefined(n) for n in names)


def _traced(x):
    return isinstance(x, TracedTensor)


def _number(x):
    return isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating))


def _number_dtype(*xs):
    if any(isinstance(x, (float, np.floating)) for x in xs):
        return float32
    if all(isinstance(x, (bool, np.bool_)) for x in xs):
        return bool_
    return int64


def _const(x, dtype):
    return Tensor(np.asarray(x, dtype=dtype.np_dtype), dtype)


def _same(a, b):
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, Tensor):
        return False
    try:
        return bool(a == b)
    except Exception:   # noqa: BLE001 -- an object without a plain == is not the same value
        return False


def _note(exc, where, what):
    exc.add_note(f"(raised while tracing {what} at {where}: in GRAPH_MODE every branch of control "
                 f"flow on a Tensor is traced, whichever the data takes at run time)")


# -- if ---------------------------------------------------------------------------------------
def cond(test, then_fn, else_fn, names, state, effects=False, where="?", returns=False):
    """``if test:`` with `then_fn(*state)` / `else_fn(*state)` as the branches: each returns
    the new values of `names` (or, with `returns`, the function's return value)."""
    if not _traced(test):
        return then_fn(*state) if test else else_fn(*state)
    if effects:
        raise NotImplementedError(
            f"The `if` on a Tensor at {where} assigns an attribute or an item (self.x = ..., "
            f"a[i] = ...) in a branch: in GRAPH_MODE both branches are traced, so such "
            f"assignments are not supported there; compute the value in the `if` and assign "
            f"it after.")
    if returns:
        names = ("<return value>",)
        branches = (lambda: (then_fn(*state),), lambda: (else_fn(*state),))
    else:
        branches = (lambda: then_fn(*state), lambda: else_fn(*state))
    out = staged_cond(predicate(test, f"the `if` at {where}"), branches, names, where)
    return out[0] if returns else out


def staged_cond(pred, branches, names, where):
    """The If node of `pred` over the two branch thunks (each returning one value per name)."""
    traced = []
    for role, fn in zip(("true", "false"), branches):
        def run(fn=fn, role=role):
            try:
                return tuple(fn())
            except Exception as exc:
                _note(exc, where, f"the {role} branch of the `if`")
                raise
        traced.append(trace_subgraph(run, f"{_CTX.tracer.graph.name}.{role}"))
    (tg, tt, tout), (fg, ft, fout) = traced
    pairs = []
    merged = tuple(_merge(n, a, b, pairs, where) for n, a, b in zip(names, tout, fout))
    (t_writes, t_subst), (f_writes, f_subst) = take_parameter_writes(tg, tt), \
        take_parameter_writes(fg, ft)
    params = [p for p, _ in t_writes.values()] + \
        [p for key, (p, _) in f_writes.items() if key not in t_writes]
    if not pairs and not params:
        return merged

    def after(writes, tracer, p):    # a Parameter's value after the branch
        return writes[id(p)][1] if id(p) in writes else tracer.param_value(p)
    tg.outputs = tuple(substituted(tt.to_graph(a), t_subst) for a, _ in pairs) + \
        tuple(after(t_writes, tt, p) for p in params)
    fg.outputs = tuple(substituted(ft.to_graph(b), f_subst) for _, b in pairs) + \
        tuple(after(f_writes, ft, p) for p in params)
    captured = join_inputs([(tg, tt), (fg, ft)])
    prune(tg)
    prune(fg)
    tracer = _CTX.tracer
    outs = If(tg, fg)(pred, *[tracer.from_graph(v) for v in captured])
    from minispore.ops import functional as F
    for p, value in zip(params, outs[len(pairs):]):
        F.assign(p, value)
    return _fill(merged, outs[:len(pairs)])


class _Out:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


def _fill(obj, outs):
    if isinstance(obj, _Out):
        return outs[obj.k]
    if isinstance(obj, tuple):
        return tuple(_fill(x, outs) for x in obj)
    if isinstance(obj, list):
        return [_fill(x, outs) for x in obj]
    return obj


def _merge(name, a, b, pairs, where):
    """The value of `name` after the `if`: `a` from the then branch, `b` from the else."""
    if a is b:
        return a
    if isinstance(a, Undefined) or isinstance(b, Undefined):
        return Undefined(name, f"is assigned in only one branch of the `if` on a Tensor at "
                               f"{where}; give it a value before the `if` or in both branches")
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        av, bv = aval_of_tensor(a), aval_of_tensor(b)
        if tuple(av.shape) != tuple(bv.shape) or av.dtype != bv.dtype:
            raise ValueError(
                f"The variable '{name}' gets different shapes or dtypes in the two branches of "
                f"the `if` on a Tensor at {where}: {list(av.shape)} {av.dtype} in the then "
                f"branch, {list(bv.shape)} {bv.dtype} in the else branch; both branches must "
                f"give it the same shape and dtype.")
        pairs.append((a, b))
        return _Out(len(pairs) - 1)
    if isinstance(a, Tensor) and _number(b) and tuple(a.shape) == ():
        b = _const(b, aval_of_tensor(a).dtype)      # a flag set to True in one branch
    elif isinstance(b, Tensor) and _number(a) and tuple(b.shape) == ():
        a = _const(a, aval_of_tensor(b).dtype)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        pairs.append((a, b))
        return _Out(len(pairs) - 1)
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        raise TypeError(
            f"The variable '{name}' is a Tensor in one branch of the `if` on a Tensor at "
            f"{where} and a {type(b if isinstance(a, Tensor) else a).__name__} in the other; "
            f"both branches must give it a Tensor of the same shape and dtype (a number "
            f"merges with a 0-d Tensor only).")
    if _same(a, b):
        return a
    if _number(a) and _number(b):
        dtype = _number_dtype(a, b)
        pairs.append((_const(a, dtype), _const(b, dtype)))
        return _Out(len(pairs) - 1)
    if isinstance(a, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        return type(a)(_merge(f"{name}[{i}]", x, y, pairs, where)
                       for i, (x, y) in enumerate(zip(a, b)))
    return Undefined(name, f"holds different {type(a).__name__} values after the two branches "
                           f"of the `if` on a Tensor at {where}, which cannot be merged in a "
                           f"compiled graph")


def aval_of_tensor(t):
    return aval_of(t._value) if _traced(t) else aval_of(t)


# -- while ------------------------------------------------------------------------------------
def while_loop(test_fn, body_fn, names, state, effects=False, where="?"):
    """``while test: body``: `test_fn(*state)` is the condition, `body_fn(*state)` returns
    the new values of `names`. Runs in Python while the condition is not a traced Tensor."""
    state = tuple(state)
    while True:
        test = test_fn(*state)
        if _traced(test):
            break
        if not test:
            return state
        state = tuple(body_fn(*state))
    if effects:
        raise NotImplementedError(
            f"The `while` on a Tensor condition at {where} assigns an attribute or an item "
            f"(self.x = ..., a[i] = ...) in its body: in GRAPH_MODE the body is traced once, "
            f"so such assignments are not supported there.")
    return staged_while(test_fn, body_fn, names, state, where)


def _flatten(obj, path, leaves, paths):
    if isinstance(obj, (tuple, list)):
        return (type(obj), tuple(_flatten(x, f"{path}[{i}]", leaves, paths)
                                 for i, x in enumerate(obj)))
    leaves.append(obj)
    paths.append(path)
    return None


def _unflatten(struct, it):
    if struct is None:
        return next(it)
    kind, items = struct
    return kind(_unflatten(s, it) for s in items)


def staged_while(test_fn, body_fn, names, state, where):
    leaves, paths = [], []
    struct = tuple(_flatten(v, n, leaves, paths) for n, v in zip(names, state))
    kinds = ["carry" if isinstance(x, Tensor) else "static" for x in leaves]
    graph_name = _CTX.tracer.graph.name

    def rebuild(current):
        it = iter(current)
        return tuple(_unflatten(s, it) for s in struct)

    for _ in range(len(leaves) + 1):
        carry = [i for i, k in enumerate(kinds) if k == "carry"]
        avals = [aval_of_tensor(leaves[i]) for i in carry]

        def with_carries(carries):
            current = list(leaves)
            for i, c in zip(carry, carries):
                current[i] = c
            return rebuild(current)

        def run_body(*carries):
            try:
                return tuple(body_fn(*with_carries(carries)))
            except Exception as exc:
                _note(exc, where, "the body of the `while`")
                raise
        bg, bt, out = trace_subgraph(run_body, f"{graph_name}.body", avals)
        out_leaves, out_paths = [], []
        out_struct = tuple(_flatten(v, n, out_leaves, out_paths) for v, n in zip(out, names))
        if out_struct != struct:
            raise TypeError(f"A variable of the `while` on a Tensor at {where} changes its "
                            f"structure (tuple/list lengths) in the loop body; carried "
                            f"variables must keep their structure.")
        promoted = False
        for i, (kind, a, b) in enumerate(zip(kinds, leaves, out_leaves)):
            if kind == "carry":
                _check_carry(paths[i], a, b, where)
            elif kind == "static" and not _same(a, b):
                if _number(a) and (_number(b) or isinstance(b, Tensor)):
                    dtype = aval_of_tensor(b).dtype if isinstance(b, Tensor) else \
                        _number_dtype(a, b)
                    leaves[i] = _const(a, dtype)
                    kinds[i] = "carry"
                    promoted = True
                else:
                    kinds[i] = "local"
        if not promoted:
            break

    def run_cond(*carries):
        test = test_fn(*with_carries(carries))
        if _traced(test):
            return predicate(test, f"the `while` at {where}")
        return _const(bool(test), bool_)
    cg, ct, test = trace_subgraph(run_cond, f"{graph_name}.cond", avals)
    cg.outputs = (ct.to_graph(test),)
    bg.outputs = tuple(bt.to_graph(out_leaves[i]) for i in carry)
    captured = join_inputs([(cg, ct), (bg, bt)], explicit=len(carry))
    prune(cg)
    prune(bg)
    tracer = _CTX.tracer
    outs = While(cg, bg, len(carry))(*[leaves[i] for i in carry],
                                      *[tracer.from_graph(v) for v in captured])
    final = list(leaves)
    for i, o in zip(carry, outs):
        final[i] = o
    for i, kind in enumerate(kinds):
        if kind == "local":
            final[i] = Undefined(paths[i], f"is assigned in the body of the `while` on a "
                                           f"Tensor at {where} but holds no Tensor before "
                                           f"it; give it a Tensor (or number) value before "
                                           f"the loop")
    return rebuild(final)


def _check_carry(name, a, b, where):
    if not isinstance(b, Tensor):
        raise TypeError(f"The variable '{name}' is a Tensor before the `while` on a Tensor at "
                        f"{where} and a {type(b).__name__} after its body; it must stay a "
                        f"Tensor of the same shape and dtype.")
    av, bv = aval_of_tensor(a), aval_of_tensor(b)
    if tuple(av.shape) != tuple(bv.shape) or av.dtype != bv.dtype:
        raise ValueError(
            f"The variable '{name}' changes shape or dtype in the body of the `while` on a "
            f"Tensor at {where}: {list(av.shape)} {av.dtype} before the body, "
            f"{list(bv.shape)} {bv.dtype} after it; a loop carry must keep its shape and "
            f"dtype.")


def loop_test(stopped, test_fn):
    """The condition of a loop whose body breaks: false once `stopped` (the break flag)."""
    if _traced(stopped):
        from minispore.ops import functional as F
        test = test_fn()
        test = predicate(test, "a `while`") if _traced(test) else _const(bool(test), bool_)
        return F.logical_and(F.logical_not(stopped), test)
    return False if stopped else test_fn()


# -- expressions ------------------------------------------------------------------------------
def ifexp(test, then_fn, else_fn, where="?"):
    """``then if test else else``."""
    if not _traced(test):
        return then_fn() if test else else_fn()
    pred = predicate(test, f"the conditional expression at {where}")
    return staged_cond(pred, (lambda: (then_fn(),), lambda: (else_fn(),)),
                       ("<conditional expression>",), where)[0]


def _as_pred(x, what):
    return predicate(x, what) if _traced(x) else _const(bool(x), bool_)


def and_(first, second):
    """``a and b`` (thunks), a logical_and when a traced Tensor decides it."""
    a = first()
    if _traced(a):
        from minispore.ops import functional as F
        return F.logical_and(predicate(a, "`and`"), _as_pred(second(), "`and`"))
    return a and second()


def or_(first, second):
    """``a or b`` (thunks), a logical_or when a traced Tensor decides it."""
    a = first()
    if _traced(a):
        from minispore.ops import functional as F
        return F.logical_or(predicate(a, "`or`"), _as_pred(second(), "`or`"))
    return a or second()


def is_true(flag):
    """Whether a loop's break flag is the Python True (a break on a Python condition)."""
    return flag is True


def not_(a):
    """``not a``, a logical_not of a traced Tensor."""
    if _traced(a):
        from minispore.ops import functional as F
        return F.logical_not(predicate(a, "`not`"))
    return not a
