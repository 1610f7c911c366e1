"""The registry of stub generators (``--target``) and the interface the pipeline drives.

The pipeline (``tvm_ffi.stub.cli``) reads every file into blocks, gathers ``ty-map``
directives (stage 1), optionally lays out a new package (stage 2), then hands each file to
the generator (stage 3): directives the generator declares in ``directive_kinds`` go to
``add_directive`` first, then ``generate`` rewrites the blocks.
"""

from __future__ import annotations

from typing import Any

_GENERATORS: dict = {}


class Generator:
    """Base of a target language's generator."""

    #: the ``--target`` name
    name = ""
    #: extensions (lower case) a directory scan collects for this target
    source_exts: frozenset = frozenset()
    #: directive names (besides the pipeline's ``ty-map``) this generator accepts
    directive_kinds: frozenset = frozenset()

    def default_ty_map(self) -> dict:
        """A fresh copy of the target's default origin -> target name table."""
        raise NotImplementedError

    def declared_types(self, files: list) -> Any:
        """What ``generate`` receives as ``declared`` for a run over ``files``; None when
        the target does not name types across files."""
        return None

    def new_imports(self) -> Any:
        """A fresh record of the imports one file needs."""
        raise NotImplementedError

    def add_directive(self, imports: Any, name: str, payload: str, lineno: int) -> None:
        """Apply one declared directive of the file being generated."""
        raise NotImplementedError

    def generate(self, file_info: Any, imports: Any, opts: Any, ty_map: dict,
                 global_funcs: dict, declared: Any = None) -> None:
        """Rewrite the generated blocks of ``file_info`` in place.  ``declared`` maps the
        type key of every ``object`` block of the run to where it is generated (targets whose
        blocks name each other across files use it)."""
        raise NotImplementedError

    def init_namespace(self, init_path: Any, namespace: str, objects: list, ty_map: dict,
                       init_cfg: Any, is_root: bool) -> list:
        """Create (or complete) the files of one namespace of a new package; their paths."""
        raise NotImplementedError


def register_generator(cls: type) -> type:
    """Class decorator: make ``cls`` available as ``--target cls.name``."""
    _GENERATORS[cls.name] = cls
    return cls


def _load_builtin() -> None:
    from . import python_generator, rust_generator  # noqa: F401, PLC0415 - register themselves


def generator_names() -> list:
    """The registered target names, sorted."""
    _load_builtin()
    return sorted(_GENERATORS)


def get_generator(name: str) -> Generator:
    """A new generator for target ``name``; ValueError naming the known ones otherwise."""
    _load_builtin()
    cls = _GENERATORS.get(name)
    if cls is None:
        raise ValueError("Unknown generator `%s`. Known generators: %s"
                         % (name, ", ".join(sorted(_GENERATORS))))
    return cls()
