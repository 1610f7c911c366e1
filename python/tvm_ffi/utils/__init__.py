"""tvm_ffi.utils: helper scripts (the torch C DLPack add-on builder)."""
