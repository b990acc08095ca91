"""The source conversion that lets a compiled function branch and loop on Tensor values (as
MindSpore's parser and TF's autograph do): ``if``, ``while``, ``x if c else y`` and the
``and``/``or``/``not`` of their tests become calls of graph/staging.py, which run plain Python
when the condition is a Python value (unrolled at trace time, as before) and build the If /
While nodes when it is a traced Tensor.

Applied to the functions GRAPH_MODE and ms.jit trace themselves (a Cell's ``construct``, the
jitted function), not to the functions they call. Rewrites, before the conversion:

- an early ``return`` inside an ``if`` (outside loops, with and try): the statements after
  the ``if`` move into the branch that does not return, so both branches end in a return and
  the ``if`` becomes a conditional whose value is returned;
- ``break`` / ``continue`` in a ``while`` body (outside inner loops, with and try): a break
  sets a flag the loop's condition reads, and the statements after either move into the
  branch that does not leave the iteration.

A function without control flow is used as it is. One whose source is unavailable, or that
uses what the conversion does not handle (``global``/``nonlocal``, generators), runs as
written: a tensor condition there raises the tracer's TensorValueNeeded, with a sentence why,
so a compiled call runs op by op (graph/jit.py) saying so.
"""
import ast
import copy
import functools
import inspect
import textwrap
import types
import weakref

from minispore.common.parameter import TensorValueNeeded, TraceError
from minispore.common.registry import REGISTRY
from minispore.graph import staging

_CF = "__ms_cf__"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_BLOCKS = (ast.With, ast.AsyncWith, ast.Try) + ((ast.TryStar,) if hasattr(ast, "TryStar")
                                                 else ())


def converted(fn):
    """`fn` with its control flow converted (cached per function), or `fn` itself when it has
    none to convert."""
    cache = REGISTRY.owned("graph.converted_functions", weakref.WeakKeyDictionary)
    try:
        hit = cache.get(fn)
    except TypeError:       # not weak-referenceable: a builtin
        return fn
    if hit is None:
        hit = cache[fn] = _convert(fn)
    return hit


def convert(fn):
    """`fn` (a function or a bound method) with its control flow converted; `fn` itself when
    it has none to convert."""
    if getattr(fn, "__func__", None) is not None:
        return converted_method(fn)
    return converted(fn)


def converted_method(method):
    """A bound method with its function converted (the method itself when unchanged)."""
    func = getattr(method, "__func__", None)
    if func is None:
        return method
    conv = converted(func)
    return method if conv is func else types.MethodType(conv, method.__self__)


def _convert(fn):
    if not inspect.isfunction(fn) or (fn.__module__ or "").startswith("minispore."):
        return fn   # minispore's own functions never branch on tensor values
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or \
            inspect.isasyncgenfunction(fn):
        return _unconverted(fn, "it is a generator or coroutine function")
    if fn.__name__ == "<lambda>":
        return _unconverted(fn, "it is a lambda (use `x if c else y` in a def)")
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return _unconverted(fn, "its source code is not available (code built with exec or "
                                "eval, or an interactive session)")
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            fdef.name != fn.__name__:
        return _unconverted(fn, "its source could not be matched to its definition")
    if not any(isinstance(n, (ast.If, ast.While, ast.IfExp)) for n in ast.walk(fdef)):
        return fn
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fdef)):
        return _unconverted(fn, "it declares global or nonlocal names")
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    filename = fn.__code__.co_filename
    try:
        _mangle(fdef, fn.__qualname__)
        _Converter(filename).function(fdef)
        return _build(fn, fdef, filename)
    except Exception as exc:    # noqa: BLE001 -- a construct the conversion mishandles
        # runs as written: only a tensor condition reaching it fails, naming this reason
        return _unconverted(fn, f"the conversion failed ({type(exc).__name__}: {exc})")


