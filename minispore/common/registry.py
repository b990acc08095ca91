"""The settings registry (DESIGN.md "The execution context and the interpreter stack").

Every option minispore honours is declared here once, as an `Option`: the keywords of
`set_context`, `set_auto_parallel_context`, `set_ps_context`, the dataset config, the global
seed, and every environment variable the project reads. An option carries MindSpore's name
and default, the type MindSpore's argument check wants, its own value check, whether it keys
the compile cache, and -- for keys MindSpore has that mean nothing here -- why it has no
effect. The public ``set_*``/``get_*`` functions are views over the one `REGISTRY`; the
compile key and the options a pass may read (`CompileOptions`, carried by the PassContext)
are derived from the options declared ``keys_compile``, never assembled by hand.

Environment options are read from ``os.environ`` here and nowhere else, each once, when first
needed (MindSpore too reads its variables as it starts); `reload_environment` reads them again
(tests that change the environment call it).

MindSpore keeps a graph it compiled whatever settings change afterwards (its phase key is the
cell and the argument signature only: ``_CellGraphExecutor.compile``). minispore compiles
again instead, so a graph always runs with the settings in force, and says so: changing a
compile-keyed option after a compile logs a warning naming it.
"""
import copy
import logging
import os
from dataclasses import dataclass

logger = logging.getLogger("minispore")

__all__ = ["Option", "CompileOptions", "REGISTRY", "SETTER_NAMES", "PLUG_POINTS"]

# Where an upper layer plugs a function into a lower one (DESIGN.md's layers: a lower layer may
# not import the upper one). Each point is declared here once, with who plugs in what; the
# lower layer reads it by name (`Registry.plugged`), so no module of its own holds the slot.
PLUG_POINTS = {
    "graph.jit": "minispore/graph/jit.py's `jit`: how ops.grad compiles a gradient function "
                 "in GRAPH_MODE",
    "graph.passes": "minispore/parallel/compiler.py's full pass list (the graph layer's own "
                    "GRAPH_PASSES until parallel is imported)",
    "graph.pass_context": "minispore/parallel/compiler.py's `pass_context()`: the PassContext "
                          "of a compile started now",
    "graph.before_compile": "functions called before every compile (minispore/ps/runtime.py "
                            "starts a parameter server's serving at the first one)",
    "common.after_restore": "functions called when the context is restored from a snapshot "
                            "(minispore/communication/state.py forgets the run's collective "
                            "counters and parameter-server progress)",
    "communication.after_init": "functions called at the end of every init() "
                                "(minispore/ps/runtime.py starts a job's parameter servers)",
    "nn.parameter_server": "minispore/ps/runtime.py, which an Optimizer hands its parameters "
                           "and calls to, and Model asks for the servers' resume step",
    "ops.update_redirect": "on a parameter-server worker, (parameter, gradient) -> bool that "
                           "sends a set_param_ps parameter's gradient to its server instead "
                           "of updating it (minispore/ps/worker.py)",
}

# What error messages call the function that sets each scope's options (MindSpore's names).
SETTER_NAMES = {
    "context": "context.set_context",
    "auto_parallel": "set_auto_parallel_context",
    "ps": "set_ps_context",
    "dataset": "config",
    "seed": "set_seed",
    "env": "the environment",
}


@dataclass(frozen=True)
class Option:
    """One setting. ``default``: its value after a reset, or a zero-argument callable giving a
    fresh one (a dict default must not be shared). ``kind``: the type(s) a value must have (a
    bool is refused where an int is wanted, as MindSpore's args_type_check does); ``check``:
    further validation, raising. ``keys_compile``: part of the compile-cache key (passes may
    read it). ``no_effect``: why setting it changes nothing in minispore (accepted, warns).
    Environment options (scope "env") name their variable in ``env`` and turn its text into a
    value with ``parse`` (raising a ValueError naming the variable)."""
    scope: str
    name: str
    default: object = None
    kind: object = None
    check: object = None
    keys_compile: bool = False
    no_effect: str = None
    env: str = None
    parse: object = None

    @property
    def qualname(self):
        return f"{self.scope}.{self.name}"

    def fresh_default(self):
        return self.default() if callable(self.default) else self.default


