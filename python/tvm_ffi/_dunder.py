"""The dataclass dunders step of ``py_class`` under the name upstream's package gives it
(``_install_dataclass_dunders``); see dataclasses/_stepwise.py."""

from .dataclasses._stepwise import install_dataclass_dunders as _install_dataclass_dunders

__all__ = ["_install_dataclass_dunders"]
