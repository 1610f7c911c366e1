"""type_schema JSON -> Python annotation text, recording the imports the text needs."""

import json

# schema type name -> (module, name) of the annotation; module None = builtin
_SIMPLE = {
    "Any": ("typing", "Any"), "None": (None, "None"), "void": (None, "None"),
    "int": (None, "int"), "float": (None, "float"), "bool": (None, "bool"),
    "ffi.String": (None, "str"), "ffi.SmallStr": (None, "str"), "const char*": (None, "str"),
    "std::string": (None, "str"), "ffi.Bytes": (None, "bytes"), "ffi.SmallBytes": (None, "bytes"),
    "TVMFFIByteArray*": (None, "bytes"),
    "Device": ("tvm_ffi", "Device"), "DataType": ("tvm_ffi", "dtype"),
    "DLTensor*": ("tvm_ffi", "Tensor"), "ffi.Tensor": ("tvm_ffi", "Tensor"),
    "ffi.Shape": ("tvm_ffi", "Shape"), "ffi.Module": ("tvm_ffi", "Module"),
    "ffi.Object": ("tvm_ffi", "Object"), "ffi.Error": ("tvm_ffi.core", "Error"),
    "void*": ("ctypes", "c_void_p"), "ffi.OpaquePyObject": ("typing", "Any"),
}
_CONTAINERS = {  # schema type -> (abc name, number of type arguments)
    "ffi.Array": ("Sequence", 1), "ffi.List": ("MutableSequence", 1),
    "ffi.Map": ("Mapping", 2), "ffi.Dict": ("MutableMapping", 2),
}


def parse(text):
    """The schema dict of a ``type_schema`` string (None when absent or malformed)."""
    if not text:
        return None
    try:
        node = json.loads(text)
    except ValueError:
        return None
    return node if isinstance(node, dict) and isinstance(node.get("type"), str) else None


def function_parts(node):
    """(return node, [parameter nodes]) of an ``ffi.Function`` schema; None when packed.

    Two spellings exist: ``"args": [R, A1, ...]`` (return first) and, in newer upstream
    builds, ``"named_args": {"return": [R], "params": [A1, ...]}``.
    """
    if not isinstance(node, dict):
        return None
    args = node.get("args")
    if isinstance(args, list) and args:
        return args[0], args[1:]
    named = node.get("named_args")
    if isinstance(named, dict):
        ret = named.get("return") or [{"type": "None"}]
        params = named.get("params") or []
        return (ret[0] if isinstance(ret, list) else ret), list(params)
    return None


def _split_union(text):
    """Top-level alternatives of ``A | B[C | D]`` -> ``["A", "B[C | D]"]``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


class Namer:
    """Turns schema nodes into annotation text for one file.

    ``resolve(type_key)`` returns ``(module, name)`` for object types (module None when the
    name is visible in the file already); every name used is recorded in ``imports``
    (module -> set of names) for the file's import section.
    """

    def __init__(self, resolve):
        self._resolve = resolve
        self.imports = {}

    def use(self, module, name):
        if module is not None:
            self.imports.setdefault(module, set()).add(name)
        return name

    def ann(self, node):  # noqa: PLR0911 - one return per schema kind
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            return self.use("typing", "Any")
        ty, args = node["type"], node.get("args") or []
        if ty in _SIMPLE:
            return self.use(*_SIMPLE[ty])
        if ty in _CONTAINERS:
            name, n = _CONTAINERS[ty]
            parts = [self.ann(a) for a in args[:n]]
            parts += [self.use("typing", "Any")] * (n - len(parts))
            return "%s[%s]" % (self.use("collections.abc", name), ", ".join(parts))
        if ty == "Optional":
            inner = self.ann(args[0]) if args else self.use("typing", "Any")
            return inner if inner in ("Any", "None") or "None" in _split_union(inner) else inner + " | None"
        if ty == "Variant":
            alts = []
            for a in args:
                for t in _split_union(self.ann(a)):  # flatten nested unions, keep order
                    if t not in alts:
                        alts.append(t)
            return " | ".join(alts) if alts else self.use("typing", "Any")
        if ty in ("Tuple", "tuple", "ffi.Tuple"):
            return "tuple[%s]" % (", ".join(self.ann(a) for a in args) if args else "()")
        if ty == "ffi.Function":
            callable_ = self.use("typing", "Callable")
            parts = function_parts(node)
            if parts is None:
                return "%s[..., %s]" % (callable_, self.use("typing", "Any"))
            ret = self.ann(parts[0])
            return "%s[[%s], %s]" % (callable_, ", ".join(self.ann(a) for a in parts[1]), ret)
        module, name = self._resolve(ty)
        return self.use(module, name)

    def signature(self, node, first_index=0, self_param=False, skip_first=False):
        """``(params) -> ret`` of a function schema; packed (no args list): ``*args: Any``."""
        parts = function_parts(node)
        head = ["self"] if self_param else []
        if parts is None:
            any_ = self.use("typing", "Any")
            return "(%s) -> %s" % (", ".join(head + ["*args: " + any_]), any_)
        ret = self.ann(parts[0])
        params = parts[1][1:] if skip_first else parts[1]
        names = ["_%d: %s" % (first_index + i, self.ann(a)) for i, a in enumerate(params)]
        if names:
            names.append("/")
        elif self_param:
            head.append("/")
        return "(%s) -> %s" % (", ".join(head + names), ret)