def _unconverted(fn, reason):
    """`fn` as written; a TraceError about a tensor's value gets `reason` appended."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TraceError as exc:
            if "is not known while compiling" not in str(exc) or \
                    "could not be converted" in str(exc):
                raise
            # still a TensorValueNeeded: a compiled call runs op by op, naming the reason
            error = TensorValueNeeded(f"{exc} Control flow on Tensor values in "
                                      f"'{fn.__qualname__}' could not be converted for "
                                      f"GRAPH_MODE: {reason}.")
            error.reason = f"control flow in '{fn.__qualname__}' could not be converted: {reason}"
            raise error from None
    return run


def _mangle(fdef, qualname):
    """Private names (``self.__x``) as the class body would have compiled them: the converted
    function is compiled outside its class."""
    parts = qualname.split(".")
    owner = parts[-2].lstrip("_") if len(parts) > 1 and parts[-2] != "<locals>" else ""
    if not owner:
        return

    def mangled(name):
        if name.startswith("__") and not name.endswith("__"):
            return f"_{owner}{name}"
        return name
    for node in ast.walk(fdef):
        if isinstance(node, ast.Attribute):
            node.attr = mangled(node.attr)
        elif isinstance(node, ast.Name):
            node.id = mangled(node.id)


def _build(fn, fdef, filename):
    """The converted function: `fdef` compiled inside a factory whose parameters are `fn`'s
    free variables (so it takes `fn`'s own closure cells) and the staging module."""
    fdef.decorator_list = []
    free = list(fn.__code__.co_freevars)
    if "__class__" in free:   # zero-argument super() reads the __class__ cell
        fdef.body.insert(0, ast.Expr(ast.Name("__class__", ast.Load())))
    factory = ast.FunctionDef(
        name="__ms_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in free + [_CF]],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[],
        lineno=fdef.lineno)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    for node in ast.walk(module):   # generated nodes carry their statement's start only
        if hasattr(node, "end_lineno") and (node.end_lineno or 0) < node.lineno:
            node.end_lineno, node.end_col_offset = node.lineno, node.col_offset
    code = compile(module, filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    cells = dict(zip(free, fn.__closure__ or ()))
    cells[_CF] = types.CellType(staging)
    closure = tuple(cells[n] for n in inner.co_freevars)
    out = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    out.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(out, fn)
    return out


# -- analysis -----------------------------------------------------------------------------------
def _walk(node, stop=_SCOPES):
    """The nodes under `node` (itself excluded), not entering nested scopes."""
    for child in ast.iter_child_nodes(node):
        yield child
        if not isinstance(child, stop):
            yield from _walk(child, stop)


def _walk_all(stmts, stop=_SCOPES):
    for s in stmts:
        yield s
        if not isinstance(s, stop):
            yield from _walk(s, stop)


def _assigned(stmts):
    """Names the statements bind (not inside nested scopes, whose own names they are)."""
    names = []
    for n in _walk_all(stmts):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.append(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in n.names]
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.append(n.name)
    return list(dict.fromkeys(names))


def _has_effects(stmts):
    """Whether the statements assign or delete an attribute or an item."""
    return any(isinstance(n, (ast.Attribute, ast.Subscript)) and
               isinstance(n.ctx, (ast.Store, ast.Del)) for n in _walk_all(stmts))


def _has(stmts, kinds, stop):
    return any(isinstance(n, kinds) for n in _walk_all(stmts, stop))


def _returns_in(stmts):
    return _has(stmts, ast.Return, _SCOPES)


def _leaves_loop(stmts):
    """Whether the statements break or continue the enclosing loop."""
    return _has(stmts, (ast.Break, ast.Continue), _SCOPES + _LOOPS)


def _always_returns(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and \
        _always_returns(last.orelse)


def _liftable_returns(stmts):
    """Whether every return in the statements sits in ifs only (no loop, with or try)."""
    return not any(isinstance(n, _LOOPS + _BLOCKS) and _returns_in([n])
                   for n in _walk_all(stmts, _SCOPES))


def _lift_returns(stmts):
    """Statements where an ``if`` holding a return takes the statements after it into its
    branches, so every path through such an ``if`` ends in a return (see the module doc)."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            return out + [s]
        if isinstance(s, ast.If) and _returns_in([s]) and _liftable_returns([s]):
            rest = stmts[i + 1:]
            body = _lift_returns(s.body + ([] if _always_returns(s.body) else
                                           copy.deepcopy(rest)))
            orelse = _lift_returns(s.orelse + ([] if _always_returns(s.orelse) else
                                               copy.deepcopy(rest)))
            for branch in (body, orelse):
                if not _always_returns(branch):
                    branch.append(ast.Return(ast.Constant(None)))
            return out + [ast.copy_location(ast.If(s.test, body, orelse), s)]
        out.append(s)
    return out


def _rewrite_leaves(stmts, flag):
    """A while body with its break (set `flag`) and continue turned into branches."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Break):
            return out + [_assign(flag, ast.Constant(True), s)]
        if isinstance(s, ast.Continue):
            return out
        if isinstance(s, ast.If) and _leaves_loop([s]):
            rest = stmts[i + 1:]
            body = _rewrite_leaves(s.body + copy.deepcopy(rest), flag)
            orelse = _rewrite_leaves(s.orelse + copy.deepcopy(rest), flag)
            return out + [ast.copy_location(ast.If(s.test, body or [ast.Pass()], orelse), s)]
        out.append(s)
    return out


def _assign(name, value, at):
    return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), at)


def _call(fn, args, keywords=()):
    return ast.Call(ast.Attribute(ast.Name(_CF, ast.Load()), fn, ast.Load()), list(args),
                    [ast.keyword(k, v) for k, v in keywords])


def _thunk(expr):
    return ast.Lambda(ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                    defaults=[]), expr)


