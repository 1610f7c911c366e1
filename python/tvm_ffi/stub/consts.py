"""Marker spellings of ``tvm-ffi-stubgen`` per comment syntax, and pipeline-level names."""

from __future__ import annotations

import dataclasses

MARKER = "tvm-ffi-stubgen"

#: directives the pipeline itself consumes; generators never see them.  ``prefix <ns>``
#: makes the file hold a block for every registered type of namespace ``<ns>`` (but the
#: ``skip <type key>`` ones); see ``cli._roll_out_prefixes``.
PIPELINE_DIRECTIVE_KINDS = frozenset({"ty-map", "prefix", "skip"})

#: block kinds a ``begin`` marker may open; ``global``/``object``/``export`` take ``/<param>``
BLOCK_KINDS = frozenset({"global", "object", "export", "import-section", "__all__"})


@dataclasses.dataclass(frozen=True)
class Syntax:
    """The markers of one comment syntax (``#`` for Python, ``//`` for Rust).

    ``begin``/``end`` delimit a generated block, ``directive(name)`` starts a one-line
    directive (``<comment> tvm-ffi-stubgen(<name>): <payload>``), ``skip_file`` excludes the
    file from processing.
    """

    comment: str

    @property
    def prefix(self) -> str:
        return "%s %s(" % (self.comment, MARKER)

    def directive(self, name: str) -> str:
        return "%s%s):" % (self.prefix, name)

    @property
    def begin(self) -> str:
        return self.directive("begin")

    @property
    def end(self) -> str:
        return self.prefix + "end)"

    @property
    def skip_file(self) -> str:
        return self.prefix + "skip-file)"

    @property
    def ty_map(self) -> str:
        return self.directive("ty-map")

    @property
    def import_object(self) -> str:
        return self.directive("import-object")


PYTHON_SYNTAX = Syntax("#")
RUST_SYNTAX = Syntax("//")

#: file extension (lower case) -> the syntax its markers use; anything else reads as Python
SYNTAX_BY_EXT = {".rs": RUST_SYNTAX}
