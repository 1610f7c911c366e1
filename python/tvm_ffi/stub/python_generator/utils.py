"""``ImportItem``: one name a generated Python file imports."""

from __future__ import annotations

import dataclasses
from typing import Optional

from .consts import MOD_MAP


def map_module(mod: str) -> str:
    """``mod`` with a leading type-key module renamed by ``MOD_MAP`` (whole components only)."""
    for key, target in MOD_MAP.items():
        if mod == key or mod.startswith(key + "."):
            return target + mod[len(key):]
    return mod


@dataclasses.dataclass(frozen=True)
class ImportItem:
    """``from <mod> import <short> [as <alias>]``, at run time or only for type checkers.

    ``name`` is dotted (a type key or a Python path); its module goes through ``MOD_MAP``.
    """

    name: str
    type_checking_only: bool = False
    alias: Optional[str] = None

    @property
    def mod(self) -> str:
        return map_module(self.name.rpartition(".")[0])

    @property
    def short(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def bound(self) -> str:
        """The name the import binds in the file."""
        return self.alias or self.short

    def clause(self) -> str:
        return self.short if not self.alias or self.alias == self.short \
            else "%s as %s" % (self.short, self.alias)


def add_import(imports: list, item: ImportItem) -> None:
    """Append ``item`` unless already recorded."""
    if item not in imports:
        imports.append(item)
