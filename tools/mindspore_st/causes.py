"""Names the cause of one failed MindSpore st test from its exception, so failures group by what
would fix them (a missing name, a NotImplementedError, a value mismatch ...), and files each
cause under the acceptance's kinds: missing, deliberate difference, needs MindSpore internals."""
import re

# Causes that are not "minispore lacks it": (regex on "Type: message", kind, why). First match wins.
KNOWN = [
    (r"mindspore\._c_expression|mindspore\._checkparam|mindspore\._extends|_pynative_executor"
     r"|mindspore\.ops\._op_impl|mindspore\.ops\._vmap|mindspore\.ops\._primitive_cache"
     r"|mindspore\.ops\.function\._vmap",
     "needs MindSpore internals",
     "the test drives MindSpore's C++ executor or private registries, which minispore does not have"),
    (r"complex64|complex128|Unsupported dtype complex|mindspore\.ops\.Complex\b",
     "missing", "complex dtypes (complex64/complex128) are not implemented in minispore"),
    (r"serialization' has no attribute 'export'|cannot import name 'export' from "
     r"'(mindspore|minispore)\.train\.serialization'|onnxruntime",
     "missing", "export to ONNX (and onnxruntime to check it) is not implemented in minispore"),
    (r"set_context: (enable_graph_kernel|save_graphs|memory_optimize_level|runtime_num_threads)"
     r"|context .* is not supported",
     "needs MindSpore internals", "a context option of MindSpore's compiler"),
]

_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
_OBJ_ATTR = re.compile(r"'(\w+)' object has no attribute '(\w+)'")
_TYPE_ATTR = re.compile(r"type object '(\w+)' has no attribute '(\w+)'")
_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_KWARG = re.compile(r"([\w.]+?)(?:\.__init__)?\(\) got an unexpected keyword argument '(\w+)'")
_NOT_RAISED = re.compile(r"DID NOT RAISE <class '([\w.]+)'>")


def _ms(name):
    """minispore.x -> mindspore.x, as the test spelled it."""
    return re.sub(r"^minispore\b", "mindspore", name)


def classify(exc, message):
    """(kind, cause) of one failure; kind is 'missing', 'differs' or a KNOWN kind."""
    exc = exc or "Error"
    message = (message or "").strip()
    text = f"{exc}: {message}"
    for pattern, kind, reason in KNOWN:
        if re.search(pattern, text):
            return kind, (reason if kind == "missing" else _known_cause(exc, message))
    if exc == "AttributeError":
        for rx, fmt in ((_MODULE_ATTR, "{0}.{1}"), (_TYPE_ATTR, "{0}.{1}"), (_OBJ_ATTR, "{0}.{1}")):
            m = rx.search(message)
            if m:
                return "missing", "missing name " + fmt.format(_ms(m.group(1)), m.group(2))
    if exc in ("ImportError",):
        m = _IMPORT.search(message)
        if m:
            return "missing", f"missing name {_ms(m.group(2))}.{m.group(1)}"
    if exc == "ModuleNotFoundError":
        m = _NO_MODULE.search(message)
        if m:
            return "missing", f"missing module {_ms(m.group(1))}"
    if exc == "TypeError":
        m = _KWARG.search(message)
        if m:
            return "missing", f"missing argument {m.group(1)}({m.group(2)}=)"
    if exc == "NotImplementedError":
        return "missing", "NotImplementedError: " + _norm(message, 110)
    if exc == "Failed":
        m = _NOT_RAISED.search(message)
        if m:
            return "differs", f"expected {m.group(1).rsplit('.', 1)[-1]} not raised"
    if exc == "AssertionError":
        return "differs", "value mismatch (AssertionError)"
    if exc == "Timeout":
        return "differs", "timeout"
    if exc == "Crash":
        return "differs", "process crashed: " + _norm(message, 80)
    return "differs", f"{exc}: {_norm(message, 90)}"


def _known_cause(exc, message):
    m = _NO_MODULE.search(message) or _MODULE_ATTR.search(message) or _IMPORT.search(message)
    if m:
        return "internals: " + ".".join(_ms(g) for g in m.groups())
    return f"internals: {exc}: {_norm(message, 80)}"


def _norm(message, n):
    """The message with numbers, shapes and quoted values blanked, so alike failures group."""
    text = re.sub(r"\s+", " ", message)
    text = re.sub(r"\[[^\]]*\]|\((\s*-?\d+\s*,?)+\)", "[…]", text)
    text = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", text)
    return text if len(text) <= n else text[:n - 1] + "…"


def why(kind):
    """The reason shared by a whole kind (a "missing" cause names its own)."""
    for _, k, reason in KNOWN:
        if k == kind and k != "missing":
            return reason
    return ""
