"""Keyword-argument front ends for callables that take positional arguments only.

FFI functions (``tvm_ffi.Function``) accept positional arguments only.
``make_kwargs_wrapper(f, ["x", "y"], arg_defaults=(1,), kwonly_names=["out"])`` returns a plain
Python function ``wrapper(x, y=1, *, out)`` that binds its arguments the way Python does
(keywords, defaults, the usual ``TypeError`` for missing / unexpected / duplicate arguments)
and then calls ``f(x, y, out)`` positionally: positional parameters first, in order, then the
keyword-only ones in ``kwonly_names`` order.

The wrapper is generated source (``def wrapper(...): return f(...)``) compiled once, so a call
costs one extra Python frame and no ``inspect`` work.  Only validated identifiers reach the
generated text; default values are passed in as globals, never through ``repr``.
"""

import functools
import keyword

from .unpack_dataclass import unpack_dataclass_to_tuple

_TARGET = "_tvm_ffi_target"
_UNPACK = "_tvm_ffi_unpack"
_DEFAULT = "_tvm_ffi_default_"


# prefixes of the generated wrapper's own names (ours, and upstream's, so that names valid
# there are exactly the names valid here)
_RESERVED_PREFIXES = ("_tvm_ffi_", "__i_")


def _check_names(names, what, kind):
    if not isinstance(names, (list, tuple)):
        raise TypeError("%s must be a list of str, got %s" % (what, type(names).__name__))
    for n in names:
        if not isinstance(n, str):
            raise TypeError("Argument name must be a string, got %r (in %s)" % (n, what))
        if not n.isidentifier():
            raise ValueError("%s: %r is not a valid Python identifier" % (what, n))
        if keyword.iskeyword(n):
            raise ValueError("%s: %r is a Python keyword and cannot be used as a parameter name"
                             % (what, n))
        if n.startswith(_RESERVED_PREFIXES):
            raise ValueError("%s: %r: names starting with %s conflict with internal names"
                             % (what, n, " or ".join(_RESERVED_PREFIXES)))
    dup = sorted({n for n in names if list(names).count(n) > 1})
    if dup:
        raise ValueError("Duplicate %s names found: %s" % (kind, ", ".join(dup)))


def _validate(arg_names, arg_defaults, kwonly_names, kwonly_defaults, dc_names):
    _check_names(arg_names, "arg_names", "argument")
    _check_names(kwonly_names, "kwonly_names", "keyword-only argument")
    if not isinstance(arg_defaults, tuple):
        raise TypeError("arg_defaults must be a tuple, got %s" % type(arg_defaults).__name__)
    if len(arg_defaults) > len(arg_names):
        raise ValueError("arg_defaults has %d values but only %d positional arguments"
                         % (len(arg_defaults), len(arg_names)))
    both = sorted(set(arg_names) & set(kwonly_names))
    if both:
        raise ValueError("Arguments cannot be both positional and keyword-only: %s" % ", ".join(both))
    if not isinstance(kwonly_defaults, dict):
        raise TypeError("kwonly_defaults must be a dict, got %s" % type(kwonly_defaults).__name__)
    extra = sorted(set(kwonly_defaults) - set(kwonly_names))
    if extra:
        raise ValueError("kwonly_defaults keys not in kwonly_names: %s" % ", ".join(extra))
    unknown = sorted(set(dc_names) - set(arg_names) - set(kwonly_names))
    if unknown:
        raise ValueError("map_dataclass_to_tuple names unknown arguments: %s" % ", ".join(unknown))


def make_kwargs_wrapper(target_func, arg_names, arg_defaults=(), kwonly_names=None,
                        kwonly_defaults=None, prototype=None, map_dataclass_to_tuple=None):
    """Wrap positional-only ``target_func`` as ``wrapper(<arg_names>, *, <kwonly_names>)``.

    ``arg_defaults`` are right-aligned to ``arg_names`` (like ``__defaults__``);
    ``kwonly_defaults`` maps keyword-only names to defaults (the others are required).
    ``prototype`` lends its ``__name__``/``__doc__``/``__module__``/``__qualname__``/
    ``__annotations__``.  Arguments named in ``map_dataclass_to_tuple`` go through
    ``unpack_dataclass_to_tuple`` before the call.  Bad names or defaults raise
    ``ValueError`` / ``TypeError`` here, not at call time.
    """
    if not callable(target_func):
        raise TypeError("target_func must be callable, got %r" % (target_func,))
    arg_names = list(arg_names)
    kwonly_names = list(kwonly_names or [])
    kwonly_defaults = {} if kwonly_defaults is None else kwonly_defaults
    dc_names = set(map_dataclass_to_tuple or ())
    _validate(arg_names, arg_defaults, kwonly_names, kwonly_defaults, dc_names)

    env = {_TARGET: target_func}
    params = []
    first_default = len(arg_names) - len(arg_defaults)
    for i, n in enumerate(arg_names):
        if i >= first_default:
            env[_DEFAULT + n] = arg_defaults[i - first_default]
            params.append("%s=%s%s" % (n, _DEFAULT, n))
        else:
            params.append(n)
    if kwonly_names:
        params.append("*")
        for n in kwonly_names:
            if n in kwonly_defaults:
                env[_DEFAULT + n] = kwonly_defaults[n]
                params.append("%s=%s%s" % (n, _DEFAULT, n))
            else:
                params.append(n)
    if dc_names:
        env[_UNPACK] = unpack_dataclass_to_tuple
    call_args = ["%s(%s)" % (_UNPACK, n) if n in dc_names else n for n in arg_names + kwonly_names]
    src = "def wrapper(%s):\n    return %s(%s)\n" % (", ".join(params), _TARGET, ", ".join(call_args))
    namespace = {}
    exec(compile(src, "<tvm_ffi kwargs wrapper>", "exec"), env, namespace)  # noqa: S102
    wrapper = namespace["wrapper"]
    if prototype is not None:
        functools.update_wrapper(wrapper, prototype, updated=())
    return wrapper


def make_kwargs_wrapper_from_signature(target_func, signature, prototype=None,
                                       exclude_arg_names=None, map_dataclass_to_tuple=None):
    """``make_kwargs_wrapper`` with names and defaults taken from an ``inspect.Signature``.

    Positional-only and positional-or-keyword parameters become ``arg_names`` (a parameter
    without a default after one with a default is a ``ValueError``, as in Python); keyword-only
    parameters become ``kwonly_names``.  ``*args`` / ``**kwargs`` cannot be forwarded
    positionally and raise ``ValueError``.  Names in ``exclude_arg_names`` are dropped.
    """
    import inspect  # noqa: PLC0415 - not needed by import tvm_ffi

    if not isinstance(signature, inspect.Signature):
        raise TypeError("signature must be an inspect.Signature, got %s" % type(signature).__name__)
    skip = set(exclude_arg_names or ())
    arg_names, arg_defaults, kwonly_names, kwonly_defaults = [], [], [], {}
    for name, p in signature.parameters.items():
        if name in skip:
            continue
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            raise ValueError("*%s not supported in wrapper generation" % name)
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            raise ValueError("**%s not supported in wrapper generation" % name)
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            kwonly_names.append(name)
            if p.default is not inspect.Parameter.empty:
                kwonly_defaults[name] = p.default
            continue
        arg_names.append(name)
        if p.default is not inspect.Parameter.empty:
            arg_defaults.append(p.default)
        elif arg_defaults:
            raise ValueError("non-default argument %r follows default argument" % name)
    return make_kwargs_wrapper(target_func, arg_names, tuple(arg_defaults), kwonly_names,
                               kwonly_defaults, prototype, map_dataclass_to_tuple)
