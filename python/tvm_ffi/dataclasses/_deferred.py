"""``py_class`` definitions whose fields wait for a forward reference to resolve.

A field annotation may name a class that does not exist yet (``b: Optional["B"]`` with ``B``
defined after). As upstream, such a class gets its type index at once (so that others can
name it) but registers no field, method or type attribute: its layout needs the kind of
every field (``ffi._PyClassLayout``). Every later ``py_class`` definition retries the waiting
classes, parents before children, until none more resolves; the first construction of a
waiting class retries it too, and raises TypeError naming what still does not resolve. A
subclass of a waiting class waits with it. docs/guide-dataclasses.md §1.
"""

import sys
import typing

from . import _local_names
from .c_class import FIELDS_ATTR

#: the definitions waiting for their annotations, in definition order
_WAITING = []


def waiting(cls):
    """The waiting definition of cls itself (not of a base), or None."""
    for d in _WAITING:
        if d.cls is cls:
            return d
    return None


def wait(definition):
    """Queue ``definition`` (see py_class._Definition) and give its class a constructor that
    completes it first; a constructor of the class body runs once the fields exist."""
    cls = definition.cls
    definition.user_init = cls.__dict__.get("__init__")
    _WAITING.append(definition)
    cls.__init__ = _completing_init(definition)
    # already a dataclass, as upstream: fields() gives the registered (inherited) ones
    setattr(cls, FIELDS_ATTR, tuple(getattr(cls, FIELDS_ATTR, ())))


def _completing_init(definition):
    cls = definition.cls

    def __init__(self, *args, **kwargs):
        complete(definition)
        cls.__init__(self, *args, **kwargs)  # the one the completed definition installed

    __init__.__qualname__ = cls.__qualname__ + ".__init__"
    __init__.__module__ = cls.__module__
    return __init__


def complete(definition):
    """Register the fields of a waiting definition, its waiting bases' first; TypeError
    naming the annotations that still do not resolve, or the error its definition met."""
    chain = []
    while definition is not None:
        chain.append(definition)
        definition = waiting(definition.parent_type_cls())
    cls = chain[0].cls
    for definition in reversed(chain):
        if definition.error is not None:
            raise definition.error
        if definition not in _WAITING:
            continue  # (completed meanwhile)
        try:
            ready = definition.ready()
        except Exception as err:
            drop(definition, err)
            raise
        if not ready:
            chain[0].unresolved()
            raise TypeError("Cannot instantiate %s: unresolved forward references: %s"
                            % (cls.__name__, unresolved_report(cls)))
        _finish(definition)
    flush()


def _finish(definition):
    _WAITING.remove(definition)
    if definition.cls.__dict__.get("__init__") is not definition.user_init:
        del definition.cls.__init__  # the completing constructor
        if definition.user_init is not None:
            definition.cls.__init__ = definition.user_init
    try:
        definition.finish()
    except BaseException as err:
        drop(definition, err)
        raise


def flush():
    """Complete every waiting definition that resolves now, until none more does. One whose
    completion fails is abandoned; constructing its class raises that error."""
    progress = True
    while progress:
        progress = False
        for definition in list(_WAITING):
            if definition not in _WAITING or waiting(definition.parent_type_cls()) is not None:
                continue
            try:
                if not definition.ready():
                    continue
            except Exception as err:  # noqa: BLE001 - kept, raised on construction
                drop(definition, err)
                continue
            try:
                _finish(definition)
            except Exception:  # noqa: BLE001 - kept (by _finish), raised on construction
                continue
            progress = True


def drop(definition, error):
    """Take a definition out of the queue for good (``definition.abandon()`` unbinds its
    class); constructing the class raises ``error``."""
    if definition in _WAITING:
        _WAITING.remove(definition)
    definition.error = error
    definition.abandon()
    if definition.info.fields is None and FIELDS_ATTR in definition.cls.__dict__:
        delattr(definition.cls, FIELDS_ATTR)
    definition.cls.__init__ = _completing_init(definition)


# ---------------------------------------------------------------------------------------------
# resolution


def needs_resolution(ann):
    """Whether an annotation still holds a name to look up: it is a string, or a ForwardRef
    or string is among its type arguments (``Optional["B"]``, ``list["B"]``)."""
    if isinstance(ann, (str, typing.ForwardRef)):
        return True
    if isinstance(ann, (list, tuple)):  # Callable's parameter list
        return any(needs_resolution(a) for a in ann)
    origin = typing.get_origin(ann)
    if origin is typing.Literal:
        return False
    args = typing.get_args(ann)
    if origin is typing.Annotated:
        args = args[:1]
    return any(needs_resolution(a) for a in args)


def resolve(owner, cls, ann):
    """The value of an annotation of ``owner``'s body (a string or one holding forward
    references) as ``typing.get_type_hints`` evaluates it: names of owner's module, of the
    module's py_class types, ``cls`` and its body; then, for a name still undefined, the
    py_class types of other modules (a class imported only for type checking).  Raises what
    the evaluation raises (NameError for a name that is not defined yet)."""
    local = {cls.__name__: cls}
    try:
        return _evaluate(owner, ann, local, {})
    except (NameError, AttributeError):
        return _evaluate(owner, ann, local,
                         _local_names.classes_of_other_modules(owner.__module__))


def _evaluate(owner, ann, local, fallback):
    module = sys.modules.get(owner.__module__)
    env = dict(fallback)
    env.update(vars(module) if module is not None else {})
    env.update(_local_names.classes_of(owner.__module__))
    local = dict(local, **{k: v for k, v in vars(owner).items() if isinstance(k, str)})
    holder = type("_Annotation", (), {"__annotations__": {"a": ann},
                                      "__module__": owner.__module__})
    value = typing.get_type_hints(holder, env, local, include_extras=True)["a"]
    if needs_resolution(value):  # (a string argument of list[...] before Python 3.11)
        raise NameError("annotation %r holds a forward reference that does not resolve"
                        % (ann,))
    return value


def unresolved_report(cls):
    """"name: annotation (error)" of each annotation of cls and its waiting bases (their
    mixins included) that does not resolve now."""
    out = []
    for base in reversed(cls.__mro__):
        definition = waiting(base)
        if definition is None:
            continue
        for owner, name, ann in definition.annotations():
            if not needs_resolution(ann):
                continue
            try:
                resolve(owner, definition.cls, ann)
            except Exception as err:  # noqa: BLE001 - reported
                text = ann if isinstance(ann, str) else repr(ann)
                out.append("%s: %s (%s)" % (name, text, err))
    return out