def _freeze(value):
    """A hashable stand-in for an option's value (dicts and lists become sorted tuples)."""
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_freeze(v) for v in value)
    if isinstance(value, set):
        return ("set",) + tuple(sorted(_freeze(v) for v in value))
    return value


class CompileOptions:
    """The compile-keyed options at one moment, by qualified name ("auto_parallel.comm_fusion"):
    what a PassContext carries for passes to read. Hashable and compared by value, so it keys
    the compile cache; its values are private copies."""
    __slots__ = ("_values", "_key", "_hash")

    def __init__(self, values):
        self._values = values
        self._key = tuple(sorted((name, _freeze(v)) for name, v in values.items()))
        self._hash = hash(self._key)

    def __getitem__(self, qualname):
        try:
            return self._values[qualname]
        except KeyError:
            raise KeyError(f"{qualname!r} is not a compile-keyed option; passes may read only "
                           f"{sorted(self._values)}") from None

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return self is other or (isinstance(other, CompileOptions) and self._key == other._key)

    def __repr__(self):
        return f"CompileOptions({dict(self._values)!r})"


class Registry:
    """The declared options and their current values (see the module docstring)."""

    def __init__(self, environ=os.environ):
        self._options = {}          # qualname -> Option
        self._values = {}           # qualname -> value (settable scopes only)
        self._user_set = set()      # qualnames the script set since their scope's reset
        self._environ = environ
        # bumped by every change of a settable value (and of the environment options read):
        # a reader that caches what it derives from the settings compares it (ops.interpreter)
        self.version = 0
        self._compiled = False      # a graph has been compiled in this process
        self._env_values = {}       # qualname -> value of the environment options read so far
        self._keyed_cache = None    # (version, CompileOptions)
        self._memos = {}            # name -> a hot path's list of values derived from settings
        self._owned = {}            # name -> run-time object (owned())
        self._plugged = {}          # plug point -> what an upper layer plugged in (or a tuple)

    # -- declaring -----------------------------------------------------------------------
    def declare(self, *options):
        for option in options:
            if option.qualname in self._options:
                raise ValueError(f"the option {option.qualname!r} is declared twice")
            self._options[option.qualname] = option
            if option.scope != "env":
                self._values[option.qualname] = option.fresh_default()
        self.version += 1

    def options(self, scope=None):
        """The declared options (of one scope), in declaration order."""
        return [o for o in self._options.values() if scope is None or o.scope == scope]

    def names(self, scope):
        return [o.name for o in self.options(scope)]

    # -- reading -------------------------------------------------------------------------
    def get(self, scope, name):
        qualname = f"{scope}.{name}"
        if scope == "env":
            return self._read_env(self._options[qualname])
        return self._values[qualname]

    def env(self, name):
        """The value of environment option `name` (its variable parsed, else its default)."""
        return self._read_env(self._options[f"env.{name}"])

    def _read_env(self, option):
        try:
            return self._env_values[option.qualname]
        except KeyError:
            pass
        text = self._environ.get(option.env)
        if text is None or text == "":
            value = option.fresh_default()
        else:
            value = option.parse(text) if option.parse is not None else text
        self._env_values[option.qualname] = value
        return value

    def reload_environment(self):
        """Read the environment options again at their next use."""
        self._env_values.clear()
        self.version += 1

    def user_set(self, scope, name):
        """Whether the script set the option since its scope was last reset."""
        return f"{scope}.{name}" in self._user_set

    # -- writing -------------------------------------------------------------------------
    def validate(self, scope, name, value):
        """Type and value checks of one option (raises as MindSpore does; nothing stored)."""
        option = self._options.get(f"{scope}.{name}")
        if option is None or scope == "env":
            shown = name if scope == "context" else repr(name)    # as MindSpore prints each
            raise ValueError(f"For '{SETTER_NAMES[scope]}', the keyword argument {shown} is "
                             f"not recognized! The valid keys are: {sorted(self.names(scope))}.")
        kind = option.kind
        if kind is not None and (not isinstance(value, kind) or (
                isinstance(value, bool) and bool not in _as_tuple(kind))):
            want = " or ".join(k.__name__ for k in _as_tuple(kind))
            raise TypeError(f"For '{SETTER_NAMES[scope]}', the argument '{name}' must be "
                            f"{want}, but got the type : {type(value).__name__}.")
        if option.check is not None:
            option.check(value)

    def store(self, scope, values):
        """Store already validated `values` {name: value} of one scope at once; warn for
        each that has no effect, and for each compile-keyed one that changed after a
        compile."""
        for name, value in values.items():
            option = self._options[f"{scope}.{name}"]
            if option.no_effect is not None:
                logger.warning("For '%s', the parameter '%s' has no effect in minispore: %s.",
                               SETTER_NAMES[scope], name, option.no_effect)
            old = self._values[option.qualname]
            if option.keys_compile and self._compiled and _freeze(old) != _freeze(value):
                logger.warning("For '%s', '%s' changed from %r to %r after a graph was "
                               "compiled: compiled graphs compile again with the new value at "
                               "their next call (MindSpore keeps the graphs it compiled before "
                               "the change).", SETTER_NAMES[scope], name, old, value)
            self._values[option.qualname] = value
            self._user_set.add(option.qualname)
        self.version += 1

    def set(self, scope, **values):
        """Validate every value, then store them all (none is stored when one is refused)."""
        for name, value in values.items():
            self.validate(scope, name, value)
        self.store(scope, values)

    def reset(self, scope):
        for option in self.options(scope):
            self._values[option.qualname] = option.fresh_default()
            self._user_set.discard(option.qualname)
        self.version += 1

    # -- compiling -----------------------------------------------------------------------
    def note_compile(self):
        """Called by the compile cache at each compile (see `store`'s warning)."""
        self._compiled = True

    def compile_options(self):
        """The compile-keyed options now: one object until a setting changes (the compile
        cache asks at every call)."""
        cached = self._keyed_cache
        if cached is not None and cached[0] == self.version:
            return cached[1]
        values = {o.qualname: copy.deepcopy(self.get(o.scope, o.name))
                  for o in self._options.values() if o.keys_compile}
        options = CompileOptions(values)
        self._keyed_cache = (self.version, options)
        return options

    def memo(self, name, initial):
        """The registry-owned list `name` (created from `initial` once) in which a hot path
        keeps values it derives from the settings, tagged with the `version` it read them at
        (its first item, -1 until then): the caller re-derives them when `version` moved."""
        return self._memos.setdefault(name, list(initial))

    def owned(self, name, factory):
        """The registry-owned run-time object `name` (made by `factory()` once): state of the
        process's run that is not a setting (the active profiler, async checkpoint writers,
        warn-once memory), kept here rather than in a module global, so one object owns
        every piece of mutable process state besides the world."""
        found = self._owned.get(name)
        if found is None:
            found = self._owned[name] = factory()
        return found

    # -- plug-ins ------------------------------------------------------------------------
    def plug(self, point, value):
        """An upper layer provides `point` (declared in PLUG_POINTS)."""
        self._check_point(point)
        self._plugged[point] = value

    def add_hook(self, point, fn):
        """Append `fn` to the functions of `point` (once)."""
        self._check_point(point)
        hooks = self._plugged.get(point, ())
        if fn not in hooks:
            self._plugged[point] = hooks + (fn,)

    def plugged(self, point, default=None):
        """What was plugged into `point`, else `default` (a hook point: a tuple)."""
        return self._plugged.get(point, default)

    @staticmethod
    def _check_point(point):
        if point not in PLUG_POINTS:
            raise ValueError(f"unknown plug point {point!r}; the points are "
                             f"{sorted(PLUG_POINTS)} (declared in PLUG_POINTS)")

    # -- tests ---------------------------------------------------------------------------
    def snapshot(self):
        """Everything `restore` puts back: the values and which the script set."""
        return dict(self._values), set(self._user_set)

    def restore(self, snapshot):
        values, user_set = snapshot
        self._values.clear()
        self._values.update(values)
        # Options declared since the snapshot (a module first imported in between) keep a
        # value: their defaults, as if just declared.
        for qualname, option in self._options.items():
            if qualname not in values and option.scope != "env":
                self._values[qualname] = option.fresh_default()
        self._user_set = set(user_set)
        self.version += 1


def _as_tuple(kind):
    return kind if isinstance(kind, tuple) else (kind,)


REGISTRY = Registry()
