"""The py_class types of each module by class name, for annotations written as strings.

With ``from __future__ import annotations`` a field annotated ``priority: Priority`` is the
text "Priority"; when ``Priority`` was defined inside a function it is in no module namespace.
As upstream does, such a name resolves to the FFI class of that name most recently defined
in the same module (enum classes included, they are py_class types too).
"""

_BY_MODULE = {}


def remember(cls):
    """Record a newly defined py_class type under its module and name."""
    _BY_MODULE.setdefault(cls.__module__, {})[cls.__name__] = cls


def forget(cls):
    """Drop a class whose definition failed (if it is still the one recorded)."""
    names = _BY_MODULE.get(cls.__module__, {})
    if names.get(cls.__name__) is cls:
        del names[cls.__name__]


def classes_of(module_name):
    """{class name: class} of the py_class types defined in a module so far."""
    return _BY_MODULE.get(module_name, {})


def classes_of_other_modules(module_name):
    """{class name: class} of the py_class types other modules define (the most recent of a
    name): the last resort for a forward reference to a class the declaring module imports
    only for type checking, as upstream's cross-module fallback."""
    out = {}
    for module, classes in _BY_MODULE.items():
        if module != module_name:
            out.update(classes)
    return out
