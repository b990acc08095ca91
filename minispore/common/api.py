"""ms.jit: compile a function (or a Cell method) into a graph on first call per input signature."""
import functools


def jit(function=None, mode="PSJit", input_signature=None, hash_args=None, jit_config=None,
        compile_once=False, **options):
    """Compile ``function`` like GRAPH mode does, in either mode: the first call with a given
    input signature (the shapes and dtypes of its Tensor arguments, the values of the others)
    traces it into a graph and compiles it; later calls with that signature run the compiled
    graph. Python control flow is unrolled while tracing; branching on a tensor's value raises
    an error suggesting PYNATIVE_MODE. Works as ``@ms.jit``, ``@ms.jit(...)`` and
    ``ms.jit(fn)``, also on Cell methods. ``input_signature``: placeholder Tensors (dims may
    be None or Symbol) for one compilation that serves every matching input. The environment
    variable ``MS_JIT=0`` runs every jit function eagerly. Other MindSpore options are
    accepted and ignored.

    The wrapper's ``compile_cache_info()`` returns dict(compiles=, hits=, entries=);
    ``minispore.graph.cache_info()`` sums over all jit functions.

    >>> import numpy as np, minispore as ms
    >>> @ms.jit
    ... def f(x, y):
    ...     return x * y + 1.0
    >>> f(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float32))).asnumpy().tolist()
    [2.0, 2.0]
    """
    if function is None:
        return functools.partial(jit, mode=mode, input_signature=input_signature,
                                 hash_args=hash_args, jit_config=jit_config,
                                 compile_once=compile_once, **options)
    if not callable(function):
        raise TypeError(f"For 'jit', 'function' must be a function or a Cell method, but got "
                        f"{type(function).__name__}.")
    if input_signature is not None and not isinstance(input_signature, (tuple, list)):
        input_signature = (input_signature,)
    from minispore.graph.jit import CompileCache, jit_enabled, jit_totals, tracing
    cache = CompileCache(getattr(function, "__name__", type(function).__name__), jit_totals())

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if tracing() or not jit_enabled():
            return function(*args, **kwargs)
        names = tuple(kwargs)
        flat = args + tuple(kwargs.values())
        n = len(args)

        def call(*a):
            return function(*a[:n], **dict(zip(names, a[n:])))
        placeholders = None
        if input_signature is not None:
            placeholders = tuple(input_signature)
            if len(flat) != len(placeholders):
                # A method's `self` is not part of the signature the user wrote.
                lead = flat[:len(flat) - len(placeholders)]
                return cache.call(lambda *t: call(*lead, *t), flat[len(lead):],
                                  extra_key=(names,) + tuple(id(x) for x in lead),
                                  placeholders=placeholders)
        return cache.call(call, flat, extra_key=(names,), placeholders=placeholders)

    wrapper.compile_cache_info = cache.info
    return wrapper
