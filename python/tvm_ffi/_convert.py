"""convert(): explicit Python -> FFI value conversion, by the call path's conversion table."""

from . import _conversion, _rules, _tensor
from ._base import Object
from ._conversion import _classify, convert_func
from ._values import Bytes, String


class ObjectConvertible:
    """Mixin for Python objects that convert to an FFI object through asobject()."""

    def asobject(self):
        raise NotImplementedError()


_EXACT = None  # type -> rule code of the table's exact types (filled on first use)


def convert(value):
    """Explicit Python -> FFI conversion: what a call would pass, as a Python value.

    The conversion table says it: ``_rules.CONVERT`` per argument rule and, for the "slow" rule,
    the convert column of ``_rules.SLOW_ROWS`` (the rows the call's slow step reads)."""
    global _EXACT, _ACTIONS
    if _EXACT is None:
        _EXACT = dict(_rules.exact_types())
    tp = type(value)
    rule = _EXACT.get(tp)
    if rule is None:
        rule = _classify(tp)
    action = _rules.CONVERT[_rules.ARG_RULES[rule[0] if type(rule) is tuple else rule]]
    if action == "object":
        action = "same" if isinstance(value, Object) else "slow"
    if action == "slow":
        rows = _rules.SLOW_ROWS
        i = _conversion._slow_row(tp)
        while rows[i][2] == "next":
            i = _conversion._slow_row(tp, i + 1)
        step, action = rows[i][1:]
        if action == "step":
            return _conversion._STEPS[step](value)
        if action == "view":  # the pair the call passes, as the value a callee receives
            return _conversion._from_any_view(*_conversion._STEPS[step](value))
    if _ACTIONS is None:
        _ACTIONS = _actions()
    return _ACTIONS[action](value)


def _actions():
    from .container import Array, Map  # noqa: PLC0415 - container imports this module

    return {
        "same": lambda v: v,
        "array": Array,
        "map": Map,
        "string": String,
        "bytes": lambda v: Bytes(bytes(v)),
        "dlpack": lambda v: _tensor.from_dlpack(v),
    }


_ACTIONS = None  # CONVERT's actions (made on first use: container imports this module)


convert_func = convert_func
