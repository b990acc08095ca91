"""Source conversion of compiled functions: each ``if`` statement becomes a call of
graph/control_flow.py's if_stmt and each ``while`` loop one of graph/while_loop.py's
while_stmt, so an ``if`` or a ``while`` on a Tensor value compiles into an If or a While node
(as MindSpore's parser compiles them) instead of stopping the trace.

``if test: A else: B`` becomes

    def _ms_true_k(v1, v2): A; return (v1, v2)
    def _ms_false_k(v1, v2): B; return (v1, v2)
    (v1, v2) = _ms_cf.if_stmt(test, _ms_true_k, _ms_false_k, (v1, v2), ('v1', 'v2'))

where v1, v2 are the variables either branch assigns (undefined ones enter as
control_flow.Undefined); ``while test: body`` likewise becomes a condition function and a body
function over the variables the body assigns. With a Python or eager condition if_stmt runs the chosen branch
directly, so converted code behaves as the original everywhere else. Only the compiled
function itself is converted (a Cell's construct, an ms.jit function), not the helpers it
calls. A ``return`` inside an ``if`` first becomes an assignment of the function's result on
each path (the statements after the if join its other branch), so early returns compile. An
``if`` or ``while`` whose body still returns, breaks, continues, yields or declares
global/nonlocal names (a return inside a loop, a break; and a ``while`` with an ``else``) is
left as written: on a Tensor condition it raises the tracer's error, as before.
"""
import ast
import inspect
import textwrap

import types

from minispore.common.registry import REGISTRY
from minispore.graph import control_flow, while_loop

__all__ = ["convert"]

_CF = "_ms_cf"
# What converted code calls, under the name _ms_cf.
_RUNTIME = types.SimpleNamespace(if_stmt=control_flow.if_stmt, Undefined=control_flow.Undefined,
                                 while_stmt=while_loop.while_stmt)
# function -> its converted form, or None when it has no if to convert (functions hash by
# identity: closures that share one code object keep their own cells).
_CONVERTED = REGISTRY.owned("graph.autograph", dict)
_LEAVES_BRANCH = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Global,
                  ast.Nonlocal, ast.Await)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_scope(nodes):
    """Every node under `nodes` that belongs to their scope (not inside nested functions,
    lambdas, classes or comprehensions)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _assigned(nodes):
    names = []
    for node in _walk_scope(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if node.id not in names:
                names.append(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name not in names:
                names.append(node.name)
    return names


def _convertible(node):
    return not any(isinstance(n, _LEAVES_BRANCH)
                   for n in _walk_scope(node.body + node.orelse))


def _params(names):
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _state(names, ctx):
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx()) for n in names], ctx=ctx())


def _undefined_preludes(names):
    """try: n / except NameError: n = _ms_cf.Undefined('n'), for each name."""
    return [ast.Try(
        body=[ast.Expr(value=ast.Name(id=n, ctx=ast.Load()))],
        handlers=[ast.ExceptHandler(
            type=ast.Name(id="NameError", ctx=ast.Load()), name=None,
            body=[ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                             value=_call("Undefined", [ast.Constant(n)]))])],
        orelse=[], finalbody=[]) for n in names]


def _located(stmts, node):
    for stmt in stmts:
        ast.copy_location(stmt, node)
        ast.fix_missing_locations(stmt)
    return stmts


# Python 3.12 added type parameters to function definitions.
_DEF_EXTRA = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


class _Converter(ast.NodeTransformer):
    def __init__(self):
        self.count = 0
        self._inside = False

    def _skip_scope(self, node):
        return node      # nested functions and classes keep their own ifs

    visit_Lambda = visit_ClassDef = _skip_scope

    def visit_FunctionDef(self, node):
        if self._inside:
            return node
        self._inside = True
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node):
        self.generic_visit(node)        # inner ifs (and elif chains) first
        if not _convertible(node):
            return node
        k = self.count
        self.count += 1
        names = _assigned(node.body + node.orelse)

        def branch(label, body):
            return ast.FunctionDef(name=f"_ms_{label}_{k}", args=_params(names),
                                   body=list(body or [ast.Pass()]) +
                                   [ast.Return(value=_state(names, ast.Load))],
                                   decorator_list=[], returns=None, **_DEF_EXTRA)

        out = [branch("true", node.body), branch("false", node.orelse)]
        out += _undefined_preludes(names)
        call = _call("if_stmt", [node.test, ast.Name(id=f"_ms_true_{k}", ctx=ast.Load()),
                                 ast.Name(id=f"_ms_false_{k}", ctx=ast.Load()),
                                 _state(names, ast.Load),
                                 ast.Tuple(elts=[ast.Constant(n) for n in names],
                                           ctx=ast.Load())])
        out.append(ast.Assign(targets=[_state(names, ast.Store)], value=call) if names
                   else ast.Expr(value=call))
        return _located(out, node)

    def visit_While(self, node):
        self.generic_visit(node)
        names = _assigned(node.body)
        if node.orelse or not names or not _convertible(node):
            return node
        k = self.count
        self.count += 1
        cond = ast.FunctionDef(name=f"_ms_cond_{k}", args=_params(names),
                               body=[ast.Return(value=node.test)], decorator_list=[],
                               returns=None, **_DEF_EXTRA)
        body = ast.FunctionDef(name=f"_ms_body_{k}", args=_params(names),
                               body=list(node.body) + [ast.Return(value=_state(names,
                                                                               ast.Load))],
                               decorator_list=[], returns=None, **_DEF_EXTRA)
        call = _call("while_stmt", [ast.Name(id=f"_ms_cond_{k}", ctx=ast.Load()),
                                    ast.Name(id=f"_ms_body_{k}", ctx=ast.Load()),
                                    _state(names, ast.Load),
                                    ast.Tuple(elts=[ast.Constant(n) for n in names],
                                              ctx=ast.Load())])
        out = [cond, body] + _undefined_preludes(names)
        out.append(ast.Assign(targets=[_state(names, ast.Store)], value=call))
        return _located(out, node)


_RET = "_ms_return"


def _has_return(stmts):
    return any(isinstance(n, ast.Return) for n in _walk_scope(stmts))


def _ends_with_return(stmts):
    return bool(stmts) and isinstance(stmts[-1], ast.Return)


def _lower(stmts):
    """The statements with every return moved to the end of a branch: the statements after an
    ``if`` that returns in one branch go into its other branch (into both when neither ends in
    a return), so each path ends in exactly one return. None when a return sits where this
    cannot move it (inside a loop, a with or a try)."""
    out = []
    for i, st in enumerate(stmts):
        if isinstance(st, ast.If) and _has_return([st]):
            rest = stmts[i + 1:]
            body = list(st.body) + ([] if _ends_with_return(st.body) else list(rest))
            orelse = list(st.orelse) + ([] if _ends_with_return(st.orelse) else list(rest))
            body, orelse = _lower(body), _lower(orelse)
            if body is None or orelse is None:
                return None
            out.append(ast.copy_location(ast.If(test=st.test, body=body, orelse=orelse), st))
            return out
        if isinstance(st, ast.Return):
            out.append(st)
            return out          # what follows a return never runs
        if _has_return([st]):
            return None
        out.append(st)
    out.append(ast.Return(value=None))       # falling off the end returns None
    return out


def _returns_to_assignments(stmts):
    """Each path's final ``return v`` (after _lower) becomes ``_ms_return = v``."""
    last = stmts[-1]
    if isinstance(last, ast.Return):
        value = last.value if last.value is not None else ast.Constant(None)
        stmts[-1] = ast.copy_location(
            ast.Assign(targets=[ast.Name(id=_RET, ctx=ast.Store())], value=value), last)
    elif isinstance(last, ast.If):
        _returns_to_assignments(last.body)
        _returns_to_assignments(last.orelse)


