"""MindSpore's Python front ends over registered kernels: PrimitiveWithInfer,
PrimitiveWithCheck and prim_attr_register.

In MindSpore a user subclasses PrimitiveWithInfer, gives it a kernel's name (the class name,
or ``super().__init__(name=...)``), registers its constructor arguments as attributes with
``@prim_attr_register`` and writes the shape/dtype inference; calling it runs the C++ kernel
registered under that name. Here the kernel is minispore's primitive of that name in
minispore.ops.operations, built from the same attributes (Shift, Rolling, ...): the
subclass's inference runs first, as MindSpore's does, and its shapes and dtypes must agree
with the primitive's. A name minispore has no primitive for raises NotImplementedError.
"""
import functools
import inspect
import numbers

from minispore.common import dtype as mstype
from minispore.ops.primitive import Primitive

__all__ = ["PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "constexpr"]


def prim_attr_register(fn):
    """Decorates a Primitive subclass's ``__init__``: every argument (defaults filled in)
    becomes a primitive attribute before the body runs, as MindSpore's decorator does."""
    @functools.wraps(fn)
    def init(self, *args, **kwargs):
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        bound.apply_defaults()
        if not hasattr(self, "attrs"):
            Primitive.__init__(self, type(self).__name__)
        for name, value in list(bound.arguments.items())[1:]:
            self.add_prim_attr(name, value)
        return fn(self, *args, **kwargs)
    return init


def _abstract(x):
    """MindSpore's abstract value of an argument: {'shape', 'dtype', 'value'}."""
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        traced = getattr(x, "traced", False)
        return {"shape": tuple(x.shape), "dtype": x.dtype, "value": None if traced else x}
    if isinstance(x, bool):
        return {"shape": (), "dtype": mstype.bool_, "value": x}
    if isinstance(x, numbers.Integral):
        return {"shape": (), "dtype": mstype.int64, "value": x}
    if isinstance(x, numbers.Real):
        return {"shape": (), "dtype": mstype.float32, "value": x}
    return {"shape": None, "dtype": type(x), "value": x}


class PrimitiveWithCheck(Primitive):
    """A front end whose subclass checks its inputs (``check_shape``/``check_dtype`` or
    ``__check__``); the output is the named kernel's."""

    def __init__(self, name=None):
        if hasattr(self, "attrs"):      # prim_attr_register has begun the attributes
            self.name = name or self.name
        else:
            super().__init__(name)
        self._kernel = None

    def init_prim_io_names(self, inputs, outputs):
        self.add_prim_attr("input_names", list(inputs))
        self.add_prim_attr("output_names", list(outputs))

    def __check__(self, *abstracts):
        self.check_shape(*(a["shape"] for a in abstracts))
        self.check_dtype(*(a["dtype"] for a in abstracts))

    def check_shape(self, *shapes):
        return None

    def check_dtype(self, *dtypes):
        return None

    def _user_infer(self, abstracts):
        self.__check__(*abstracts)
        return None

    def kernel_primitive(self):
        """minispore's primitive of this front end's name, built from its attributes."""
        if getattr(self, "_kernel", None) is None:
            from minispore.ops import operations
            target = getattr(operations, self.name, None)
            if not (isinstance(target, type) and issubclass(target, Primitive)) \
                    or issubclass(target, PrimitiveWithCheck):
                raise NotImplementedError(
                    f"For '{self.name}' ({type(self).__name__}), minispore has no kernel named "
                    f"'{self.name}' for this front end; the kernels a PrimitiveWithInfer can "
                    f"name are minispore.ops.operations' primitives.")
            params = [p for p in inspect.signature(target.__init__).parameters.values()
                      if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                         p.KEYWORD_ONLY)]
            self._kernel = target(**{p.name: self.attrs[p.name] for p in params
                                     if p.name in self.attrs})
            self._kernel.instance_name = self.instance_name
        return self._kernel

    def __call__(self, *args):
        target = self.kernel_primitive()
        inferred = self._user_infer([_abstract(a) for a in args])
        out = target(*args)
        if inferred is not None:
            self._check_agrees(inferred, out)
        return out

    def _check_agrees(self, inferred, out):
        outs = out if isinstance(out, tuple) else (out,)
        shapes = inferred["shape"] if isinstance(out, tuple) else (inferred["shape"],)
        dtypes = inferred["dtype"] if isinstance(out, tuple) else (inferred["dtype"],)
        got = [(tuple(o.shape), o.dtype) for o in outs]
        want = [(tuple(s), d) for s, d in zip(shapes, dtypes)]
        if got != want:
            raise self.error(f"the front end's inference gives {want} but the '{self.name}' "
                             f"kernel returns {got}.", RuntimeError)


class PrimitiveWithInfer(PrimitiveWithCheck):
    """A front end whose subclass infers its outputs: ``__infer__(*abstracts)`` returning
    {'shape', 'dtype', 'value'}, or ``infer_shape`` / ``infer_dtype`` (and ``infer_value``)
    taking the inputs' shapes, dtypes and values."""

    def __infer__(self, *abstracts):
        shape = self.infer_shape(*(a["shape"] for a in abstracts))
        dtype = self.infer_dtype(*(a["dtype"] for a in abstracts))
        return {"shape": shape, "dtype": dtype, "value": None}

    def infer_shape(self, *shapes):
        return shapes[0]

    def infer_dtype(self, *dtypes):
        return dtypes[0]

    def _user_infer(self, abstracts):
        return self.__infer__(*abstracts)


def constexpr(fn=None, get_instance=True, reuse_result=True, check=True):
    """MindSpore's decorator for a function evaluated while the graph compiles, on constant
    arguments. minispore compiles by running the Python, so the function simply runs; a
    traced Tensor argument (a value not known while compiling) is refused, as MindSpore does."""
    def wrap(f):
        @functools.wraps(f)
        def run(*args, **kwargs):
            for a in list(args) + list(kwargs.values()):
                if getattr(a, "traced", False):
                    raise TypeError(f"For constexpr function '{f.__name__}', every argument "
                                    f"must be a constant, but got a Tensor whose value is not "
                                    f"known while compiling.")
            return f(*args, **kwargs)
        return run
    return wrap(fn) if fn is not None else wrap
