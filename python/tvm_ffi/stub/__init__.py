"""tvm_ffi.stub: generate Python type stubs from runtime reflection (``tvm-ffi-stubgen``).

Source files carry marker blocks; the generator rewrites only what lies between
``# tvm-ffi-stubgen(begin): <kind>`` and ``# tvm-ffi-stubgen(end)``:

- ``import-section``: the imports the other blocks of the file need;
- ``global/<prefix>[@<registry module>]``: ``init_ffi_api("<prefix>", __name__)`` plus
  ``def`` stubs of every global function ``<prefix>.<name>`` (from their ``type_schema``);
- ``object/<type key>`` (inside a class body): field annotations and method stubs;
- ``__all__``: the names the file's global and object blocks define;
- ``export/<module>``: re-export a sibling module's ``__all__`` (package ``__init__.py``).

Directives outside blocks: ``# tvm-ffi-stubgen(ty-map): <type key> -> <python.dotted.Name>``
and ``# tvm-ffi-stubgen(import-object): <python.dotted.name>;<type-checking only>;<alias>``.
Run ``python -m tvm_ffi.stub.cli --help`` for the options.

Layout: ``consts`` (marker spellings), ``file_utils`` (files cut into ``CodeBlock``s),
``generator`` (the ``--target`` registry), ``python_generator`` (the Python target: ``codegen``
renders the blocks), ``lib_state``/``utils`` (what reflection says), ``layout`` (the
``--coverage-out`` report), ``cli`` (the pipeline: ``_stage_1`` gathers ``ty-map``,
``_stage_2`` lays out an ``--init-*`` package, ``_stage_3`` fills one file).
"""
