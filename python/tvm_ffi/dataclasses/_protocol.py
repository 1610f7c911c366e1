"""The extension protocol of ``py_class``: what a library built on it may hook into.

- **Fields-resolved hooks.** A function in the body of a class (or of any base) whose
  ``__ffi_on_fields_resolved__`` attribute is ``True`` is called as
  ``hook(type_info, own_fields)`` for each py_class defined below it, base-most hook first,
  once the own fields are ``Field`` records with a name, a ``type`` and a ``_ty_schema``,
  before anything of them reaches the runtime (``type_info.fields`` is still empty). A hook
  may edit those records (``metadata``, flags) and ``type_info._decorator_args``.
- **Extra ``field()`` keywords** wait in ``Field.extra_kwargs`` for a hook to consume
  (``pop``) them; any left over afterwards is a ``TypeError`` naming ``Class.field`` (on a
  ``c_class``, which runs no hooks, any at all).
- **Field markers.** ``__ffi_field_markers__`` (a tuple of classes, inherited as any class
  attribute) lists annotation types that mark a position instead of declaring a field:
  ``type_info._decorator_args["field_markers"]`` holds ``(marker, owner class, name,
  index)``, the index counting the fields before it, inherited ones first; a parent's
  entries come first. The class attribute the marker line may assign is left alone.
- **Type attributes.** The body values of the names in ``TYPE_ATTR_NAMES`` (and of the
  names a class or a base lists in ``__ffi_type_attr_names__``) become type attributes of
  that class alone; the runtime's lookup is exact (no ancestor walk), so the names in
  ``__ffi_inherit_type_attrs__`` (by default ``DEFAULT_INHERITED``) are copied from the
  nearest ancestor that registered one, unless the class body defines the name (``None``
  drops it, for descendants too).
"""

from .. import _typeinfo

#: class-body names that become type attributes rather than methods (the runtime's hooks)
TYPE_ATTR_NAMES = frozenset((
    "__ffi_repr__", "__ffi_hash__", "__ffi_eq__", "__ffi_compare__", "__ffi_convert__",
    "__ffi_convert_type_schema__", "__any_hash__", "__any_equal__", "__s_equal__",
    "__s_hash__", "__s_visit__", "__s_mutate__", "__s_maybe_inplace_mutate__",
    "__data_to_json__", "__data_from_json__"))

#: the parents' hooks a py_class registers again unless it lists its own selection
DEFAULT_INHERITED = ("__s_equal__", "__s_hash__", "__s_visit__", "__data_to_json__",
                     "__data_from_json__")


def _names(cls, attr, default):
    value = getattr(cls, attr, default)
    if not isinstance(value, (tuple, list)) or not all(isinstance(n, str) for n in value):
        raise TypeError("py_class %s: %s must be a tuple or list of strings, got %r"
                        % (cls.__name__, attr, value))
    return tuple(value)


def type_attr_names(cls):
    """(the names cls's body may register as type attributes, the names it inherits)."""
    inherited = _names(cls, "__ffi_inherit_type_attrs__", DEFAULT_INHERITED)
    extra = _names(cls, "__ffi_type_attr_names__", ())
    return TYPE_ATTR_NAMES | frozenset(extra) | frozenset(inherited), inherited


def inherited_type_attrs(info, cls, names):
    """(name, value) of each of ``names`` that cls's body leaves out and an ancestor has."""
    out = []
    for name in names:
        if name in cls.__dict__:
            continue
        parent = info.parent_type_info
        while parent is not None:
            value = _typeinfo._lookup_type_attr(parent.type_index, name)
            if value is not None:
                out.append((name, value))
                break
            owner = parent.type_cls
            if owner is not None and name in owner.__dict__:
                break  # an explicit None (or a refused value) stops the search
            parent = parent.parent_type_info
    return out


def marker_types(cls):
    """The classes of ``__ffi_field_markers__`` (TypeError for anything else)."""
    value = getattr(cls, "__ffi_field_markers__", ())
    if not isinstance(value, (tuple, list)) or not all(isinstance(m, type) for m in value):
        raise TypeError("py_class %s: __ffi_field_markers__ must be a tuple or list of "
                        "classes, got %r" % (cls.__name__, value))
    return tuple(value)


def place_markers(parent_info, owners):
    """The ``field_markers`` entries of a class: its parent's, then those of ``owners``, a
    list of (owner class, [field names in order], [(marker, name, local index)]) in field
    order (mixins base-most first, the class last); a name already seen keeps its place."""
    out = list(getattr(parent_info, "_decorator_args", {}).get("field_markers", ()))
    inherited = len(parent_info.all_fields())
    seen = set()
    for owner, names, found in owners:
        for marker, name, local in found:
            out.append((marker, owner, name, inherited + len(seen | set(names[:local]))))
        seen.update(names)
    return tuple(out)


def run_fields_resolved_hooks(info, cls, own_fields):
    """Call the fields-resolved hooks of cls and its bases, then refuse leftover keywords."""
    hooks = [v for base in reversed(cls.__mro__) for v in base.__dict__.values()
             if callable(v) and getattr(v, "__ffi_on_fields_resolved__", False) is True]
    for hook in hooks:
        hook(info, own_fields)
    refuse_leftover_keywords(cls, own_fields)


def refuse_leftover_keywords(cls, fields):
    """TypeError for a Field that still holds keywords no hook consumed."""
    for f in fields:
        if f.extra_kwargs:
            raise TypeError("%s.%s: unrecognized field options: %s"
                            % (cls.__name__, f.name, ", ".join(sorted(f.extra_kwargs))))