def _names_tuple(names, ctx):
    return ast.Tuple([ast.Name(n, ctx()) for n in names], ctx())


# -- the conversion ----------------------------------------------------------------------------
class _Converter:
    def __init__(self, filename):
        self.filename = filename
        self.count = 0

    def fresh(self, base):
        self.count += 1
        return f"__ms_{base}{self.count}"

    def where(self, node):
        return ast.Constant(f"{self.filename}:{node.lineno}")

    def function(self, fdef):
        body = fdef.body
        if _returns_in(body):
            body = _lift_returns(body)
        fdef.body = self.block(body, lift=True) or [ast.Pass()]

    def block(self, stmts, lift):
        out = []
        for s in stmts:
            out += self.statement(s, lift)
        return out

    def statement(self, s, lift):
        if isinstance(s, ast.If):
            if _returns_in([s]):
                if lift and _always_returns(s.body) and _always_returns(s.orelse) and \
                        _liftable_returns([s]):
                    return self.convert_if(s, returns=True, lift=True)
                return [self.plain(s, lift=False)]
            if _leaves_loop([s]):
                return [self.plain(s, lift=False)]
            return self.convert_if(s, returns=False, lift=lift)
        if isinstance(s, ast.While):
            if s.orelse or _returns_in(s.body) or _blocked_leaves(s.body):
                return [self.plain(s, lift=False)]
            return self.convert_while(s)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [s]
        if isinstance(s, ast.For) and not s.orelse and not _returns_in(s.body) and \
                _has(s.body, (ast.Break, ast.Continue), _SCOPES + _LOOPS) and \
                not _blocked_leaves(s.body):
            return self.convert_for(s)
        if isinstance(s, (ast.For, ast.AsyncFor) + _BLOCKS):
            return [self.plain(s, lift=False)]
        return [_Expressions(self).visit(s)]

    def convert_for(self, s):
        """A for loop (unrolled at trace time) whose body breaks or continues: the body runs
        under ``if not stopped`` and a Python break follows once the flag is the Python True,
        so a break on a Tensor condition skips the remaining iterations in the graph while
        Python conditions break at once, as written."""
        flag = self.fresh("break")
        body = _rewrite_leaves(s.body, flag)
        guard = ast.copy_location(ast.If(_call("not_", [ast.Name(flag, ast.Load())]), body,
                                         []), s)
        stop = ast.copy_location(ast.If(_call("is_true", [ast.Name(flag, ast.Load())]),
                                        [ast.Break()], []), s)
        s.body = self.block([guard], lift=False) + [stop]
        s.iter = _Expressions(self).visit(s.iter)
        return [_assign(flag, ast.Constant(False), s), s]

    def plain(self, s, lift):
        """`s` kept as Python, its inner statement lists converted."""
        for field in ("body", "orelse", "finalbody"):
            if hasattr(s, field):
                setattr(s, field, self.block(getattr(s, field), lift) or
                        ([ast.Pass()] if field == "body" else []))
        for h in getattr(s, "handlers", ()):
            h.body = self.block(h.body, lift) or [ast.Pass()]
        for field in ("test", "iter"):
            if hasattr(s, field):
                setattr(s, field, _Expressions(self).visit(getattr(s, field)))
        for item in getattr(s, "items", ()):
            item.context_expr = _Expressions(self).visit(item.context_expr)
        return s

    def branch_def(self, name, names, stmts, ret, lift, at):
        body = self.block(stmts, lift)
        if ret is not None:
            body.append(ret)
        args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], kwonlyargs=[],
                             kw_defaults=[], defaults=[])
        return ast.copy_location(ast.FunctionDef(name, args, body or [ast.Pass()], [],
                                                 None), at)

    def state(self, names):
        """The values of `names` here, Undefined where unbound (a branch may `del` one)."""
        return _call("values", [ast.Call(ast.Name("locals", ast.Load()), [], []),
                                ast.Tuple([ast.Constant(n) for n in names], ast.Load())])

    def convert_if(self, s, returns, lift):
        names = _assigned(s.body + s.orelse)
        effects = _has_effects(s.body + s.orelse)
        ret = None if returns else ast.Return(self.state(names))
        then_name, else_name = self.fresh("then"), self.fresh("else")
        defs = [self.branch_def(then_name, names, s.body, ret, lift, s),
                self.branch_def(else_name, names, s.orelse, copy.deepcopy(ret), lift, s)]
        call = _call("cond", [self.test(s.test), ast.Name(then_name, ast.Load()),
                              ast.Name(else_name, ast.Load()),
                              ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
                              self.state(names)],
                     [("effects", ast.Constant(effects)), ("where", self.where(s)),
                      ("returns", ast.Constant(returns))])
        if returns:
            tail = ast.Return(call)
        elif names:
            tail = ast.Assign([_names_tuple(names, ast.Store)], call)
        else:
            tail = ast.Expr(call)
        return defs + [ast.copy_location(tail, s)]

    def convert_while(self, s):
        prelude, body, test = [], s.body, self.test(s.test)
        if _leaves_loop(body):
            flag = self.fresh("break")
            prelude.append(_assign(flag, ast.Constant(False), s))
            body = _rewrite_leaves(body, flag)
            test = _call("loop_test", [ast.Name(flag, ast.Load()), _thunk(test)])
        names = _assigned(body)
        effects = _has_effects(body)
        cond_name, body_name = self.fresh("cond"), self.fresh("body")
        args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], kwonlyargs=[],
                             kw_defaults=[], defaults=[])
        cond_def = ast.copy_location(ast.FunctionDef(cond_name, args, [ast.Return(test)], [],
                                                     None), s)
        body_def = self.branch_def(body_name, names, body,
                                   ast.Return(self.state(names)), False, s)
        call = _call("while_loop", [ast.Name(cond_name, ast.Load()),
                                    ast.Name(body_name, ast.Load()),
                                    ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
                                    self.state(names)],
                     [("effects", ast.Constant(effects)), ("where", self.where(s))])
        tail = ast.Assign([_names_tuple(names, ast.Store)], call) if names else ast.Expr(call)
        return prelude + [cond_def, body_def, ast.copy_location(tail, s)]

    def test(self, expr):
        """A condition with its and/or/not as staging calls (and its inner expressions
        converted)."""
        if isinstance(expr, ast.BoolOp):
            fn = "and_" if isinstance(expr.op, ast.And) else "or_"
            result = self.test(expr.values[-1])
            for value in reversed(expr.values[:-1]):
                result = _call(fn, [_thunk(self.test(value)), _thunk(result)])
            return ast.copy_location(result, expr)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return ast.copy_location(_call("not_", [self.test(expr.operand)]), expr)
        return _Expressions(self).visit(expr)


def _blocked_leaves(stmts):
    """Whether a break/continue of this loop sits inside a with or try (not rewritable)."""
    for n in _walk_all(stmts, _SCOPES + _LOOPS):
        if isinstance(n, _BLOCKS) and _leaves_loop(
                n.body + getattr(n, "orelse", []) + getattr(n, "finalbody", []) +
                [x for h in getattr(n, "handlers", ()) for x in h.body]):
            return True
    return False


class _Expressions(ast.NodeTransformer):
    """``a if c else b`` as staging.ifexp (not inside nested defs and classes)."""

    def __init__(self, converter):
        self.converter = converter

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_call("ifexp", [self.converter.test(node.test),
                                                 _thunk(node.body), _thunk(node.orelse)],
                                       [("where", self.converter.where(node))]), node)