def _lower_early_returns(fdef):
    """A function that returns inside an ``if`` gets one return at its end (the value set on
    each path), so the if converts like any other; unchanged when nothing returns early."""
    top = fdef.body
    if not any(isinstance(st, ast.If) and _has_return([st]) for st in top):
        return
    lowered = _lower(top)
    if lowered is None:
        return
    _returns_to_assignments(lowered)
    fdef.body = lowered + [ast.Return(value=ast.Name(id=_RET, ctx=ast.Load()))]
    ast.fix_missing_locations(fdef)


def _call(attr, args):
    return ast.Call(func=ast.Attribute(value=ast.Name(id=_CF, ctx=ast.Load()), attr=attr,
                                       ctx=ast.Load()), args=args, keywords=[])


def convert(fn):
    """`fn` with its ``if`` statements converted (see the module docstring); `fn` itself when
    it has none to convert or its source cannot be read (a lambda, code built by exec)."""
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is None:
        return fn
    if func in _CONVERTED:
        converted = _CONVERTED[func]
    else:
        converted = _CONVERTED[func] = _convert(func)
    if converted is None:
        return fn
    bound_to = getattr(fn, "__self__", None)
    return converted.__get__(bound_to) if bound_to is not None else converted


def _convert(func):
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef) or \
            tree.body[0].name != func.__name__:
        return None
    fdef = tree.body[0]
    fdef.decorator_list = []
    _lower_early_returns(fdef)
    converter = _Converter()
    converter.visit(fdef)
    if not converter.count:
        return None
    freevars = list(func.__code__.co_freevars)
    try:
        cells = [c.cell_contents for c in (func.__closure__ or ())]
    except ValueError:      # a free variable not assigned yet
        return None
    factory = ast.FunctionDef(
        name="_ms_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in freevars + [_CF]],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                           defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, **_DEF_EXTRA)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, func.__code__.co_firstlineno - 1)
    namespace = {}
    exec(compile(module, inspect.getsourcefile(func) or "<converted>", "exec"),
         func.__globals__, namespace)
    converted = namespace["_ms_factory"](*cells, _RUNTIME)
    converted.__defaults__ = func.__defaults__
    converted.__kwdefaults__ = func.__kwdefaults__
    converted.__qualname__ = func.__qualname__
    converted.__module__ = func.__module__
    converted.__doc__ = func.__doc__
    return converted
