/*
 * tests/cpp/lib/py_parent_lib.cc -- a library registering the classes of
 * py_parent_lib.h, for tests/python/test_py_class_cxx_parent.py to extend with
 * py_class (docs/python.md §4.10).
 */
#include "py_parent_lib.h"

TVM_FFI_STATIC_INIT_BLOCK() { py_parent_lib::Register(); }
