"""The torch C DLPack add-on's sources: ``addon.cc`` and its builder ``build.py``, which runs as
a script in a fresh interpreter (it imports only torch), both for the JIT cache
(``tvm_ffi._optional_torch_c_dlpack``) and for the prebuilt ``torch-c-dlpack-ext`` package."""
